"""The reproducibility page: ``python -m kperc_book.report [--check]``.

``book/reproducibility.md`` is generated (never edited by hand) from committed files
only, none of which changes when nothing changed, so rebuilding the page after an
unchanged run leaves git clean on any machine:

* the notebooks: the parameters each chapter ran with (its ``parameters`` cell and the
  values a run with ``-p``/``--preset`` injected), hence the command that repeats it;
* ``requirements/constraints.txt``: the package versions the outputs were made with;
* ``book/_generated/<chapter>.json``: each figure's sha256 and the datasets it read
  (written by :class:`kperc_book.chapter.Chapter`), matched with the notebook cell whose source
  calls ``ch.savefig(fig, "name")``;
* ``data/manifest.json``: the stored datasets (see :mod:`kperc_book.data`).

Runtimes, dates, the BLAS kernel and thread count differ from run to run and machine to
machine; they are logged in ``_build/reproduce/runs.json`` (this machine's runs, outside
git), never here or in a notebook's outputs. ``make`` regenerates the page before every
build; ``--check`` exits 1 when the committed page is stale.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from . import _notebooks as nbu
from . import paths
from ._markdown import table_lines, text_cell

__all__ = [
    "chapter_rows",
    "figure_rows",
    "dataset_rows",
    "pinned_versions",
    "VERSIONED",
    "render",
    "write_page",
    "main",
]

#: Distributions whose versions are recorded with every run (and pinned on the page).
VERSIONED = (
    "kperc",
    "numpy",
    "scipy",
    "scikit-learn",
    "joblib",
    "matplotlib",
    "papermill",
    "nbclient",
    "ipykernel",
    "myst-nb",
    "jupyter-book",
)
#: The page, relative to the root (how messages name it).
PAGE = paths.reproducibility_page(".")


def _read_json(path: Path, default):
    """The JSON record at ``path`` (``default`` if absent); a one-line error if corrupt."""
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{path.parent.name}/{path.name} is not valid JSON (truncated? {err.msg} at line "
            f"{err.lineno}); restore it with `git checkout -- {path.name}` in "
            f"{path.parent.name}/ or regenerate it"
        ) from None


def _code(text: Any) -> str:
    s = text_cell(text)
    return f"``{s}``" if "`" in s else f"`{s}`"


def _fmt_value(v: Any) -> str:
    return repr(v) if isinstance(v, str) else json.dumps(v, default=str)


def _injected(nb) -> dict[str, Any]:
    """The values a run with ``-p``/``--preset`` injected into the notebook (papermill's
    cell tagged ``injected-parameters``), read like the ``parameters`` cell."""
    for cell in nb.cells:
        if cell.cell_type == "code" and nbu.INJECTED_TAG in cell.metadata.get("tags", []):
            return nbu.parameters({"cells": [{**cell, "metadata": {"tags": ["parameters"]}}]})
    return {}


def chapter_rows(root: Path | str = paths.ROOT) -> list[dict[str, Any]]:
    """One row per notebook of the table of contents, with what its outputs came from.

    Returns
    -------
    list of dict
        Keys ``stem``, ``exists`` and ``run`` (None for a page not written yet, else a
        dict with ``parameters``, ``preset`` and ``command``, read from the notebook).
    """
    import nbformat

    root = Path(root)
    rows = []
    for entry, path in nbu.toc_pages(root):
        stem = Path(entry).name
        if (path is not None and path.suffix != ".ipynb") or entry == PAGE.with_suffix(
            ""
        ).as_posix():
            continue  # Markdown pages are not executed (nor is this page)
        run = None
        if path is not None:
            nb = nbformat.read(path, as_version=4)
            injected = _injected(nb)
            named = [k for k, v in nbu.presets(nb).items() if v and v == injected]
            preset = named[0] if named else "default"
            command = ["python", "-m", "kperc_book.reproduce", nbu.chapter_key(path)]
            if named:
                command += ["--preset", preset]
            else:
                for k, v in injected.items():
                    command += ["-p", k, v if isinstance(v, str) else repr(v)]
            run = {
                "parameters": {**nbu.parameters(nb), **injected},
                "preset": preset if named or not injected else "default, with -p",
                "command": shlex.join(command),
            }
        rows.append({"stem": stem, "exists": path is not None, "run": run})
    return rows


def pinned_versions(root: Path | str = paths.ROOT) -> dict[str, str]:
    """The versions ``requirements/constraints.txt`` pins for the packages a run logs
    (:data:`VERSIONED`), and the checkout's ``kperc``."""
    pins = {}
    path = paths.constraints_path(root)
    for line in path.read_text().splitlines() if path.exists() else []:
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^ ;]+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    out = {name: pins[name] for name in VERSIONED if name in pins}
    import kperc

    out["kperc"] = kperc.__version__
    return dict(sorted(out.items()))


