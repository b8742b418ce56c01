"""Re-execute the book's notebooks: ``python -m kperc_book.reproduce [chapters...]``.

Examples::

    python -m kperc_book.reproduce                      # every notebook of _toc.yml, in order
    python -m kperc_book.reproduce ch04 -p n_seeds 3    # one chapter, one parameter overridden
    python -m kperc_book.reproduce ch04 ch07 --preset full

Each notebook is executed by papermill in its own folder, written to a temporary file
under ``_build/reproduce/`` (never under ``book/``) and normalised. While it runs, the
chapter writes its records and figures to a staging folder under ``_build/reproduce/``
(named in ``KPERC_BOOK_STAGING``, see :mod:`kperc_book.chapter`). A failing chapter
stops the run, names the notebook and the failing cell, and changes nothing under
``book/``; so do a dead kernel, a full disk and a read-only folder (one-line errors).

A succeeded chapter is committed as one unit: its notebook, records, figures and
``runs.json`` entry are staged, a journal of the renames is written atomically (the
commit point), the files are renamed into ``book/``, the reproducibility page
(:mod:`kperc_book.report`) is refreshed and the journal deleted. Ctrl-C and SIGTERM are
handled alike: before the commit point the chapter is left untouched; during the commit
they are acted upon once it is complete (Python's handler, which runs in the main
thread whatever thread the signal reached, only notes them). SIGKILL cannot be
handled: the next start finishes a journal it finds (:func:`recover`), so after it the
chapter is wholly old or wholly new, and removes what dead runs left behind. Every run
holds an exclusive lock (``_build/reproduce/lock``): two commands take turns.

``-p`` values are checked before anything runs: a value must have the type of the
notebook's default (an integer is accepted for a float), numbers must be finite, and a
parameter whose default is positive must stay positive.

Without ``-p``/``--preset`` a chapter runs with the defaults of its ``parameters``
cell: a cell injected by an earlier run with overrides is removed first.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import platform
import re
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _fsio, figure_drift, paths
from . import _notebooks as nbu
from . import machine as _machine
from .chapter import STAGING_ENV

__all__ = [
    "ChapterFailed",
    "CommitIncomplete",
    "Interrupted",
    "run_notebook",
    "reproduce",
    "recover",
    "record_run",
    "blas_info",
    "main",
    "RUNS_PATH",
    "VERSIONED",
]

RUNS_PATH = paths.runs_path()
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
    """Undo what a failed chapter wrote in ``dirs`` itself (its own files added or changed).

    A chapter writes through the staging folder; this only repairs a notebook that wrote
    into ``book/`` directly. Only files named after the chapter key are touched.
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
            _fsio.atomic_write(p, blob)


def _move_into_place(src: Path, dst: Path) -> None:
    """Rename ``src`` onto ``dst`` atomically (through a sibling if on another disk).

    Every file operation of a commit goes through this function (the fault-injection
    tests count its calls to interrupt a commit at each step).
    """
    try:
        os.replace(src, dst)
    except OSError as err:
        if err.errno != errno.EXDEV:
            raise
        # build dir on another file system: copy next to the target, then rename
        _fsio.atomic_write(dst, Path(src).read_bytes())
        Path(src).unlink()


# --------------------------------------------------------------------------------------
# Lock, journal and recovery
#
# A chapter's regeneration writes everything it will change (notebook, records, figures,
# runs.json) into its staging folder under _build/reproduce/. The commit then
#   1. checks that every target folder accepts new files;
#   2. writes the journal (_build/reproduce/journal.json: the list of renames) by one
#      atomic rename: the commit point;
#   3. performs the renames, refreshes the reproducibility page and deletes the journal.
# A process killed before step 2 changed nothing under book/; one killed after it left a
# journal, and the next run (or any reproduce command) rolls it forward before anything
# else. All of it happens under an exclusive lock (_build/reproduce/lock), so two
# commands take turns instead of mixing their files.
# --------------------------------------------------------------------------------------

