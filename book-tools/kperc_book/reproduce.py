"""Re-execute the book's notebooks: ``python -m kperc_book.reproduce [chapters...]``.

Examples::

    python -m kperc_book.reproduce                      # every notebook of _toc.yml, in order
    python -m kperc_book.reproduce ch04 -p n_seeds 3    # one chapter, one parameter overridden
    python -m kperc_book.reproduce ch04 ch07 --preset full

Each notebook is executed by papermill in its own folder, written to a temporary file
under ``_build/reproduce/`` (never under ``book/``), normalised and only then moved into
place atomically. While it runs, the chapter writes its records and figures to a staging
folder under ``_build/reproduce/`` (named in ``KPERC_BOOK_STAGING``, see
:mod:`kperc_book.chapter`); they are moved into ``book/_generated`` and ``book/figures``,
each by an atomic rename, only after the whole notebook succeeded. A failing chapter
stops the run, names the notebook and the failing cell, and changes nothing under
``book/``; so do Ctrl-C and SIGTERM (handled alike), and a dead kernel gives a one-line
error. SIGKILL cannot be handled: it leaves at worst files in ``_build/reproduce/``,
removed by the next run. Each successful run records the chapter's parameters, runtime
and package versions in ``book/_generated/runs.json`` and refreshes the reproducibility
page (:mod:`kperc_book.report`).

``-p`` values are checked before anything runs: a value must have the type of the
notebook's default (an integer is accepted for a float), numbers must be finite, and a
parameter whose default is positive must stay positive.

Without ``-p``/``--preset`` a chapter runs with the defaults of its ``parameters``
cell: a cell injected by an earlier run with overrides is removed first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _notebooks as nbu
from . import machine as _machine
from . import paths as _paths
from .chapter import STAGING_ENV

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
    return {
        "python": platform.python_version(),
        "platform": _machine.platform_tag(),
        **_machine.package_versions(VERSIONED),
    }


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
                _check_value(name, value, defaults[name], path)
                cli[name] = value
            inject[name] = value
    return {**defaults, **inject}, inject, cli


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def _check_value(name: str, value: Any, default: Any, path: Path) -> None:
    """Check a ``-p`` value against the notebook's default before anything runs.

    The value must have the default's type (an int is accepted where the default is a
    float; a list's items are checked against the default's first item), numbers must be
    finite, and where the default is positive the value must be positive too (sizes,
    counts, tolerances). Defaults that are not literals (expressions) are not checked.
    """
    if isinstance(default, str) and not isinstance(value, str):
        raise ValueError(
            f"{path.name}: -p {name} expects a string like its default {default!r}; got {value!r}"
        )
    want, got = _kind(default), _kind(value)
    if isinstance(default, str) or default is None:
        return
    if not (want == got or (want == "float" and got == "int")):
        raise ValueError(
            f"{path.name}: -p {name} expects a value of type {want} like its default "
            f"{default!r}; got {value!r} ({got})"
        )
    if want == "list":
        items = [x for x in default if not isinstance(x, bool)]
        if not value:
            raise ValueError(f"{path.name}: -p {name} must not be an empty list")
        if items and isinstance(items[0], (int, float)):
            for item in value:
                _check_value(f"{name} (item {item!r})", item, items[0], path)
        return
    if want in ("int", "float"):
        if not np_isfinite(value):
            raise ValueError(f"{path.name}: -p {name} must be finite; got {value!r}")
        if default > 0 and not value > 0:
            raise ValueError(
                f"{path.name}: -p {name} must be positive (its default is {default!r}); "
                f"got {value!r}"
            )


def np_isfinite(value: float) -> bool:
    """Whether a Python number is finite (ints always are)."""
    return isinstance(value, int) or (value == value and abs(value) != float("inf"))


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


def _move_into_place(src: Path, dst: Path) -> None:
    """Rename ``src`` onto ``dst`` atomically (through a sibling if on another disk)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(src, dst)
    except OSError:  # build dir on another file system: copy next to it, then rename
        side = dst.parent / f".{dst.name}.{os.getpid()}.tmp"
        shutil.copyfile(src, side)
        os.replace(side, dst)