def _figure_cells(nb_path: Path) -> list[tuple[str, int, str]]:
    """(name regex, code-cell number from 1, cell id) of every traceable savefig call."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    out = []
    k = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        k += 1
        for pattern in nbu.savefig_calls(nbu._source(cell)):
            out.append((pattern, k, cell.get("id", "")))
    return out


_GLUE_FIGURE = re.compile(r"```\{glue:figure\}\s+(\S+)\s*\n((?::[^\n]*\n)*)")


def _figure_labels(nb_path: Path) -> dict[str, str]:
    """Glue key -> ``:name:`` label of every ``{glue:figure}`` in the notebook's markdown."""
    import nbformat

    nb = nbformat.read(nb_path, as_version=4)
    labels = {}
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for m in _GLUE_FIGURE.finditer(nbu._source(cell)):
            name = re.search(r"^:name:\s*(\S+)", m.group(2), re.M)
            if name:
                labels[m.group(1)] = name.group(1)
    return labels


def _label_for(labels: dict[str, str], stem: str, name: str) -> str | None:
    """The label of the figure saved as ``stem`` (glued under its stem or ``...-name``)."""
    if stem in labels:
        return labels[stem]
    hits = [lab for key, lab in labels.items() if key.endswith("-" + name)]
    return hits[0] if len(hits) == 1 else None


def figure_rows(root: Path | str = paths.ROOT) -> list[dict[str, Any]]:
    """One row per figure recorded by a chapter, with the cell that saved it.

    Returns
    -------
    list of dict
        Keys ``figure`` (file under ``book/``), ``chapter`` (record key), ``notebook``
        (stem or None), ``cells`` (list of ``(code-cell number, id)``), ``sha256``
        (recorded), ``file_matches`` (the PNG on disk has that hash), ``data``
        (dataset name -> sha256) and ``label`` (the figure's cross-reference label in
        the notebook, or None).
    """
    root = Path(root)
    gen = paths.generated_dir(root)
    notebooks = {nbu.chapter_key(p): p for p in nbu.toc_notebooks(root)}
    rows = []
    for rec_path in sorted(gen.glob("*.json")) if gen.is_dir() else []:
        if rec_path.name == "runs.json":
            continue
        rec = json.loads(rec_path.read_text())
        key = rec.get("chapter", rec_path.stem)
        nb_path = notebooks.get(key)
        cells = _figure_cells(nb_path) if nb_path else []
        labels = _figure_labels(nb_path) if nb_path else {}
        for fname in sorted(rec.get("figures", {})):
            fig = rec["figures"][fname]
            name = fname[len(key) + 1 : -len(".png")] if fname.startswith(key + "-") else fname
            hits = [(k, cid) for pattern, k, cid in cells if re.fullmatch(pattern, name)]
            png = paths.book_dir(root) / fig.get("file", paths.figure_file(fname))
            matches = png.exists() and hashlib.sha256(png.read_bytes()).hexdigest() == fig["sha256"]
            rows.append(
                {
                    "figure": fig.get("file", paths.figure_file(fname)),
                    "chapter": key,
                    "notebook": nb_path.stem if nb_path else None,
                    "cells": sorted(set(hits)),
                    "sha256": fig["sha256"],
                    "file_matches": bool(matches),
                    "data": dict(fig.get("data", {})),
                    "label": _label_for(labels, Path(fname).stem, name),
                }
            )
    return rows