JOURNAL = "journal.json"
LOCK = "lock"


def control_dir(root: Path | str) -> Path:
    """``_build/reproduce`` of ``root``: home of the lock and the commit journal."""
    return paths.reproduce_dir(Path(root).resolve())


@contextmanager
def repo_lock(root: Path | str, out=sys.stderr) -> Iterator[None]:
    """Hold the repository's reproduce lock; say once that we wait if another holds it."""
    ctl = control_dir(root)
    ctl.mkdir(parents=True, exist_ok=True)

    def waiting(holder: str) -> None:
        if out is None:
            return
        print(
            f"waiting: another kperc_book.reproduce (process {holder}) is updating "
            f"{Path(root).name}/book; this run continues when it ends",
            file=out,
            flush=True,
        )

    with _fsio.locked(ctl / LOCK, on_wait=waiting):
        yield


def _book_dirs(root: Path) -> list[Path]:
    book = paths.book_dir(root)
    return [book, *paths.record_dirs(book)]


def recover(root: Path | str = paths.ROOT, out=None) -> str | None:
    """Finish a commit that a killed run left half done, then remove its leftovers.

    Call with the lock held. A journal found in ``_build/reproduce`` is rolled forward
    (its renames redone where the source is still staged, the reproducibility page
    refreshed); temporary files of dead processes are removed from ``book/``,
    ``book/_generated``, ``book/figures`` and ``_build/reproduce``.

    Returns
    -------
    str or None
        The chapter key whose commit was finished, if any.
    """
    root = Path(root).resolve()
    ctl = control_dir(root)
    journal = ctl / JOURNAL
    done = None
    if journal.exists():
        try:
            record = json.loads(journal.read_text())
            moves = [(Path(a), Path(b)) for a, b in record["moves"]]
        except (ValueError, KeyError, TypeError, OSError) as err:
            raise ValueError(
                f"{journal} is unreadable ({err}); it was written atomically, so the disk "
                "is at fault: check it, then delete the file and re-run the chapter"
            ) from None
        _roll_forward(record, moves, root, journal)
        done = str(record.get("chapter"))
        if out is not None:
            print(f"note: finished the interrupted update of {done} in book/", file=out)
    for d in _book_dirs(root):
        _fsio.sweep_debris(d)
        for old in ("runs.json.tmp", "reproducibility.md.tmp"):  # names of older versions
            (d / old).unlink(missing_ok=True)
    clean_stale(ctl)
    return done


def _roll_forward(record: dict, moves: list[tuple[Path, Path]], root: Path, journal: Path):
    """Carry out a journal: every staged file renamed onto its target, then the page."""
    for src, dst in moves:
        _step("move", dst)
        if src.exists():
            _move_into_place(src, dst)
    for folder in {dst.parent for _, dst in moves}:
        _fsio._fsync_dir(folder)
    if record.get("report"):
        from . import report

        _step("report", root / report.PAGE)
        report.write_page(root)
    _step("journal-removed", journal)
    journal.unlink()
    _fsio._fsync_dir(journal.parent)
    stage = record.get("stage")
    if stage:
        shutil.rmtree(stage, ignore_errors=True)


def _step(kind: str, path: Path) -> None:
    """A step of a commit; the fault-injection tests replace this to stop there."""