def _commit(stage: Path, book_dir: Path, key: str) -> list[Path]:
    """Move a succeeded chapter's staged records and figures into ``book_dir``.

    Each file lands by an atomic rename; files of the staging folder that are not the
    chapter's own (``<key>.*``, ``<key>-*``) are refused, so that a chapter cannot
    overwrite another chapter's records.
    """
    moved = []
    for sub in ("_generated", "figures"):
        folder = stage / sub
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            if p.name.startswith("."):  # a temporary file of an interrupted write
                continue
            if not _owned(p, key):
                raise ChapterFailed(
                    f"{key}: wrote {sub}/{p.name}, which is not one of its own records "
                    f"(names start with {key}. or {key}-); nothing was moved into book/"
                )
    for sub in ("_generated", "figures"):
        folder = stage / sub
        if folder.is_dir():
            for p in sorted(folder.iterdir()):
                if not p.name.startswith("."):
                    _move_into_place(p, book_dir / sub / p.name)
                    moved.append(book_dir / sub / p.name)
    return moved


def clean_stale(build_dir: Path) -> list[Path]:
    """Remove what runs killed by SIGKILL left in ``build_dir`` (their process is gone).

    Temporary files are named ``<stem>.<pid>.*``; those of a live process are kept.
    """
    removed = []
    if not build_dir.is_dir():
        return removed
    for p in build_dir.iterdir():
        m = re.match(r"^[^.]+\.(\d+)\.(in\.ipynb|out\.ipynb|final\.ipynb|stage)$", p.name)
        if not m:
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or _alive(pid):
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def _environ(name: str, value: str) -> Iterator[None]:
    """Set an environment variable (inherited by the kernel) for the block."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def _on_sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Handle SIGTERM like SIGINT (``KeyboardInterrupt``) so that clean-up runs."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while a chapter's files move into place (a few renames)."""
    sigs = {signal.SIGINT, signal.SIGTERM}
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    except (AttributeError, OSError, ValueError):  # platform without signal masks
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


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
    import nbclient.exceptions
    import nbformat
    import papermill as pm

    path = Path(path).resolve()
    build_dir = Path(build_dir)
    nb = nbformat.read(path, as_version=4)
    params, inject, cli = _effective(nb, preset, dict(overrides or {}), path)
    nbu.strip_injected(nb)
    build_dir.mkdir(parents=True, exist_ok=True)
    clean_stale(build_dir)
    stem = f"{path.stem}.{os.getpid()}"
    src_tmp = build_dir / f"{stem}.in.ipynb"
    out_tmp = build_dir / f"{stem}.out.ipynb"
    final_tmp = build_dir / f"{stem}.final.ipynb"
    stage = build_dir / f"{stem}.stage"
    restore_dirs = list(restore_dirs or [])
    key = nbu.chapter_key(path)
    t0 = time.perf_counter()
    ok = False
    with _sigterm_as_interrupt(), _environ(STAGING_ENV, str(stage)):
        snap = _snapshot(restore_dirs, key)
        try:
            if stage.exists():
                shutil.rmtree(stage)
            stage.mkdir()
            nbformat.write(nb, src_tmp)
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
                    f"{path.name}: {detail}; {path.name} is unchanged "
                    f"(executed copy kept at {shown})"
                ) from None
            except nbclient.exceptions.DeadKernelError:
                raise ChapterFailed(
                    f"{path.name}: the kernel died while running it (out of memory? check "
                    f"the -p values); {path.name} and its records are unchanged"
                ) from None
            except nbclient.exceptions.CellTimeoutError as err:
                raise ChapterFailed(
                    f"{path.name}: a cell timed out ({str(err).splitlines()[0]}); "
                    f"{path.name} and its records are unchanged"
                ) from None
            runtime = time.perf_counter() - t0
            done = nbformat.read(out_tmp, as_version=4)
            nbu.normalise(done, nb_dir=path.parent, repo_dir=Path(repo_dir))
            final_tmp.write_text(nbu.dumps(done))
            with _signals_deferred():  # a held SIGTERM/SIGINT is raised once all moved
                _commit(stage, path.parent, key)
                _move_into_place(final_tmp, path)
                ok = True
            # the executed copy of an earlier failure is out of date now
            (build_dir / f"{path.stem}.failed.ipynb").unlink(missing_ok=True)
        finally:
            for p in (src_tmp, out_tmp, final_tmp):
                p.unlink(missing_ok=True)
            shutil.rmtree(stage, ignore_errors=True)
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
    from .report import _read_json

    runs = _read_json(runs_path, {})
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
    from .report import _read_json

    _read_json(runs_path, {})  # a corrupt runs.json is an error now, not after a chapter ran
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
    _paths.require_checkout()
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
        print(
            "interrupted: the notebook being executed and its records were left untouched",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