def dataset_rows(root: Path | str = paths.ROOT) -> list[dict[str, Any]]:
    """The entries of ``data/manifest.json`` (name added), sorted by name."""
    manifest = _read_json(paths.manifest_path(root), {}).get("datasets", {})
    return [{"name": name, **manifest[name]} for name in sorted(manifest)]


def render(root: Path | str = paths.ROOT) -> str:
    """The Markdown text of the reproducibility page."""
    root = Path(root)
    chapters = chapter_rows(root)
    in_book = {r["stem"] for r in chapters if r["exists"]}

    def doc(stem):
        return f"{{doc}}`{stem}`" if stem in in_book else _code(stem)

    lines = [
        "# Reproducibility",
        "",
        "<!-- Generated by `python -m kperc_book.report` from the notebooks,",
        "     requirements/constraints.txt, book/_generated/*.json and data/manifest.json:",
        "     do not edit; `make` regenerates it. -->",
        "",
        "Everything in this book is regenerated from the repository by two commands, and",
        "this page records what the committed outputs came from: the parameters and the",
        "command of each chapter, the package versions, each figure with the cell that",
        "saved it, and the stored datasets. It is generated (by `python -m kperc_book.report`,",
        "run by `make` before each build and by `python -m kperc_book.reproduce` after each",
        "chapter) from committed files only, so it changes only when they do. Runtimes, the",
        "BLAS library, its kernel and thread count differ from machine to machine; each run",
        "logs them in `_build/reproduce/runs.json` on the machine that ran it, never in a",
        "notebook's outputs (nbval compares those, and re-execution must give",
        "byte-identical notebooks).",
        "",
        "## Commands",
        "",
        "```bash",
        "make                                        # verify data, re-run changed chapters, build",
        "make test                                   # every check (see README.md)",
        "python -m kperc_book.data --check                # verify data/ (never rewrites it)",
        "python -m kperc_book.reproduce                   # re-execute every chapter",
        "python -m kperc_book.reproduce ch04              # one chapter, default parameters",
        "python -m kperc_book.reproduce ch04 -p NAME VALUE  # one chapter, a parameter overridden",
        "python -m kperc_book.reproduce --preset full     # every chapter with its full preset",
        "python -m kperc_book.reproduce ch04 --preset full",
        "make benchopt                                    # the benchmarks page's benchopt run",
        "```",
        "",
        "(running-a-chapter)=",
        "## Running a chapter yourself",
        "",
        "A chapter downloaded on its own runs on Colab or in any Jupyter with Python 3.10 or",
        "newer: its first code cell installs the `kperc` library and the book's tools",
        "(`kperc_book`, which ship the stored datasets and the records other chapters quote)",
        "from the repository, and the chapter writes its records (checks, glued numbers,",
        "figures) to `kperc-book-records/` beside the notebook, or to the folder named by the",
        "environment variable `KPERC_BOOK_RECORDS`. In a clone of the repository that cell",
        "does nothing. From the root of a clone, in a virtual environment with Python 3.10 or",
        "newer, one line installs the `kperc` library and the book's tools with every",
        "dependency:",
        "",
        "```bash",
        'python -m pip install -c requirements/constraints.txt -e . -e "./book-tools[test]"',
        "```",
        "",
        "Then JupyterLab (`python -m pip install jupyterlab` if the environment has none,",
        'then `jupyter lab`) opens the chapters (`book/chNN_*.ipynb`), and "Run All"',
        "re-executes one; `papermill` and `python -m kperc_book.reproduce` run them from the",
        "command line. The same environment runs on Binder: the repository's",
        "`environment.yml` and `postBuild` (which runs the line above) form a repo2docker",
        "environment, and the rocket button at the top of each chapter opens the chapter",
        "there, in a browser, when the repository is public at the address this book links to.",
        "",
        "## Chapters",
        "",
    ]
    if chapters:
        lines += [
            "One entry per notebook: the preset, the parameters it ran with and the command "
            "that runs it again.",
            "",
        ]
        for r in chapters:
            run = r["run"]
            if not run:
                lines.append(f"* {doc(r['stem'])}: not written yet")
                continue
            params = ", ".join(f"{k}={_fmt_value(v)}" for k, v in run["parameters"].items())
            lines += [
                f"* {doc(r['stem'])}: preset {text_cell(run['preset'])}",
                f"  - parameters: {_code(params) if params else '(none)'}",
                f"  - command: {_code(run['command'])}",
            ]
        lines.append("")
    pins = pinned_versions(root)
    if pins:
        lines += [
            "### Package versions",
            "",
            "The versions `requirements/constraints.txt` pins, which the README's install "
            "line installs and the committed outputs were made with.",
            "",
        ]
        lines += table_lines(
            ["Package", "Version"], [[text_cell(k), _code(v)] for k, v in pins.items()]
        )
        lines.append("")
    lines += [
        "## Figures",
        "",
        "Each figure's name links to it in its chapter, followed by the PNG file, the "
        "notebook cell that saved it (code cells counted from 1, with the cell id), the "
        "sha256 recorded when the chapter last ran, and the stored datasets it read with "
        "their sha256.",
        "",
    ]
    figs = figure_rows(root)
    if figs:
        current = None
        for f in figs:
            nb = doc(f["notebook"]) if f["notebook"] else _code(f["chapter"])
            if nb != current:
                if current is not None:
                    lines.append("")
                lines += [f"**{nb}**", ""]
                current = nb
            stem = Path(f["figure"]).stem
            name = f"{{ref}}`{stem} <{f['label']}>`" if f["label"] else _code(stem)
            png = f"{{download}}`PNG <{f['figure']}>`"
            cells = (
                ", ".join(f"code cell {k} (id {_code(cid)})" for k, cid in f["cells"])
                or "not traceable (name not a literal)"
            )
            sha = _code(f["sha256"]) + (
                "" if f["file_matches"] else " (the PNG on disk differs: rerun the chapter)"
            )
            data = "; ".join(f"{text_cell(n)}: {_code(h)}" for n, h in sorted(f["data"].items()))
            lines.append(
                f"* {name} ({png}), saved by {cells}; sha256 {sha}; data read: "
                f"{data or 'generated instances only'}"
            )
    else:
        lines.append("No chapter has saved a figure yet.")
    lines += [
        "",
        "## Datasets",
        "",
        "The stored datasets of `data/`. They are canonical: `python -m kperc_book.data "
        "--check` verifies each file against its sha256 below and regenerates it to show "
        "that the generator reproduces it (labels exactly, features within a stated "
        "rounding tolerance); `--regenerate NAME --write` replaces one on purpose.",
        "",
    ]
    ds = dataset_rows(root)
    if ds:
        for d in ds:
            params = json.dumps(d.get("params", {}), sort_keys=True)
            shape = " x ".join(str(n) for n in d.get("shape", {}).get("X", []))
            lines += [
                f"* {_code(d['name'])}: {_code(d.get('generator', ''))} with {_code(params)}, "
                f"X of shape {shape or '?'}; {text_cell(d.get('provenance', ''))}",
                f"  - sha256 {_code(d.get('sha256', ''))}",
            ]
    else:
        lines.append(
            "No dataset manifest found: run `python -m kperc_book.data --regenerate --write`."
        )
    return "\n".join(lines).rstrip() + "\n"


def write_page(root: Path | str = paths.ROOT) -> Path:
    """Write ``book/reproducibility.md`` (only if its text changed); return its path."""
    path = paths.reproducibility_page(root)
    text = render(root)
    if not path.exists() or path.read_text() != text:
        from ._fsio import atomic_write

        atomic_write(path, text)
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m kperc_book.report", description="Generate book/reproducibility.md."
    )
    ap.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if the page differs from what the records give; write nothing",
    )
    args = ap.parse_args(argv)
    paths.require_checkout()
    path = paths.reproducibility_page()
    try:
        rendered = render()
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.check:
        current = path.read_text() if path.exists() else ""
        if current != rendered:
            print(f"{PAGE} is stale: run `python -m kperc_book.report`", file=sys.stderr)
            return 1
        print(f"{PAGE} is up to date")
        return 0
    try:
        write_page()
    except OSError as err:  # disk full, read-only folder: the old page stays whole
        print(
            f"error: cannot write {PAGE}: {err.strerror or err}; the page is unchanged",
            file=sys.stderr,
        )
        return 2
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