def _probe_writable(folder: Path) -> None:
    """Raise the OSError that writing a new file into ``folder`` would raise."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = _fsio.tmp_name(folder / "probe")
    with open(probe, "xb"):
        pass
    probe.unlink()


def _commit(
    stage: Path,
    book_dir: Path,
    key: str,
    *,
    notebook: tuple[Path, Path] | None = None,
    runs: tuple[dict[str, Any], Path] | None = None,
    root: Path | None = None,
    report: bool = False,
) -> list[Path]:
    """Move a succeeded chapter's staged files into ``book_dir``, all or nothing.

    Parameters
    ----------
    stage : path
        Staging folder: ``_generated/`` and ``figures/`` hold the chapter's records.
    book_dir : path
        The book folder the records belong in.
    key : str
        Chapter key; staged files not named ``<key>.*`` or ``<key>-*`` are refused, so
        that a chapter cannot overwrite another chapter's records.
    notebook : (path, path), optional
        (executed and normalised notebook, the notebook it replaces).
    runs : (dict, path), optional
        (the new content of runs.json, its path).
    root : path
        Repository root (where the journal lives); default: the parent of ``book_dir``.
    report : bool
        Refresh the reproducibility page as part of the commit.

    Returns
    -------
    list of Path
        The files of ``book_dir`` (and runs.json) that were replaced or created.
    """
    root = Path(root or book_dir.parent).resolve()
    moves: list[tuple[Path, Path]] = []
    for folder, target in zip(paths.record_dirs(stage), paths.record_dirs(book_dir), strict=True):
        sub = folder.name
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
            moves.append((p, target / p.name))
    if runs is not None:
        content, runs_path = runs
        staged = stage / "runs.json"
        _fsio.atomic_write(staged, _dump_runs(content))
        moves.append((staged, Path(runs_path)))
    if notebook is not None:
        src, dst = notebook
        staged = stage / dst.name
        if Path(src) != staged:
            _move_into_place(Path(src), staged)
        moves.append((staged, dst))
    for folder in sorted({dst.parent for _, dst in moves}):
        _probe_writable(folder)
    for src, _ in moves:  # staged files reach the disk before the journal names them
        with open(src, "rb") as fh:
            os.fsync(fh.fileno())
    ctl = control_dir(root)
    ctl.mkdir(parents=True, exist_ok=True)
    record = {
        "chapter": key,
        "moves": [[str(a.resolve()), str(b.resolve())] for a, b in moves],
        "report": bool(report),
        "stage": str(stage.resolve()),
    }
    journal = ctl / JOURNAL
    if journal.exists():
        raise RuntimeError(f"{journal} exists: an unfinished commit must be recovered first")
    with _signals_deferred():  # SIGINT/SIGTERM are acted upon once the commit is whole
        _step("journal", journal)
        _fsio.atomic_write(journal, json.dumps(record, indent=1) + "\n")  # commit point
        try:
            _roll_forward(record, moves, root, journal)
        except OSError as err:
            raise CommitIncomplete(
                f"{key}: the update of book/ was interrupted by {err}; the next "
                "`python -m kperc_book.reproduce` finishes it before it does anything else"
            ) from None
    return [dst for _, dst in moves]


class CommitIncomplete(RuntimeError):
    """A commit passed its commit point but a rename failed; the next run finishes it."""


def clean_stale(work_dir: Path) -> list[Path]:
    """Remove what runs killed by SIGKILL left in ``work_dir`` (their process is gone).

    Temporary files are named ``<stem>.<pid>.*``; those of a live process are kept, and
    so is a staging folder that an unfinished commit journal still refers to.
    """
    removed = []
    if not work_dir.is_dir():
        return removed
    keep = set()
    journal = work_dir / JOURNAL
    if journal.exists():
        try:
            keep.add(Path(json.loads(journal.read_text())["stage"]).resolve())
        except (ValueError, KeyError, TypeError, OSError):
            return removed  # recover() reports it
    for p in work_dir.iterdir():
        m = re.match(
            r"^[^.]+\.(\d+)\.(in\.ipynb|out\.ipynb|final\.ipynb|stage|kernel\.log)$", p.name
        )
        if not m:
            continue
        pid = int(m.group(1))
        if pid == os.getpid() or _alive(pid) or p.resolve() in keep:
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    removed += _fsio.sweep_debris(work_dir)
    return removed


def _alive(pid: int) -> bool:
    return _fsio.pid_alive(pid)


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


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped the run; ``str()`` says what was left in which state."""


