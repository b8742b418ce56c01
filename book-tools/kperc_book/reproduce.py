"""Re-execute the book's notebooks: ``python -m kperc_book.reproduce [chapters...]``.

Examples::

    python -m kperc_book.reproduce                      # every notebook of _toc.yml, in order
    python -m kperc_book.reproduce ch04 -p n_seeds 3    # one chapter, one parameter overridden
    python -m kperc_book.reproduce ch04 ch07 --preset full

A chapter runs in three steps, one chapter at a time (a lock, ``_build/reproduce.lock``
held with :mod:`filelock`, makes two commands take turns), after a probe: before the
notebook runs, every file the run may replace (the notebook, its record, its figures
and the reproducibility page) is shown to be replaceable (:func:`_probe`), so that an
immutable page or a read-only folder stops the command with one line and nothing run.

1. **Run.** papermill executes the notebook in its own folder and writes the result to a
   temporary folder under ``_build/reproduce/``; the chapter writes its records and
   figures to ``stage/`` there (named in ``KPERC_BOOK_STAGING``, see
   :mod:`kperc_book.chapter`). A failing cell, a dead kernel, Ctrl-C or SIGTERM stop
   here and nothing under ``book/`` has changed.
2. **Check.** The notebook is normalised (no timestamps, machine paths or random ids),
   figures that differ from the committed ones only by round-off keep their committed
   bytes, and every file is copied next to its target in ``book/``. Each target that
   exists is then replaced by a byte-identical copy of itself, which proves that the
   real replacement can happen (a read-only folder, an immutable file, a file that is a
   mount point, a full disk fail here, with one line), before anything has changed.
3. **Write.** Each file is moved onto its target with one atomic ``os.replace``
   (records and figures first, the notebook last), and the reproducibility page is
   rebuilt (if that fails after all, the command says so and exits non-zero).

git is the journal. A run killed during step 3 (SIGKILL, a power cut) may leave the
chapter half updated; its files are all tracked, so ``git restore`` puts back the
committed chapter, and the next run prints that command (:func:`restore_command`).
The run log (runtime, versions, BLAS of each run) is ``_build/reproduce/runs.json``,
outside git.

``-p`` values are checked before anything runs: a value must have the type of the
notebook's default (an integer is accepted for a float), numbers must be finite, and a
parameter whose default is positive must stay positive. Without ``-p``/``--preset`` a
chapter runs with the defaults of its ``parameters`` cell: a cell injected by an earlier
run with overrides is removed first.
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
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _fsio, figure_drift, paths, report
from . import _notebooks as nbu
from . import machine as _machine
from .chapter import STAGING_ENV
from .report import VERSIONED

__all__ = [
    "ChapterFailed",
    "run_notebook",
    "reproduce",
    "restore_command",
    "record_run",
    "blas_info",
    "main",
]


class ChapterFailed(RuntimeError):
    """A notebook raised while executing, or its files cannot be replaced; the message
    says why, and what changed, in one line (nothing, unless it says otherwise)."""


@dataclass
class RunResult:
    notebook: Path
    parameters: dict[str, Any]
    overrides: dict[str, Any]
    preset: str
    runtime_s: float


def versions() -> dict[str, str]:
    """Python, platform and the versions of :data:`kperc_book.report.VERSIONED` (``missing``
    if absent)."""
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


# --------------------------------------------------------------------------------------
# The lock, the write and the note a killed write leaves
# --------------------------------------------------------------------------------------


@contextmanager
def repo_lock(root: Path | str, out=sys.stderr) -> Iterator[None]:
    """Hold the repository's reproduce lock (``_build/reproduce.lock``); say once that
    we wait if another command holds it."""
    from filelock import FileLock, Timeout

    build = paths.build_dir(Path(root).resolve())
    build.mkdir(parents=True, exist_ok=True)
    lock = FileLock(build / "reproduce.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if out is not None:
            print(
                "waiting: another kperc_book.reproduce is updating the book; this run "
                "continues when it ends",
                file=out,
                flush=True,
            )
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _marker(root: Path, key: str) -> Path:
    """The note that chapter ``key``'s files are being written into ``book/``."""
    return paths.reproduce_dir(root) / f"{key}.writing"


