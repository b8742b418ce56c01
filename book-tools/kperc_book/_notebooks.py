"""Notebook plumbing shared by :mod:`kperc_book.reproduce` and :mod:`kperc_book.report`.

* :func:`toc_entries` / :func:`toc_notebooks`: the pages of ``_toc.yml`` in book order.
* :func:`resolve`: turn ``ch04``, ``ch04_smoothed_perceptron``,
  ``ch04_smoothed_perceptron.ipynb`` or ``book/ch04_....ipynb`` into a notebook path.
* :func:`parameters`: names and default values of the cell tagged ``parameters``.
* :func:`presets`: the presets stored in ``metadata.kperc.presets``.
* :func:`normalise` / :func:`dumps`: strip the run-to-run noise papermill and nbclient
  add, so that re-executing a notebook twice gives byte-identical files.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from . import paths
from .paths import ROOT

INJECTED_TAG = "injected-parameters"
PARAMETERS_TAG = "parameters"
INJECTED_ID = "injected-parameters"


# --------------------------------------------------------------------------- toc
def toc_entries(root: Path | str = ROOT) -> list[str]:
    """The ``file:`` entries of ``_toc.yml`` (root first), without suffix, in order."""
    import yaml

    toc = yaml.safe_load(paths.toc_path(root).read_text())
    out = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                out.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk({k: v for k, v in toc.items() if k != "root"})
    return out


def toc_pages(root: Path | str = ROOT) -> list[tuple[str, Path | None]]:
    """``(entry, path)`` for every toc entry; ``path`` is None when no file exists yet."""
    root = Path(root)
    pages = []
    for entry in toc_entries(root):
        found = None
        for suffix in (".ipynb", ".md"):
            p = root / f"{entry}{suffix}"
            if p.exists():
                found = p
                break
        pages.append((entry, found))
    return pages


def toc_notebooks(root: Path | str = ROOT) -> list[Path]:
    """Existing ``.ipynb`` pages of the table of contents, in book order."""
    return [p for _, p in toc_pages(root) if p is not None and p.suffix == ".ipynb"]


def resolve(name: str, notebooks: list[Path]) -> Path:
    """Find the notebook meant by ``name`` among ``notebooks``.

    Accepts a stem (``ch04_smoothed_perceptron``), a unique stem prefix followed by
    ``_`` (``ch04``), a file name, or a path.

    Raises
    ------
    ValueError
        Unknown or ambiguous name; the message lists the known chapters.
    """
    raw = name
    name = Path(name).name
    if name.endswith(".ipynb"):
        name = name[: -len(".ipynb")]
    exact = [p for p in notebooks if p.stem == name]
    if exact:
        return exact[0]
    prefix = [p for p in notebooks if p.stem.startswith(name + "_")]
    if len(prefix) == 1:
        return prefix[0]
    known = ", ".join(p.stem for p in notebooks) or "(no notebook exists yet)"
    if len(prefix) > 1:
        raise ValueError(f"chapter {raw!r} is ambiguous: {', '.join(p.stem for p in prefix)}")
    raise ValueError(f"unknown chapter {raw!r}; known chapters: {known}")


def chapter_key(path: Path) -> str:
    """``ch04`` for ``ch04_smoothed_perceptron.ipynb``; the stem for other pages."""
    stem = Path(path).stem
    m = re.match(r"^(ch\d+)(_|$)", stem)
    return m.group(1) if m else stem


# --------------------------------------------------------------------- parameters
def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []) or [])


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def parameters_cell(nb) -> int | None:
    """Index of the cell tagged ``parameters`` (None if there is none)."""
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") == "code" and PARAMETERS_TAG in _tags(cell):
            return i
    return None


def parameters(nb) -> dict[str, Any]:
    """Names and default values assigned in the cell tagged ``parameters``.

    Values that are Python literals are returned as such; anything else (an
    expression) as its source text. A tuple assignment (``a, b = 1, 2``) defines each
    of its names.
    """
    idx = parameters_cell(nb)
    if idx is None:
        return {}
    tree = ast.parse(_source(nb["cells"][idx]))
    out: dict[str, Any] = {}
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            pairs = [(t, value)]
            if (
                isinstance(t, ast.Tuple)
                and isinstance(value, ast.Tuple)
                and len(t.elts) == len(value.elts)
            ):  # ``r_max, n_r = 100.0, 9`` defines two parameters
                pairs = list(zip(t.elts, value.elts, strict=True))
            for target, val in pairs:
                if isinstance(target, ast.Name):
                    try:
                        out[target.id] = ast.literal_eval(val)
                    except ValueError:
                        out[target.id] = ast.unparse(val)
    return out


def presets(nb) -> dict[str, dict[str, Any]]:
    """Named parameter presets from ``metadata.kperc.presets`` (``default`` is implicit)."""
    meta = nb.get("metadata", {}).get("kperc", {}) or {}
    found = dict(meta.get("presets", {}) or {})
    found.setdefault("default", {})
    return found


def parse_value(text: str, default: Any = None) -> Any:
    """A command-line value: a Python literal if it parses as one, else the string.

    An integer given for a parameter whose default is a float becomes a float.
    """
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    return value


def strip_injected(nb) -> None:
    """Remove cells papermill injected by an earlier run with overrides (in place)."""
    nb["cells"] = [c for c in nb["cells"] if INJECTED_TAG not in _tags(c)]


# ------------------------------------------------------------------ normalisation
def machine_paths(nb_dir: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """Absolute paths of this machine and their neutral replacements, longest first."""
    pairs = {
        str(Path(nb_dir).resolve()): ".",
        str(Path(root).resolve()): "<repo>",
        str(Path(tempfile.gettempdir()).resolve()): "<tmp>",
        str(Path.home().resolve()): "~",
    }
    for p in list(pairs):
        # the same folders as seen through symlinks
        for alias in {os.path.realpath(p), os.path.abspath(p)}:
            pairs.setdefault(alias, pairs[p])
    return sorted(
        ((k, v) for k, v in pairs.items() if k not in ("", "/")), key=lambda kv: -len(kv[0])
    )


#: Output MIME types whose values are base64 data, not text: a machine path cannot be in
#: them, and a chance match of the alphabet (the temporary folder's name is four base64
#: characters) must not be "replaced", which would corrupt the image.
BINARY_MIME_TYPES = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "application/papermill.record/image/png",
)


def _scrub(obj, pairs):
    if isinstance(obj, str):
        for old, new in pairs:
            if old in obj:
                obj = obj.replace(old, new)
        return obj
    if isinstance(obj, list):
        return [_scrub(x, pairs) for x in obj]
    if isinstance(obj, dict):
        return {k: v if k in BINARY_MIME_TYPES else _scrub(v, pairs) for k, v in obj.items()}
    return obj


def normalise(nb, *, nb_dir: Path, root: Path = ROOT):
    """Remove run-to-run noise from an executed notebook (in place; also returned).

    * ``metadata.papermill`` (timestamps, absolute input/output paths);
    * per-cell ``metadata.papermill`` and ``metadata.execution`` (timestamps);
    * empty ``tags`` lists;
    * random cell ids: the injected-parameters cell gets a fixed id, cells without an
      id get one derived from their position;
    * absolute paths of this machine in outputs, replaced by neutral names;
    * consecutive ``stream`` outputs of the same stream merged into one (how the
      kernel's output buffer happened to be flushed is timing, not content).
    """
    from nbformat import from_dict

    nb["metadata"].pop("papermill", None)
    pairs = machine_paths(nb_dir, root)
    seen = set()
    for i, cell in enumerate(nb["cells"]):
        meta = cell.setdefault("metadata", {})
        meta.pop("papermill", None)
        meta.pop("execution", None)
        if "tags" in meta and not meta["tags"]:
            del meta["tags"]
        if INJECTED_TAG in _tags(cell):
            cell["id"] = INJECTED_ID
        elif not cell.get("id") or cell["id"] in seen:
            cell["id"] = hashlib.sha256(f"kperc-cell-{i}".encode()).hexdigest()[:8]
        seen.add(cell["id"])
        if cell.get("cell_type") == "code":
            outs = _merge_streams(_scrub(cell.get("outputs", []), pairs))
            cell["outputs"] = [from_dict(o) for o in outs]
    return nb


def _merge_streams(outputs: list) -> list:
    """Join runs of ``stream`` outputs with the same name (stdout/stderr) into one."""
    merged: list = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (
            out.get("output_type") == "stream"
            and prev is not None
            and prev.get("output_type") == "stream"
            and prev.get("name") == out.get("name")
        ):
            text = prev["text"] if isinstance(prev["text"], str) else "".join(prev["text"])
            more = out["text"] if isinstance(out["text"], str) else "".join(out["text"])
            merged[-1] = {**prev, "text": text + more}
        else:
            merged.append(dict(out))
    return merged


def dumps(nb) -> str:
    """Serialise like Jupyter does (indent 1, sorted keys), with a final newline."""
    import nbformat

    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def parse_code(source: str) -> ast.Module | None:
    """The syntax tree of a code cell, IPython magics (``%``, ``!``) left out; None if
    the cell is not valid Python."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def savefig_calls(source: str) -> list[str]:
    """Figure-name patterns of ``ch.savefig(fig, "name")`` / ``ch.figure(fig, "name")`` calls.

    A literal name gives itself (regex-escaped); an f-string gives a regex with ``.+``
    for each interpolated part. Names held in variables cannot be traced and are
    skipped.
    """
    tree = parse_code(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("savefig", "figure")
        ):
            continue
        arg = node.args[1] if len(node.args) >= 2 else None
        if arg is None:
            for kw in node.keywords:
                if kw.arg == "name":
                    arg = kw.value
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append(re.escape(arg.value))
        elif isinstance(arg, ast.JoinedStr):
            parts = []
            for v in arg.values:
                if isinstance(v, ast.Constant):
                    parts.append(re.escape(str(v.value)))
                else:
                    parts.append(".+")
            found.append("".join(parts))
    return found
