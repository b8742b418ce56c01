"""Re-execute the book's notebooks: ``python -m kperc_book.reproduce [chapters...]``.

Examples::

    python -m kperc_book.reproduce                      # every notebook of _toc.yml, in order
    python -m kperc_book.reproduce ch04 -p n_seeds 3    # one chapter, one parameter overridden
    python -m kperc_book.reproduce ch04 ch07 --preset full

Each notebook is executed by papermill in its own folder, written to a temporary file
under ``_build/reproduce/`` (never under ``book/``), normalised (:func:`normalise`) and
only then moved into place atomically. A failing chapter stops the run, names the
notebook and the failing cell, restores whatever the chapter had rewritten under
``book/_generated`` and ``book/figures``, and leaves the committed notebook untouched;
so does Ctrl-C. Each successful run records the chapter's parameters, runtime and
package versions in ``book/_generated/runs.json`` and refreshes the reproducibility
page (:mod:`kperc_book.report`).

Without ``-p``/``--preset`` a chapter runs with the defaults of its ``parameters``
cell: a cell injected by an earlier run with overrides is removed first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from . import _notebooks as nbu
from . import paths as _paths

__all__ = ["ChapterFailed", "run_notebook", "reproduce", "main", "RUNS_PATH", "VERSIONED"]

RUNS_PATH = _paths.GENERATED_DIR / "runs.json"
BUILD_DIR = _paths.BUILD_DIR / "reproduce"
#: Distributions whose versions are recorded with every run.
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


class ChapterFailed(RuntimeError):
    """A notebook raised while executing; the message names the notebook and the cell."""


@dataclass
class RunResult:
    notebook: Path
    parameters: dict[str, Any]
    overrides: dict[str, Any]
    preset: str
    runtime_s: float


def versions() -> dict[str, str]:
    """Python, platform and the versions of :data:`VERSIONED` (``missing`` if absent)."""
    out = {
        "python": platform.python_version(),
        "platform": f"{platform.system()}-{platform.machine()}",
    }
    for dist in VERSIONED:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "missing"
    return out


def _effective(
    nb, preset: str, overrides: dict[str, str], path: Path
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(all parameters, the values to inject, the parsed ``-p`` overrides)."""
    defaults = nbu.parameters(nb)
    available = nbu.presets(nb)
    if preset not in available:
        raise ValueError(
            f"{path.name}: unknown preset {preset!r}; this notebook has "
            f"{', '.join(sorted(available))}"
        )
    inject: dict[str, Any] = {}
    cli: dict[str, Any] = {}
    for source, values in ((f"preset {preset!r}", available[preset]), ("-p", overrides)):
        for name, value in values.items():
            if name not in defaults:
                known = ", ".join(defaults) or "(no cell tagged 'parameters')"
                raise ValueError(
                    f"{path.name}: unknown parameter {name!r} (from {source}); "
                    f"its parameters cell defines: {known}"
                )
            if source == "-p":
                value = nbu.parse_value(value, defaults[name])
                cli[name] = value
            inject[name] = value
    return {**defaults, **inject}, inject, cli


def _owned(p: Path, key: str | None) -> bool:
    """Whether ``p`` is one of chapter ``key``'s records (``key.json``, ``key-*.png``)."""
    return p.is_file() and (key is None or p.name.startswith((f"{key}.", f"{key}-")))


def _snapshot(dirs: list[Path], key: str | None = None) -> dict[Path, bytes | None]:
    snap: dict[Path, bytes | None] = {}
    for d in dirs:
        if d.is_dir():
            for p in d.iterdir():
                if _owned(p, key):
                    snap[p] = p.read_bytes()
    return snap


def _restore(snap: dict[Path, bytes | None], dirs: list[Path], key: str | None = None) -> None:
    """Undo what a failed chapter wrote in ``dirs`` (its own files added or changed).

    Only files named after the chapter key are touched, so that a failing chapter
    never reverts records that another chapter is writing at the same time.
    """
    for d in dirs:
        if not d.is_dir():
            continue
        for p in d.iterdir():
            if _owned(p, key) and p not in snap:
                p.unlink()
    for p, blob in snap.items():
        if not p.exists() or p.read_bytes() != blob:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(blob)