def chapter_files(root: Path | str, notebook: Path) -> list[str]:
    """The paths (relative to ``root``, as git wants them) of a chapter's files.

    Examples
    --------
    >>> chapter_files("/r", Path("/r/book/ch04_smoothed_perceptron.ipynb"))
    ['book/ch04_smoothed_perceptron.ipynb', 'book/_generated/ch04.json', 'book/figures/ch04-*']
    """
    root = Path(root)
    key = nbu.chapter_key(notebook)
    gen, figs = (d.relative_to(root).as_posix() for d in paths.record_dirs(paths.book_dir(root)))
    return [
        Path(notebook).relative_to(root).as_posix(),
        f"{gen}/{key}.json",
        f"{figs}/{key}-*",
    ]


def restore_command(root: Path | str, notebook: Path) -> str:
    """The command that puts a chapter's committed files back (git is the journal).

    Only the paths git tracks are named (``git restore`` refuses a path it does not
    know); a file new in the interrupted run stays, untracked, until the next run.
    """
    specs = chapter_files(root, notebook)
    tracked = [s for s in specs if _git(root, "ls-files", "--", s)]
    return shlex.join(["git", "restore", "--", *(tracked or specs)])


def _git(root: Path | str, *args: str) -> str:
    """The output of a git command in ``root`` ('' if git cannot tell)."""
    import subprocess

    try:
        res = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return res.stdout.strip() if res.returncode == 0 else ""


def _interrupted_writes(root: Path, notebooks: list[Path], out) -> None:
    """Say how to restore each chapter whose write a killed run left half done.

    Called with the lock held, so a note found belongs to a dead run. A note whose
    chapter git reports unmodified (it was restored) is removed silently.
    """
    folder = paths.reproduce_dir(root)
    by_key = {nbu.chapter_key(p): p for p in notebooks}
    for note in sorted(folder.glob("*.writing")) if folder.is_dir() else []:
        nb = by_key.get(note.stem)
        if nb is None:
            continue
        if _git_clean(root, chapter_files(root, nb)):  # restored with git
            note.unlink(missing_ok=True)
            continue
        print(
            f"note: an earlier run was stopped while writing {nb.name} and its records, "
            f"which may be half updated; `{restore_command(root, nb)}` restores the "
            "committed chapter, and a successful run of it replaces them all",
            file=out,
            flush=True,
        )


def _git_clean(root: Path, pathspecs: list[str]) -> bool:
    """Whether git reports no change in ``pathspecs`` (False if git cannot tell)."""
    if not _git(root, "rev-parse", "--git-dir"):
        return False
    return not _git(root, "status", "--porcelain", "--untracked-files=no", "--", *pathspecs)


