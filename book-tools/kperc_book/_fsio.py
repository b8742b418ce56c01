"""Crash-safe file writes shared by the book tools.

:func:`atomic_write` replaces a file by writing a uniquely named temporary sibling,
flushing it to disk and renaming it over the target: a reader sees the old or the new
content, never a mixture, and a failed write (disk full, read-only folder, a signal)
removes its temporary file before the error propagates. Temporary names have the form
``.<name>.<pid>.<random>.tmp``.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write", "tmp_name", "write_new"]


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


def write_new(path: Path, blob: bytes, *, durable: bool = True, mode_of: Path | None = None):
    """Write ``blob`` to the new file ``path`` (which must not exist); on any error
    remove it and re-raise. ``mode_of`` names a file whose permission bits it gets."""
    try:
        with open(path, "xb") as fh:
            fh.write(blob)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if mode_of is not None:
            os.chmod(path, stat.S_IMODE(os.stat(mode_of).st_mode))
    except BaseException:
        try:
            path.unlink()
        except OSError:
            pass
        raise


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
    write_new(tmp, blob, durable=durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)
    return path
