"""Crash-safe file operations shared by the book tools.

* :func:`atomic_write` replaces a file by writing a uniquely named temporary sibling,
  flushing it to disk and renaming it over the target: a reader sees the old or the new
  content, never a mixture, and a failed write (disk full, read-only folder, a signal)
  removes its temporary file before the error propagates.
* :func:`locked` holds an exclusive ``fcntl.flock`` on a lock file, so that processes
  which read, modify and write the same records take turns (re-entrant within a
  process).
* :func:`sweep_debris` removes the temporary files that a process killed by SIGKILL left
  behind (their names carry the dead process's id).

Temporary names have the form ``.<name>.<pid>.<random>.tmp``.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_write", "tmp_name", "locked", "LockBusy", "sweep_debris", "pid_alive"]

#: Temporary names of :func:`tmp_name`, and the ``.<name>.<pid>.tmp`` of earlier versions.
_TMP = re.compile(r"^\..+\.(\d+)(\.[0-9a-f]{8})?\.tmp$")


def tmp_name(path: Path | str) -> Path:
    """A fresh temporary sibling of ``path`` that names this process.

    Examples
    --------
    >>> import os
    >>> p = tmp_name("/books/runs.json")
    >>> p.parent.as_posix(), p.name.startswith(f".runs.json.{os.getpid()}."), p.suffix
    ('/books', True, '.tmp')
    >>> tmp_name("/a/b") != tmp_name("/a/b")
    True
    """
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory descriptors
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on directories
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path | str, data: bytes | str, *, durable: bool = True) -> Path:
    """Replace ``path`` by ``data`` atomically; on any error leave ``path`` and no debris.

    Parameters
    ----------
    path : path
        The file to write; its folder must exist.
    data : bytes or str
        New content (``str`` is written as UTF-8).
    durable : bool
        Flush the file and its folder to disk (``fsync``) so that the rename survives a
        power cut, not only a killed process.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = atomic_write(d / "a.txt", "one")
    >>> _ = atomic_write(d / "a.txt", b"two")
    >>> (d / "a.txt").read_text(), sorted(p.name for p in d.iterdir())
    ('two', ['a.txt'])
    """
    path = Path(path)
    blob = data.encode() if isinstance(data, str) else bytes(data)
    tmp = tmp_name(path)
    try:
        with open(tmp, "xb") as fh:
            fh.write(blob)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    if durable:
        _fsync_dir(path.parent)
    return path


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (ours included)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_debris(folder: Path | str) -> list[Path]:
    """Remove temporary files of dead processes from ``folder`` (not recursive).

    Only names made by :func:`tmp_name` are considered, and only those whose process is
    gone. Returns the files removed.
    """
    folder = Path(folder)
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for p in entries:
        m = _TMP.match(p.name)
        if m and not pid_alive(int(m.group(1))):
            try:
                p.unlink()
            except IsADirectoryError:
                continue
            except OSError:
                continue
            removed.append(p)
    return removed


class LockBusy(RuntimeError):
    """The lock is held by another process and waiting was not allowed."""


_held: dict[str, int] = {}
_held_guard = threading.Lock()


@contextmanager
def locked(lock_path: Path | str, *, wait: bool = True, on_wait=None) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``lock_path`` for the block.

    Parameters
    ----------
    lock_path : path
        The lock file (created if needed; its folder must exist). Its content is the id
        of the process that holds it, for messages only: the lock itself is the
        ``flock``, which the kernel releases when the holder dies, even by SIGKILL.
    wait : bool
        Block until the lock is free; otherwise raise :class:`LockBusy`.
    on_wait : callable, optional
        Called once with the holder's process id (as text) before blocking.

    The lock is re-entrant within a process: a nested ``locked`` on the same file
    returns at once.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> lock = pathlib.Path(tempfile.mkdtemp()) / "lock"
    >>> with locked(lock):
    ...     with locked(lock):
    ...         print("held")
    held
    """
    import fcntl

    key = os.path.realpath(lock_path)
    with _held_guard:
        if key in _held:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            if not wait:
                raise LockBusy(f"{lock_path} is held by process {holder}") from None
            if on_wait is not None:
                on_wait(holder)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        with _held_guard:
            _held[key] = 1
        try:
            yield
        finally:
            with _held_guard:
                del _held[key]
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the flock