def _clean_after_dead_runs(root: Path) -> None:
    """Remove what killed runs left: their folders in ``_build/reproduce/`` and their
    temporary siblings (``.<name>.<pid>.<hex>.tmp``) in ``book/``. Call with the lock
    held: every such folder then belongs to a dead run, and a sibling is removed only
    if the process its name carries is gone."""
    work = paths.reproduce_dir(root)
    for d in work.iterdir() if work.is_dir() else []:
        if d.is_dir():
            shutil.rmtree(d, ignore_errors=True)
    book = paths.book_dir(root)
    for folder in (book, *paths.record_dirs(book)):
        for p in folder.glob(".*.tmp") if folder.is_dir() else []:
            m = re.match(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$", p.name)
            if m and not _pid_alive(int(m.group(1))):
                p.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _step(kind: str, path: Path) -> None:
    """A step of the write; the fault-injection tests replace this to stop there."""


def _owned(p: Path, key: str) -> bool:
    """Whether ``p`` is one of chapter ``key``'s records (``key.json``, ``key-*.png``)."""
    return p.name.startswith((f"{key}.", f"{key}-"))


def _planned(stage: Path, notebook: tuple[Path, Path], key: str) -> list[tuple[Path, Path]]:
    """(new file, target) pairs of a chapter: records and figures, the notebook last."""
    moves: list[tuple[Path, Path]] = []
    book_dir = notebook[1].parent
    for folder, target in zip(paths.record_dirs(stage), paths.record_dirs(book_dir), strict=True):
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            if p.name.startswith("."):  # a temporary file of an interrupted write
                continue
            if not (p.is_file() and _owned(p, key)):
                raise ChapterFailed(
                    f"{key}: wrote {folder.name}/{p.name}, which is not one of its own "
                    f"records (names start with {key}. or {key}-); book/ is unchanged"
                )
            moves.append((p, target / p.name))
    moves.append(notebook)
    return moves


def _prepare(moves: list[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
    """Copy each new file next to its target and prove each target can be replaced.

    Returns the (temporary sibling, target) pairs whose content changes. On any
    failure the siblings are removed and nothing under ``book/`` has changed: a target
    is only ever replaced here by a byte-identical copy of itself, which is how a
    read-only folder, an immutable file or a file that is a mount point (``EPERM``,
    ``EBUSY`` on rename) shows before the real write.
    """
    ready: list[tuple[Path, Path]] = []
    try:
        for src, dst in moves:
            blob = src.read_bytes()
            dst.parent.mkdir(parents=True, exist_ok=True)
            if dst.exists():
                old = dst.read_bytes()
                if old == blob:
                    continue  # unchanged: not touched at all
                _step("probe", dst)
                same = _fsio.tmp_name(dst)
                ready.append((same, dst))
                _fsio.write_new(same, old, mode_of=dst)
                os.replace(same, dst)  # the real replacement, with the same bytes
                ready.pop()
            _step("copy", dst)
            tmp = _fsio.tmp_name(dst)
            ready.append((tmp, dst))
            _fsio.write_new(tmp, blob, mode_of=dst if dst.exists() else None)
    except BaseException:
        for tmp, _ in ready:
            tmp.unlink(missing_ok=True)
        raise
    return ready


def _targets(root: Path, notebook: Path, key: str, *, page: bool) -> list[Path]:
    """Every file a run of chapter ``key`` may replace: the notebook, its record, its
    figures (those that exist now) and, if ``page``, the reproducibility page."""
    gen, figs = paths.record_dirs(notebook.parent)
    found = [notebook, gen / f"{key}.json", *sorted(figs.glob(f"{key}-*"))]
    return found + [paths.reproducibility_page(root)] if page else found


def _probe(targets: list[Path]) -> None:
    """Prove, before the chapter runs, that each of ``targets`` can be replaced, without
    changing any of them.

    A hard link to an existing target is made beside it and removed: that needs a
    writable folder, and fails where renaming onto the target fails (an immutable or
    append-only file, ``EPERM``; a file that is a mount point, ``EXDEV``). On a file
    system that refuses the link for another reason, the target is replaced by a
    byte-identical copy of itself instead, as :func:`_prepare` does after the run. For
    a target not written yet, a file is created and removed beside it. An ``OSError``
    names the target.
    """
    for dst in targets:
        tmp = _fsio.tmp_name(dst)
        try:
            if dst.exists():
                try:
                    os.link(dst, tmp)
                except OSError:
                    _fsio.write_new(tmp, dst.read_bytes(), mode_of=dst)
                    os.replace(tmp, dst)
                else:
                    tmp.unlink()
            elif dst.parent.is_dir():
                _fsio.write_new(tmp, b"", durable=False)
                tmp.unlink()
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise OSError(err.errno, err.strerror, str(tmp), None, str(dst)) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _write(root: Path, key: str, ready: list[tuple[Path, Path]]) -> None:
    """Move the prepared files onto their targets (one ``os.replace`` each).

    While it runs, a note in ``_build/reproduce/`` says that the chapter is being
    written; a run that dies meanwhile leaves it for the next run to report. Once every
    file is in place the chapter is whole, and so is it when nothing had to change.
    """
    note = _marker(root, key)
    if not ready:
        note.unlink(missing_ok=True)
        return
    for k, (tmp, dst) in enumerate(ready):
        try:
            _step("replace", dst)
            if k == 0:  # durable: it must outlive a power cut that the replaces outlive
                note.parent.mkdir(parents=True, exist_ok=True)
                _fsio.atomic_write(note, " ".join(shlex.quote(str(d)) for _, d in ready) + "\n")
            os.replace(tmp, dst)
        except BaseException:  # an error, Ctrl-C or SIGTERM: no copies left in book/
            for t, _ in ready[k:]:
                t.unlink(missing_ok=True)
            raise
    for folder in {d.parent for _, d in ready}:
        _fsio._fsync_dir(folder)
    note.unlink()


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
        lines = nbu._source(bad).strip().splitlines()
        first = lines[0] if lines else ""
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
    root: Path | str = paths.ROOT,
    kernel_name: str = "python3",
    progress: bool = False,
    runs_path: Path | str | None = None,
    update_report: bool = False,
) -> RunResult:
    """Execute one notebook with papermill and, on success, replace it and its records.

    Call with the repository's lock held (:func:`reproduce` does). See the module's
    docstring for the three steps.

    Parameters
    ----------
    path : path
        The notebook; it runs with its own folder as working directory.
    overrides : dict of str to str, optional
        Command-line values (parsed as Python literals when possible).
    preset : str
        A preset of ``metadata.kperc.presets``; ``default`` means the parameters cell.
    root : path
        Repository root (``_build/`` is there; replaced by ``<repo>`` in outputs).
    runs_path : path, optional
        The run log to add this run to (after the write).
    update_report : bool
        Rebuild the reproducibility page after the write.

    Raises
    ------
    ValueError
        Unknown preset or parameter name (nothing is executed).
    ChapterFailed
        A cell raised, the kernel died, or a file of the chapter cannot be replaced;
        ``book/`` is unchanged.
    OSError
        A file could not be written (disk full, read-only folder) before the write began.
    """
    import nbclient.exceptions
    import nbformat
    import papermill as pm

    path = Path(path).resolve()
    root = Path(root).resolve()
    nb = nbformat.read(path, as_version=4)
    params, inject, cli = _effective(nb, preset, dict(overrides or {}), path)
    nbu.strip_injected(nb)
    key = nbu.chapter_key(path)
    work = paths.reproduce_dir(root)
    work.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{path.stem}.", dir=work))
    src_tmp, out_tmp, kernel_log = tmp / "in.ipynb", tmp / "out.ipynb", tmp / "kernel.log"
    stage = tmp / "stage"
    stage.mkdir()
    failed = work / f"{path.stem}.failed.ipynb"
    try:
        try:
            _probe(_targets(root, path, key, page=update_report))
        except OSError as err:
            raise ChapterFailed(
                f"{path.name}: {_os_error(err)}; nothing was run, and book/ is unchanged"
            ) from None
        t0 = time.perf_counter()
        src_tmp.write_text(nbu.dumps(nb))
        try:
            with _papermill_logs_to(kernel_log), _environ(STAGING_ENV, str(stage)):
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
            detail = _failed_cell(out_tmp, err, nb)
            if out_tmp.exists():
                shutil.move(out_tmp, failed)
            shown = failed.relative_to(root) if failed.is_relative_to(root) else failed
            raise ChapterFailed(
                f"{path.name}: {detail}; {path.name} is unchanged (executed copy kept at {shown})"
            ) from None
        except nbclient.exceptions.DeadKernelError:
            raise ChapterFailed(
                f"{path.name}: the kernel died while running it (out of memory? check the "
                f"-p values); {path.name} and its records are unchanged"
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
        final = tmp / path.name
        final.write_text(nbu.dumps(done))
        try:
            ready = _prepare(_planned(stage, (final, path), key))
        except OSError as err:
            raise ChapterFailed(f"{path.name}: {_os_error(err)}; book/ is unchanged") from None
        try:
            _write(root, key, ready)
        except OSError as err:  # a disk that failed between two renames
            state = (
                f"{path.name} and its records may be half updated: "
                f"`{restore_command(root, path)}` restores them"
                if _marker(root, key).exists()
                else "book/ is unchanged"
            )
            raise ChapterFailed(f"{path.name}: {_os_error(err)}; {state}") from None
        failed.unlink(missing_ok=True)  # the executed copy of an earlier failure is stale
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = RunResult(path, params, cli, preset, runtime)
    try:  # the chapter is complete; the run log is this machine's, not the book's
        if runs_path is not None:
            record_run(result, runs_path, root)
    except OSError as err:
        print(f"note: {path.name} was written, but {_os_error(err)}", file=sys.stderr)
    if update_report:
        try:
            report.write_page(root)
        except OSError as err:  # it could be replaced before the run: changed meanwhile
            page = paths.reproducibility_page(root)
            raise ChapterFailed(
                f"{path.name} and its records were written, but {_os_error(err)}, so "
                f"{page.name} still describes the earlier run: `python -m kperc_book.report` "
                "rewrites it"
            ) from None
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
    """The run log; an unreadable one (it is a local log, not a record) starts afresh."""
    try:
        runs = json.loads(runs_path.read_text())
    except (OSError, ValueError):
        runs = {}
    if not isinstance(runs, dict) or not isinstance(runs.get("chapters"), dict):
        runs = {"chapters": {}}
    return runs


def record_run(
    result: RunResult, runs_path: Path | str | None = None, root: Path | str = paths.ROOT
) -> dict[str, Any]:
    """Add ``result`` to the run log (parameters, runtime, versions, BLAS); return the entry.

    The log, ``_build/reproduce/runs.json``, is this machine's: it changes with every
    run and is not part of the book. Call with the repository's lock held.
    """
    root = Path(root).resolve()
    runs_path = Path(runs_path) if runs_path else paths.runs_path(root)
    runs = _read_runs(runs_path)
    entry = runs["chapters"][result.notebook.stem] = _entry(result, root)
    runs_path.parent.mkdir(parents=True, exist_ok=True)
    _fsio.atomic_write(runs_path, json.dumps(runs, indent=2, sort_keys=True, default=str) + "\n")
    return entry


def reproduce(
    chapters: list[str] | None = None,
    *,
    overrides: dict[str, str] | None = None,
    preset: str = "default",
    root: Path | str = paths.ROOT,
    runs_path: Path | str | None = None,
    update_report: bool = True,
    out=sys.stdout,
) -> list[RunResult]:
    """Re-execute the named chapters (default: every notebook of ``_toc.yml``).

    Everything is validated before the first notebook runs: unknown chapters, presets
    or parameters raise ``ValueError``. With several chapters, ``-p`` names must be a
    parameter of every one of them. Each chapter is written on its own; an interruption
    raises :class:`Interrupted`, whose message names the chapters that were completed.
    """
    root = Path(root).resolve()
    runs_path = Path(runs_path) if runs_path else paths.runs_path(root)
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
    results: list[RunResult] = []
    current = None
    t_all = time.perf_counter()
    try:
        with repo_lock(root):
            _clean_after_dead_runs(root)
            _interrupted_writes(root, available, out)
            for k, p in enumerate(notebooks, 1):
                current = p
                label = f"[{k}/{len(notebooks)}] {p.stem}"
                print(f"{label}: running ...", file=out, flush=True)
                res = run_notebook(
                    p,
                    overrides=overrides,
                    preset=preset,
                    root=root,
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
    except KeyboardInterrupt:
        done = ", ".join(r.notebook.stem for r in results)
        what = [f"{done} updated completely" if done else ""]
        if current is not None:
            if _marker(root, nbu.chapter_key(current)).exists():
                what.append(
                    f"{current.name} was being written and may be half updated: "
                    f"`{restore_command(root, current)}` restores it"
                )
            else:
                what.append(f"{current.name} and its records left untouched")
        raise Interrupted("; ".join(w for w in what if w) or "nothing changed") from None
    if update_report:
        print(f"updated {report.PAGE}", file=out)
    return results


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped the run; ``str()`` says what was left in which state."""


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
    overrides = dict(args.parameter)
    return guarded(lambda: reproduce(args.chapters, overrides=overrides, preset=args.preset))


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Handle SIGTERM like Ctrl-C (``KeyboardInterrupt``), so that clean-up runs."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):  # noqa: ARG001 - signal handler signature
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def guarded(run) -> int:
    """Call ``run()`` and turn its failures into one line on stderr and an exit status.

    2: invalid request (nothing ran); 1: a chapter failed or a file could not be written
    (``book/`` unchanged); 130: interrupted by SIGINT or SIGTERM (the line says which
    chapters were completed, and how to restore one that was being written).
    """
    with _sigterm_as_interrupt():  # no signal ends the process without its one line
        try:
            run()
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        except ChapterFailed as err:
            print(f"FAILED: {err}", file=sys.stderr)
            return 1
        except OSError as err:
            print(f"error: {_os_error(err)}", file=sys.stderr)
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
    replace = getattr(err, "filename2", None) is not None  # a rename onto filename2
    where = err.filename2 if replace else err.filename
    why = err.strerror or type(err).__name__
    if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why += " (a read-only or immutable file or folder?)"
    elif err.errno == errno.EBUSY:
        why += " (a file that is a mount point?)"
    verb = "replace" if replace else "write"
    return f"cannot {verb} {where}: {why}" if where else f"file operation failed: {why}"


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


if __name__ == "__main__":
    sys.exit(main())
