"""No figure of the book draws text smaller than the figure style's smallest font.

The browser test (``tests/book/test_browser.py``) checks that every figure shows its smallest
text at 9 pt or more at a 1400 px window; it computes that size from the smallest font
that :func:`kperc_book.chapter.style` sets. That is only right if no notebook or
experiment module draws text smaller than the style does, which this module checks
statically: every ``fontsize=``/``labelsize=``/``size=`` given to a text-drawing call
(and every ``rcParams`` size a notebook sets) is at least that size.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import matplotlib
import pytest
from matplotlib.font_manager import FontProperties

from kperc_book._notebooks import parse_code
from kperc_book.chapter import FONT_SIZE_PARAMS, smallest_font_pt, style

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
MODULES = sorted((ROOT / "book-tools" / "kperc_book" / "experiments").rglob("*.py"))

#: Keyword arguments that set a text size, for any call.
SIZE_KEYWORDS = {"fontsize", "labelsize", "title_fontsize"}
#: Calls that draw text and take ``size=`` for its font size.
TEXT_CALLS = {
    "text",
    "annotate",
    "set_title",
    "set_xlabel",
    "set_ylabel",
    "suptitle",
    "title",
    "xlabel",
    "ylabel",
    "figtext",
}


def _points(value, base: float) -> float | None:
    """Font size in pt of a literal size (number or named size); None if not a literal."""
    if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str)):
        with matplotlib.rc_context({"font.size": base}):
            return FontProperties(size=value.value).get_size_in_points()
    return None


def text_sizes(source: str, base: float) -> list[tuple[int, str, float]]:
    """(line, what, pt) of every literal text size set in ``source``.

    >>> text_sizes("ax.set_title('t', fontsize=8)", 10)
    [(1, 'fontsize=', 8.0)]
    >>> text_sizes("ax.text(0, 0, 's', size='small')", 10)
    [(1, 'size=', 8.33)]
    >>> text_sizes("plt.rcParams['legend.fontsize'] = 7", 10)
    [(1, "rcParams['legend.fontsize']", 7.0)]
    >>> text_sizes("rng.choice(3, size=2)", 10)
    []
    """
    tree = parse_code(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            for kw in node.keywords:
                if kw.arg in SIZE_KEYWORDS or (kw.arg == "size" and name in TEXT_CALLS):
                    pt = _points(kw.value, base)
                    if pt is not None:
                        found.append((node.lineno, f"{kw.arg}=", round(pt, 2)))
            if name == "update" and node.args and isinstance(node.args[0], ast.Dict):
                for k, v in zip(node.args[0].keys, node.args[0].values, strict=True):
                    if isinstance(k, ast.Constant) and k.value in FONT_SIZE_PARAMS:
                        pt = _points(v, base)
                        if pt is not None:
                            found.append((node.lineno, f"rcParams[{k.value!r}]", round(pt, 2)))
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if (
                    isinstance(t, ast.Subscript)
                    and isinstance(t.slice, ast.Constant)
                    and t.slice.value in FONT_SIZE_PARAMS
                ):
                    pt = _points(node.value, base)
                    if pt is not None:
                        found.append((node.lineno, f"rcParams[{t.slice.value!r}]", round(pt, 2)))
    return found


def _sources():
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if cell["cell_type"] == "code":
                yield f"{nb.name} cell {i}", "".join(cell["source"])
    for mod in MODULES:
        yield mod.relative_to(ROOT).as_posix(), mod.read_text(encoding="utf-8")


def test_style_sets_nine_points_or_more():
    """The browser test's rule assumes 9 pt fonts; the style must not go below that."""
    assert smallest_font_pt() >= 9.0


SOURCES = dict(_sources())


@pytest.mark.parametrize("where", list(SOURCES))
def test_no_text_smaller_than_the_style(where):
    source = SOURCES[where]
    floor = smallest_font_pt()
    with matplotlib.rc_context():
        style()
        base = FontProperties(size=matplotlib.rcParams["font.size"]).get_size_in_points()
    small = [(line, what, pt) for line, what, pt in text_sizes(source, base) if pt < floor]
    assert not small, f"{where}: text below the style's {floor:g} pt: {small}"
