"""The book's tools and chapters use only kperc's public API: no code in ``book-tools/``,
``benchmark_kperc/`` or a notebook of ``book/`` imports or reaches a private kperc name
such as ``kperc._kernels`` or ``kperc.sweeps._grid``. What a chapter needs, a reader
needs too, so it is public (in ``kperc.__all__``, documented and tested) or it is not used.
The prose of the pages is checked by ``tests/book/test_private_paths.py``.
"""

from __future__ import annotations

import ast
import json

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from kperc_book import paths


def _private_prefix(dotted: str) -> str | None:
    """``kperc._x`` for ``kperc._x.y`` (the path up to its first private part), else None."""
    parts = dotted.split(".")
    if parts[0] != "kperc":
        return None
    for i, part in enumerate(parts[1:], start=2):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def private_kperc_names(source: str) -> list[str]:
    """The private kperc names that ``source`` imports or reaches, as dotted paths."""
    tree = ast.parse(source)
    bound = {"kperc": "kperc"}  # local name -> the kperc module or object it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "kperc":
                    bound[a.asname or "kperc"] = a.name if a.asname else "kperc"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "kperc":
                for a in node.names:
                    bound[a.asname or a.name] = f"{node.module}.{a.name}"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Attribute):
            chain = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                found.append(".".join([bound[value.id], *reversed(chain)]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # getattr(kperc, "_x"), hasattr(kperc, "_x")
            args = node.args
            if (
                node.func.id in {"getattr", "hasattr"}
                and len(args) >= 2
                and isinstance(args[0], ast.Name)
                and args[0].id in bound
                and isinstance(args[1], ast.Constant)
                and isinstance(args[1].value, str)
            ):
                found.append(f"{bound[args[0].id]}.{args[1].value}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # importlib.import_module("kperc._x"): a dotted path spelled as a whole string
            if all(p.isidentifier() for p in node.value.split(".")):
                found.append(node.value)
    return sorted({p for name in found if (p := _private_prefix(name))})


def _sources():
    root = paths.ROOT
    for folder in ("book-tools", "benchmark_kperc"):
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            # not the copies a non-editable pip install leaves in book-tools/build
            if "build" not in path.relative_to(root).parts:
                yield where, path.read_text(encoding="utf-8")
    to_python = TransformerManager()  # a cell's %magics and !commands become Python
    for path in sorted(paths.book_dir().glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if cell["cell_type"] == "code":
                where = f"{path.relative_to(root).as_posix()}, cell {i}"
                yield where, to_python.transform_cell("".join(cell["source"]))


SOURCES = dict(_sources())


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from kperc._kernels import gram_matrix", ["kperc._kernels"]),
        ("import kperc._kernels", ["kperc._kernels"]),
        ("from kperc import _kernels", ["kperc._kernels"]),
        ("from kperc.sweeps import _grid", ["kperc.sweeps._grid"]),
        ("import kperc as kp\nkp._validation.check_gram(G)", ["kperc._validation"]),
        ("import kperc\nkperc.sweeps._grid()", ["kperc.sweeps._grid"]),
        ("import importlib\nimportlib.import_module('kperc._ties')", ["kperc._ties"]),
        ("import kperc\ngetattr(kperc, '_kernels')", ["kperc._kernels"]),
        ("import kperc.reference as ref\nref._steps(G)", ["kperc.reference._steps"]),
        ("from kperc import sweeps as sw\nsw._grid()", ["kperc.sweeps._grid"]),
    ],
)
def test_the_scan_finds_a_private_name(source, expected):
    assert private_kperc_names(source) == expected


def test_the_scan_passes_the_public_api():
    source = (
        "import kperc\nimport kperc.reference as ref\nfrom kperc import snkp, datasets\n"
        "from kperc.sweeps import sweep\nprint(kperc.__version__, kperc.snkp, ref.snkp)\n"
        "from . import _common\nfrom ._common import loglog_slope\n"
        "'see kperc._kernels for the details'\n"
    )
    assert private_kperc_names(source) == []


def test_the_tools_and_chapters_are_found():
    assert any(w.startswith("book-tools/kperc_book/") for w in SOURCES)
    assert any(w.startswith("book/ch04") for w in SOURCES)


def test_no_tool_or_chapter_uses_a_private_kperc_name():
    found = {w: names for w, src in SOURCES.items() if (names := private_kperc_names(src))}
    assert not found, (
        f"private kperc names used in {found}; use the public API, or make the name public "
        "in kperc (kperc.__all__, a numpydoc docstring with an Example, book/api.md)"
    )
