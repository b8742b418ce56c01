"""What the chapter notebooks say about the ledger, read without running them.

:func:`chapter_notebooks` finds the chapters; :func:`book_labels` reads the MyST
markdown cells for the labels of ``prf`` blocks, figures and ``(target)=`` lines;
:func:`check_cells` finds the code cells that call ``ch.check("<id>", ...)``.
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from ..paths import BOOK_DIR

__all__ = [
    "Label",
    "chapter_notebooks",
    "book_labels",
    "myst_labels",
    "check_cells",
    "check_ids_in_notebooks",
]


def chapter_notebooks(book_dir: Path | str = BOOK_DIR) -> dict[str, Path]:
    """``chapter key -> notebook`` for every ``book/chNN_*.ipynb``."""
    out: dict[str, Path] = {}
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


_DIRECTIVE = re.compile(r"^\{(?P<directive>[a-z:-]+)\}\s*(?P<title>.*)$")
_OPTION = re.compile(r"^:(?P<key>[A-Za-z0-9_-]+):(?P<value>.*)$")
_CHECK = re.compile(r"""\.check\(\s*(?:result_id\s*=\s*)?["']([A-Za-z0-9_-]+)["']""")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _read_nb(path: Path) -> dict:
    return json.loads(Path(path).read_text())


@functools.cache
def _myst_parser() -> MarkdownIt:
    """The block syntax of the book's MyST: CommonMark, ``:::`` fences, ``(target)=``."""
    return MarkdownIt("commonmark").use(colon_fence_plugin).use(myst_block_plugin)


def _directive_options(content: str) -> tuple[dict[str, str], str]:
    """Split a directive's content into its options and its body, as MyST does.

    The options open the content: either ``:key: value`` lines, or a YAML block between
    ``---`` lines (a block that is not a YAML mapping gives no options, as MyST warns and
    ignores it).
    """
    lines = content.splitlines()
    opts: dict[str, str] = {}
    if lines and lines[0].startswith("---"):
        end = next((k for k in range(1, len(lines)) if lines[k].startswith("---")), len(lines))
        try:
            block = yaml.safe_load(textwrap.dedent("\n".join(lines[1:end])))
        except yaml.YAMLError:
            block = None
        if isinstance(block, dict):
            opts = {str(k): str(v) for k, v in block.items()}
        return opts, "\n".join(lines[end + 1 :])
    k = 0
    while k < len(lines) and lines[k].lstrip().startswith(":"):
        m = _OPTION.match(lines[k].strip())
        if m:
            opts[m.group("key")] = m.group("value").strip()
        k += 1
    return opts, "\n".join(lines[k:])


def myst_labels(text: str, cell: int = 0) -> list[Label]:
    """Labels defined in MyST markdown ``text`` (a notebook's markdown cell ``cell``).

    The text is parsed with markdown-it and the MyST block plugins, the parser MyST
    itself builds on: ``(name)=`` targets, the ``:label:`` of ``prf`` directives and the
    ``:name:`` of figure directives, in the order they appear, including directives
    nested in other directives (their content is parsed in turn). Code blocks and
    directives without a ``{name}`` define nothing.
    """
    labels = []
    for tok in _myst_parser().parse(text):
        if tok.type == "myst_target":
            labels.append(Label(tok.content, "target", cell))
        elif tok.type in ("fence", "colon_fence"):
            m = _DIRECTIVE.match(tok.info.strip())
            if not m:
                continue
            directive, title = m.group("directive"), m.group("title").strip()
            opts, body = _directive_options(tok.content)
            if directive.startswith("prf:") and "label" in opts:
                labels.append(Label(opts["label"], directive, cell, title))
            elif "figure" in directive and "name" in opts:
                labels.append(Label(opts["name"], "figure", cell, title))
            labels += myst_labels(body, cell)
    return labels


def book_labels(path: Path | str) -> list[Label]:
    """Labels of ``prf`` blocks, figures (``:name:``) and ``(target)=`` in a notebook.

    Each markdown cell is read by :func:`myst_labels`; a label records its cell's index.
    """
    labels = []
    for i, cell in enumerate(_read_nb(Path(path))["cells"]):
        if cell.get("cell_type") == "markdown":
            labels += myst_labels(_source(cell), i)
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
