"""What the chapter notebooks say about the ledger, read without running them.

:func:`chapter_notebooks` finds the chapters; :func:`book_labels` reads the MyST
markdown cells for the labels of ``prf`` blocks, figures and ``(target)=`` lines;
:func:`check_cells` finds the code cells that call ``ch.check("<id>", ...)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..paths import BOOK_DIR

__all__ = [
    "Label",
    "chapter_notebooks",
    "book_labels",
    "check_cells",
    "check_ids_in_notebooks",
]


def chapter_notebooks(book_dir: Path | str = BOOK_DIR) -> dict[str, Path]:
    """``chapter key -> notebook`` for every ``book/chNN_*.ipynb``."""
    out = {}
    for p in sorted(Path(book_dir).glob("ch[0-9][0-9]_*.ipynb")):
        out.setdefault(p.name[:4], p)
    return out


@dataclass(frozen=True)
class Label:
    """A cross-reference target in a chapter notebook."""

    name: str
    kind: str  # "prf:<type>", "figure" or "target"
    cell: int  # index of the markdown cell that defines it
    title: str = ""

    @property
    def role(self) -> str:
        """The MyST role that links to it."""
        if self.kind.startswith("prf:"):
            return "prf:ref"
        if self.kind == "figure":
            return "numref"
        return "ref"

    def link(self, text: str | None = None) -> str:
        """``{prf:ref}`label``` (or ``{numref}``/``{ref}``), optionally with ``text``."""
        target = f"{text} <{self.name}>" if text else self.name
        return f"{{{self.role}}}`{target}`"


_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<directive>[a-z:-]+)\}\s*(?P<title>.*)$")
_TARGET = re.compile(r"^\((?P<name>[A-Za-z0-9_.:-]+)\)=\s*$")
_OPTION = re.compile(r"^:(?P<key>label|name):\s*(?P<value>\S+)\s*$")
_CHECK = re.compile(r"""\.check\(\s*(?:result_id\s*=\s*)?["']([A-Za-z0-9_-]+)["']""")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _read_nb(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def book_labels(path: Path | str) -> list[Label]:
    """Labels of ``prf`` blocks, figures (``:name:``) and ``(target)=`` in a notebook."""
    labels = []
    for i, cell in enumerate(_read_nb(Path(path))["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        directive, title = None, ""
        for line in _source(cell).splitlines():
            s = line.strip()
            m = _FENCE.match(s)
            if m:
                directive, title = m.group("directive"), m.group("title").strip()
                continue
            m = _TARGET.match(s)
            if m:
                labels.append(Label(m.group("name"), "target", i))
                continue
            m = _OPTION.match(s)
            if m and directive:
                if directive.startswith("prf:") and m.group("key") == "label":
                    labels.append(Label(m.group("value"), directive, i, title))
                elif m.group("key") == "name" and "figure" in directive:
                    labels.append(Label(m.group("value"), "figure", i, title))
                continue
            if s and not s.startswith(":"):
                directive = None if s.startswith(("```", ":::")) else directive
    return labels


def check_cells(path: Path | str) -> dict[str, list[int]]:
    """``ledger id -> indices of the code cells`` that call ``ch.check("<id>", ...)``.

    Only literal ids are seen; ids held in variables are found at run time in the
    chapter's JSON record instead (:func:`recorded_checks`).
    """
    out: dict[str, list[int]] = {}
    for i, cell in enumerate(_read_nb(Path(path))["cells"]):
        if cell.get("cell_type") == "code":
            for rid in _CHECK.findall(_source(cell)):
                out.setdefault(rid, []).append(i)
    return out


def check_ids_in_notebooks(book_dir: Path | str = BOOK_DIR) -> dict[str, set[str]]:
    """``chapter -> ids`` of every literal ``ch.check("<id>", ...)`` call."""
    return {ch: set(check_cells(p)) for ch, p in chapter_notebooks(book_dir).items()}