def _failed_cell(out_path: Path, err: Exception, source_nb) -> str:
    """Describe the cell that raised, numbered as in the committed notebook."""
    import nbformat

    where = "a cell"
    try:
        out = nbformat.read(out_path, as_version=4)
        bad = next(
            c for c in out.cells if c.get("metadata", {}).get("papermill", {}).get("exception")
        )
        first = nbu._source(bad).strip().splitlines()
        first = first[0] if first else ""
        if nbu.INJECTED_TAG in bad.get("metadata", {}).get("tags", []):
            where = "the injected parameters cell"
        else:
            code = [c for c in source_nb.cells if c.cell_type == "code"]
            k = next(i for i, c in enumerate(code, 1) if c.get("id") == bad.get("id"))
            where = f"code cell {k} (id {bad.get('id')})"
        where += f" {first!r}"
    except Exception:  # noqa: BLE001 - the description is best effort, the error is not
        pass
    ename = getattr(err, "ename", type(err).__name__)
    evalue = getattr(err, "evalue", str(err))
    return f"{where} raised {ename}: {evalue}"


def run_notebook(
    path: Path | str,
    *,
    overrides: dict[str, str] | None = None,
    preset: str = "default",
    build_dir: Path | str = BUILD_DIR,
    repo_dir: Path | str = nbu.REPO_DIR,
    restore_dirs: list[Path] | None = None,
    kernel_name: str = "python3",
    progress: bool = False,
) -> RunResult:
    """Execute one notebook with papermill and replace it atomically on success.

    Parameters
    ----------
    path : path
        The notebook; it runs with its own folder as working directory.
    overrides : dict of str to str, optional
        Command-line values (parsed as Python literals when possible).
    preset : str
        A preset of ``metadata.kperc.presets``; ``default`` means the parameters cell.
    build_dir : path
        Where the temporary executed notebook is written (never the notebook's folder).
    repo_dir : path
        Repository root, replaced by ``<repo>`` if it appears in outputs.
    restore_dirs : list of path, optional
        Folders whose files are restored if the run fails: the chapter's own generated
        records and figures (files named ``<key>.*`` or ``<key>-*``).

    Raises
    ------
    ValueError
        Unknown preset or parameter name (nothing is executed).
    ChapterFailed
        A cell raised; the notebook is left untouched.
    """
    import nbformat
    import papermill as pm

    path = Path(path).resolve()
    build_dir = Path(build_dir)
    nb = nbformat.read(path, as_version=4)
    params, inject, cli = _effective(nb, preset, dict(overrides or {}), path)
    nbu.strip_injected(nb)
    build_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{path.stem}.{os.getpid()}"
    src_tmp = build_dir / f"{stem}.in.ipynb"
    out_tmp = build_dir / f"{stem}.out.ipynb"
    final_tmp = build_dir / f"{stem}.final.ipynb"
    nbformat.write(nb, src_tmp)
    restore_dirs = list(restore_dirs or [])
    key = nbu.chapter_key(path)
    snap = _snapshot(restore_dirs, key)
    t0 = time.perf_counter()
    ok = False
    try:
        try:
            pm.execute_notebook(
                str(src_tmp),
                str(out_tmp),
                parameters=inject or None,
                cwd=str(path.parent),
                kernel_name=kernel_name,
                progress_bar=progress,
                log_output=False,
                request_save_on_cell_execute=False,
            )
        except pm.PapermillExecutionError as err:
            failed = build_dir / f"{path.stem}.failed.ipynb"
            detail = _failed_cell(out_tmp, err, nb)
            if out_tmp.exists():
                out_tmp.replace(failed)
            shown = (
                failed.relative_to(Path(repo_dir).resolve())
                if failed.resolve().is_relative_to(Path(repo_dir).resolve())
                else failed
            )
            raise ChapterFailed(
                f"{path.name}: {detail}; {path.name} is unchanged (executed copy kept at {shown})"
            ) from None
        runtime = time.perf_counter() - t0
        done = nbformat.read(out_tmp, as_version=4)
        nbu.normalise(done, nb_dir=path.parent, repo_dir=Path(repo_dir))
        final_tmp.write_text(nbu.dumps(done))
        try:
            os.replace(final_tmp, path)
        except OSError:  # build dir on another file system: copy next to it, then rename
            side = path.parent / f".{path.name}.tmp"
            shutil.copyfile(final_tmp, side)
            os.replace(side, path)
        ok = True
    finally:
        for p in (src_tmp, out_tmp, final_tmp):
            p.unlink(missing_ok=True)
        if not ok:
            _restore(snap, restore_dirs, key)
    return RunResult(path, params, cli, preset, runtime)


def _command(result: RunResult) -> str:
    """The command that repeats this run."""
    parts = ["python", "-m", "kperc_book.reproduce", nbu.chapter_key(result.notebook)]
    if result.preset != "default":
        parts += ["--preset", result.preset]
    for name, value in result.overrides.items():
        plain = isinstance(value, str) and nbu.parse_value(value) == value
        parts += ["-p", name, value if plain else repr(value)]
    return shlex.join(parts)