class _SignalState(threading.local):
    deferring = 0
    pending: int | None = None


_signals = _SignalState()


def _on_signal(signum, frame):  # noqa: ARG001 - signal handler signature
    """Python runs signal handlers in the main thread, between two bytecodes; during a
    commit the signal is only noted (whichever thread the OS delivered it to)."""
    if _signals.deferring:
        _signals.pending = signum
        return
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Handle SIGTERM like SIGINT (``KeyboardInterrupt``) so that clean-up runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Note SIGINT and SIGTERM while a commit runs; act on them once it is complete.

    A signal mask would not do: it applies to one thread only, and the process has
    several (ZMQ, asyncio), any of which may receive a process-directed signal. Python's
    handler, however, always runs in the main thread, so it can simply be told to wait.
    """
    with _sigterm_as_interrupt():
        _signals.deferring += 1
        try:
            yield
        finally:
            _signals.deferring -= 1
        if not _signals.deferring and _signals.pending is not None:
            signum, _signals.pending = _signals.pending, None
            raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def _papermill_logs_to(path: Path) -> Iterator[None]:
    """Send papermill's (and nbclient's) log records to ``path`` instead of stderr.

    The ``papermill`` logger has no handler of its own, so its errors reach stderr
    through logging's last resort: after a signal, "Kernel died while waiting for
    execute reply." would precede the one line this command prints.
    """
    logger = logging.getLogger("papermill")
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
        handler.close()


def _kernel_manager_class(log_path: Path):
    """A kernel manager whose kernel writes its own stdout/stderr to ``log_path``.

    What a cell prints reaches the notebook through ZMQ either way; what the kernel
    process itself prints (a ZMQ traceback when it is orphaned by Ctrl-C or SIGTERM)
    goes to the log instead of the terminal.
    """
    from jupyter_client.manager import AsyncKernelManager

    class _LoggedKernelManager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):
            with open(log_path, "ab") as fh:  # Popen duplicates the descriptor
                kw.setdefault("stdout", fh)
                kw.setdefault("stderr", fh)
                return await super()._async_launch_kernel(kernel_cmd, **kw)

    return _LoggedKernelManager


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
    work_dir: Path | str | None = None,
    root: Path | str = paths.ROOT,
    restore_dirs: list[Path] | None = None,
    kernel_name: str = "python3",
    progress: bool = False,
    runs_path: Path | str | None = None,
    update_report: bool = False,
) -> RunResult:
    """Execute one notebook with papermill and replace it, with its records, on success.

    The chapter's notebook, records, figures and (with ``runs_path``) its runs.json
    entry are replaced together by one journaled commit (see :func:`recover`): after
    any interruption, even SIGKILL, they are either all old or all new. The run holds
    the repository's reproduce lock (a second command waits for it).

    Parameters
    ----------
    path : path
        The notebook; it runs with its own folder as working directory.
    overrides : dict of str to str, optional
        Command-line values (parsed as Python literals when possible).
    preset : str
        A preset of ``metadata.kperc.presets``; ``default`` means the parameters cell.
    work_dir : path, optional
        Where the temporary executed notebook and the staging folder are written (never
        the notebook's folder); default: ``_build/reproduce`` of ``root``.
    root : path
        Repository root, replaced by ``<repo>`` if it appears in outputs.
    restore_dirs : list of path, optional
        Folders whose files are restored if the run fails: the chapter's own generated
        records and figures (files named ``<key>.*`` or ``<key>-*``), in case the
        notebook wrote there itself instead of through the staging folder.
    runs_path : path, optional
        ``runs.json`` to record the run in, as part of the same commit.
    update_report : bool
        Refresh the reproducibility page as part of the commit.

    Raises
    ------
    ValueError
        Unknown preset or parameter name (nothing is executed).
    ChapterFailed
        A cell raised; the notebook is left untouched.
    OSError
        A file could not be written (disk full, read-only folder); ``book/`` is left
        untouched.
    """
    import nbclient.exceptions
    import nbformat
    import papermill as pm

    path = Path(path).resolve()
    root = Path(root).resolve()
    work_dir = Path(work_dir) if work_dir else paths.reproduce_dir(root)
    nb = nbformat.read(path, as_version=4)
    params, inject, cli = _effective(nb, preset, dict(overrides or {}), path)
    nbu.strip_injected(nb)
    work_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{path.stem}.{os.getpid()}"
    src_tmp = work_dir / f"{stem}.in.ipynb"
    out_tmp = work_dir / f"{stem}.out.ipynb"
    final_tmp = work_dir / f"{stem}.final.ipynb"
    kernel_log = work_dir / f"{stem}.kernel.log"
    stage = work_dir / f"{stem}.stage"
    restore_dirs = list(restore_dirs or [])
    key = nbu.chapter_key(path)
    ok = False
    with _sigterm_as_interrupt(), repo_lock(root), _environ(STAGING_ENV, str(stage)):
        recover(root, out=sys.stderr)
        clean_stale(work_dir)
        t0 = time.perf_counter()
        snap = _snapshot(restore_dirs, key)
        try:
            if stage.exists():
                shutil.rmtree(stage)
            stage.mkdir()
            _fsio.atomic_write(src_tmp, nbu.dumps(nb), durable=False)
            try:
                with _papermill_logs_to(kernel_log):
                    pm.execute_notebook(
                        str(src_tmp),
                        str(out_tmp),
                        parameters=inject or None,
                        cwd=str(path.parent),
                        kernel_name=kernel_name,
                        progress_bar=progress,
                        log_output=False,
                        request_save_on_cell_execute=False,
                        kernel_manager_class=_kernel_manager_class(kernel_log),
                    )
            except pm.PapermillExecutionError as err:
                failed = work_dir / f"{path.stem}.failed.ipynb"
                detail = _failed_cell(out_tmp, err, nb)
                if out_tmp.exists():
                    out_tmp.replace(failed)
                shown = (
                    failed.relative_to(root) if failed.resolve().is_relative_to(root) else failed
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
            _step("executed", out_tmp)
            done = nbformat.read(out_tmp, as_version=4)
            nbu.normalise(done, nb_dir=path.parent, root=root)
            # images that differ from the committed ones only by round-off keep their
            # committed bytes (another machine's rounding must not dirty the checkout)
            figure_drift.keep_committed_figures(stage, path.parent, key)
            figure_drift.keep_committed_notebook_images(done, path)
            _fsio.atomic_write(final_tmp, nbu.dumps(done), durable=False)
            result = RunResult(path, params, cli, preset, runtime)
            runs = None
            if runs_path is not None:
                runs = (_runs_with(result, Path(runs_path), root), Path(runs_path))
            with _signals_deferred():  # a SIGTERM/SIGINT is acted on once all is in place
                _commit(
                    stage,
                    path.parent,
                    key,
                    notebook=(final_tmp, path),
                    runs=runs,
                    root=root,
                    report=update_report,
                )
                ok = True
            # the executed copy of an earlier failure is out of date now
            (work_dir / f"{path.stem}.failed.ipynb").unlink(missing_ok=True)
        except KeyboardInterrupt as err:
            if ok:  # the signal came during the commit, which was completed first
                err.committed = result
            raise
        finally:
            # past the commit point (a journal is left) the next start rolls forward
            committed = ok or (control_dir(root) / JOURNAL).exists()
            for p in (src_tmp, out_tmp, final_tmp, kernel_log):
                p.unlink(missing_ok=True)
            if not committed:
                shutil.rmtree(stage, ignore_errors=True)
                _restore(snap, restore_dirs, key)
    return result


def _command(result: RunResult) -> str:
    """The command that repeats this run."""
    parts = ["python", "-m", "kperc_book.reproduce", nbu.chapter_key(result.notebook)]
    if result.preset != "default":
        parts += ["--preset", result.preset]
    for name, value in result.overrides.items():
        plain = isinstance(value, str) and nbu.parse_value(value) == value
        parts += ["-p", name, value if plain else repr(value)]
    return shlex.join(parts)


def blas_info() -> list[dict[str, Any]]:
    """The BLAS libraries, kernels and thread counts of a chapter's run.

    See :func:`kperc_book.machine.blas_libraries`; the kernel inherits this process's
    environment (``OPENBLAS_CORETYPE``, ``OPENBLAS_NUM_THREADS``, ...), so it selects the
    same kernel and thread count.
    """
    return _machine.blas_libraries()


def _entry(result: RunResult, root: Path) -> dict[str, Any]:
    try:
        rel = result.notebook.relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = result.notebook.name
    return {
        "notebook": rel,
        "preset": result.preset,
        "overrides": result.overrides,
        "parameters": result.parameters,
        "runtime_s": round(result.runtime_s, 1),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": versions(),
        "blas": blas_info(),
        "command": _command(result),
    }


def _read_runs(runs_path: Path) -> dict[str, Any]:
    from .report import _read_json

    runs = _read_json(runs_path, {})
    if not isinstance(runs, dict) or not isinstance(runs.setdefault("chapters", {}), dict):
        raise ValueError(
            f"{runs_path.parent.name}/{runs_path.name} is not a run record (no 'chapters' "
            f"table); restore it with `git checkout -- {runs_path.name}` in "
            f"{runs_path.parent.name}/"
        )
    return runs


def _runs_with(result: RunResult, runs_path: Path, root: Path) -> dict[str, Any]:
    """runs.json as it is now (read under the lock) with ``result``'s entry added."""
    runs = _read_runs(runs_path)
    runs["chapters"][result.notebook.stem] = _entry(result, root)
    return runs


def _dump_runs(runs: dict[str, Any]) -> str:
    return json.dumps(runs, indent=2, sort_keys=True, default=str) + "\n"


def record_run(
    result: RunResult, runs_path: Path | str = RUNS_PATH, root: Path | str = paths.ROOT
) -> dict[str, Any]:
    """Add ``result`` to ``runs.json`` (parameters, runtime, versions, BLAS) and return it.

    The read-modify-write happens under the repository's reproduce lock and the file is
    replaced atomically, so concurrent callers never lose or corrupt an entry.
    """
    runs_path = Path(runs_path)
    root = Path(root).resolve()
    with repo_lock(root, out=None):  # held for milliseconds: no message
        runs = _runs_with(result, runs_path, root)
        runs_path.parent.mkdir(parents=True, exist_ok=True)
        _fsio.atomic_write(runs_path, _dump_runs(runs))
    return runs["chapters"][result.notebook.stem]


def reproduce(
    chapters: list[str] | None = None,
    *,
    overrides: dict[str, str] | None = None,
    preset: str = "default",
    root: Path | str = paths.ROOT,
    runs_path: Path | str | None = None,
    work_dir: Path | str | None = None,
    update_report: bool = True,
    out=sys.stdout,
) -> list[RunResult]:
    """Re-execute the named chapters (default: every notebook of ``_toc.yml``).

    Everything is validated before the first notebook runs: unknown chapters, presets
    or parameters raise ``ValueError``. With several chapters, ``-p`` names must be a
    parameter of every one of them. Each chapter is committed on its own (notebook,
    records, figures, runs.json entry and the reproducibility page together); an
    interruption raises :class:`Interrupted`, whose message names the chapters that
    were completed and the one left untouched.
    """
    root = Path(root).resolve()
    runs_path = Path(runs_path) if runs_path else paths.runs_path(root)
    work_dir = Path(work_dir) if work_dir else paths.reproduce_dir(root)
    available = nbu.toc_notebooks(root)
    if chapters:
        notebooks = []
        for name in chapters:
            p = nbu.resolve(name, available)
            if p not in notebooks:
                notebooks.append(p)
    else:
        notebooks = available
        missing = [e for e, p in nbu.toc_pages(root) if p is None]
        if missing:
            print(f"note: not written yet, skipped: {', '.join(missing)}", file=out)
    if not notebooks:
        raise ValueError("no notebook to run: _toc.yml lists none that exists")
    import nbformat

    for p in notebooks:  # validate everything before running anything
        _effective(nbformat.read(p, as_version=4), preset, dict(overrides or {}), p)
    restore = list(paths.record_dirs(paths.book_dir(root)))
    results: list[RunResult] = []
    current = None
    _read_runs(runs_path)  # a corrupt runs.json is an error now, not after a chapter ran
    t_all = time.perf_counter()
    try:
        with _sigterm_as_interrupt(), repo_lock(root):
            recover(root, out=out)
            for k, p in enumerate(notebooks, 1):
                current = p
                label = f"[{k}/{len(notebooks)}] {p.stem}"
                print(f"{label}: running ...", file=out, flush=True)
                res = run_notebook(
                    p,
                    overrides=overrides,
                    preset=preset,
                    work_dir=work_dir,
                    root=root,
                    restore_dirs=restore,
                    progress=sys.stderr.isatty(),
                    runs_path=runs_path,
                    update_report=update_report,
                )
                results.append(res)
                current = None
                elapsed = time.perf_counter() - t_all
                print(
                    f"{label}: done in {res.runtime_s:.1f} s (elapsed {elapsed:.1f} s)",
                    file=out,
                    flush=True,
                )
    except KeyboardInterrupt as err:
        if getattr(err, "committed", None) is not None:
            results.append(err.committed)
            current = None
        done = ", ".join(r.notebook.stem for r in results)
        what = [f"{done} updated completely" if done else ""]
        if current is not None:
            what.append(f"{current.name} and its records left untouched")
        raise Interrupted("; ".join(w for w in what if w) or "nothing changed") from None
    if update_report:
        from . import report

        print(f"updated {report.PAGE}", file=out)
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
    paths.require_checkout()
    if args.list:
        for p in nbu.toc_notebooks():
            print(p.relative_to(paths.ROOT).as_posix())
        return 0
    overrides = {}
    for name, value in args.parameter:
        overrides[name] = value
    return guarded(lambda: reproduce(args.chapters, overrides=overrides, preset=args.preset))


def guarded(run) -> int:
    """Call ``run()`` and turn its failures into one line on stderr and an exit status.

    2: invalid request (nothing ran); 1: a chapter failed or a file could not be written
    (``book/`` unchanged) or a commit must be finished by the next run; 130: interrupted
    by SIGINT or SIGTERM (the line says which chapters were completed).
    """
    with _sigterm_as_interrupt():  # no signal ends the process without its one line
        try:
            run()
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        except (ChapterFailed, CommitIncomplete) as err:
            print(f"FAILED: {err}", file=sys.stderr)
            return 1
        except OSError as err:
            print(f"error: {_os_error(err)}; book/ was left untouched", file=sys.stderr)
            return 1
        except KeyboardInterrupt as err:
            # The interrupted kernel's tasks fail afterwards ("Task exception was never
            # retrieved ... DeadKernelError", at exit through logging's last resort):
            # this line is the whole report.
            for name in ("asyncio", "papermill", "traitlets"):
                logging.getLogger(name).disabled = True
            detail = str(err) if isinstance(err, Interrupted) else "nothing changed"
            print(f"interrupted: {detail}", file=sys.stderr)
            return 130
    return 0


def _os_error(err: OSError) -> str:
    """One line for a failed file operation: what, where and why."""
    where = err.filename if err.filename is not None else ""
    why = err.strerror or type(err).__name__
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why += " (a read-only file or folder?)"
    return f"cannot write {where}: {why}" if where else f"file operation failed: {why}"


if __name__ == "__main__":
    sys.exit(main())