def record_run(
    result: RunResult, runs_path: Path | str = RUNS_PATH, repo_dir: Path | str = nbu.REPO_DIR
) -> dict[str, Any]:
    """Add ``result`` to ``runs.json`` (parameters, runtime, versions) and return the entry."""
    runs_path = Path(runs_path)
    repo_dir = Path(repo_dir)
    runs = json.loads(runs_path.read_text()) if runs_path.exists() else {}
    chapters = runs.setdefault("chapters", {})
    try:
        rel = result.notebook.relative_to(repo_dir.resolve()).as_posix()
    except ValueError:
        rel = result.notebook.name
    entry = {
        "notebook": rel,
        "preset": result.preset,
        "overrides": result.overrides,
        "parameters": result.parameters,
        "runtime_s": round(result.runtime_s, 1),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": versions(),
        "command": _command(result),
    }
    chapters[result.notebook.stem] = entry
    runs_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = runs_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(runs, indent=2, sort_keys=True, default=str) + "\n")
    tmp.replace(runs_path)
    return entry


def reproduce(
    chapters: list[str] | None = None,
    *,
    overrides: dict[str, str] | None = None,
    preset: str = "default",
    repo_dir: Path | str = nbu.REPO_DIR,
    runs_path: Path | str | None = None,
    build_dir: Path | str | None = None,
    update_report: bool = True,
    out=sys.stdout,
) -> list[RunResult]:
    """Re-execute the named chapters (default: every notebook of ``_toc.yml``).

    Everything is validated before the first notebook runs: unknown chapters, presets
    or parameters raise ``ValueError``. With several chapters, ``-p`` names must be a
    parameter of every one of them.
    """
    repo_dir = Path(repo_dir).resolve()
    runs_path = Path(runs_path) if runs_path else repo_dir / "book" / "_generated" / "runs.json"
    build_dir = Path(build_dir) if build_dir else repo_dir / "_build" / "reproduce"
    available = nbu.toc_notebooks(repo_dir)
    if chapters:
        paths = []
        for name in chapters:
            p = nbu.resolve(name, available)
            if p not in paths:
                paths.append(p)
    else:
        paths = available
        missing = [e for e, p in nbu.toc_pages(repo_dir) if p is None]
        if missing:
            print(f"note: not written yet, skipped: {', '.join(missing)}", file=out)
    if not paths:
        raise ValueError("no notebook to run: _toc.yml lists none that exists")
    import nbformat

    for p in paths:  # validate everything before running anything
        _effective(nbformat.read(p, as_version=4), preset, dict(overrides or {}), p)
    book = repo_dir / "book"
    restore = [book / "_generated", book / "figures"]
    results = []
    t_all = time.perf_counter()
    for k, p in enumerate(paths, 1):
        label = f"[{k}/{len(paths)}] {p.stem}"
        print(f"{label}: running ...", file=out, flush=True)
        res = run_notebook(
            p,
            overrides=overrides,
            preset=preset,
            build_dir=build_dir,
            repo_dir=repo_dir,
            restore_dirs=restore,
            progress=sys.stderr.isatty(),
        )
        record_run(res, runs_path, repo_dir)
        results.append(res)
        print(
            f"{label}: done in {res.runtime_s:.1f} s (elapsed {time.perf_counter() - t_all:.1f} s)",
            file=out,
            flush=True,
        )
    if update_report:
        from . import report

        page = report.write_page(repo_dir)
        print(f"updated {page.relative_to(repo_dir)}", file=out)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m kperc_book.reproduce",
        description="Re-execute book chapters with papermill (all of _toc.yml by default).",
    )
    ap.add_argument(
        "chapters",
        nargs="*",
        help="chapters to run: ch04, ch04_smoothed_perceptron(.ipynb), ledger...",
    )
    ap.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="override a value of the notebook's parameters cell (repeatable)",
    )
    ap.add_argument(
        "--preset",
        default="default",
        help="parameter preset from the notebook metadata: default or full",
    )
    ap.add_argument(
        "--list",
        action="store_true",
        help="print the notebooks of _toc.yml that exist (relative paths) and exit",
    )
    args = ap.parse_args(argv)
    if args.list:
        for p in nbu.toc_notebooks():
            print(p.relative_to(nbu.REPO_DIR).as_posix())
        return 0
    overrides = {}
    for name, value in args.parameter:
        overrides[name] = value
    try:
        reproduce(args.chapters, overrides=overrides, preset=args.preset)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ChapterFailed as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the notebook being executed was left untouched", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
