"""Faults at every step of writing a chapter into ``book/``, with a tiny fake chapter.

A temporary git repository holds two fake chapters whose notebook writes one record and
two figures (through the staging folder, as :class:`kperc_book.chapter.Chapter` does),
each stamped with the value of its parameter ``tag``; the book made with ``tag old`` is
committed. A run with ``-p tag new`` is stopped at each step of its write, enumerated by
counting the calls of :func:`kperc_book.reproduce._step` (the run, then per file the
proof that its target can be replaced and its copy beside it, then one replace per
file), by SIGKILL, SIGTERM and SIGINT (sent from another thread, as the OS may deliver
it; ``make unit`` sends each signal at a fixed subset of the steps that still meets every
step, ``make test-thorough`` at all of them), and by a disk that fills up at each file
write. git is the journal: after each fault the chapter is wholly old or wholly new, or
the next run prints the ``git restore`` command that makes it wholly old again, and
nothing else git tracks changed.
A read-only folder and a target that cannot be replaced (an immutable file, a file that
is a mount point) fail before anything changes; two commands at once take turns.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from kperc_book import paths
from kperc_book import reproduce as rp

TOC = """\
format: jb-book
root: book/index
chapters:
  - file: book/ch01_alpha
  - file: book/ch02_beta
  - file: book/reproducibility
"""

CELL = """\
import os, pathlib, json, time
time.sleep(wait)
stage = pathlib.Path(os.environ["KPERC_BOOK_STAGING"])
key = "{key}"
(stage / "_generated").mkdir(parents=True, exist_ok=True)
(stage / "figures").mkdir(parents=True, exist_ok=True)
rec = {{"chapter": key, "checks": {{}}, "datasets": {{}}, "figures": {{}}, "tag": tag}}
(stage / "_generated" / f"{{key}}.json").write_text(json.dumps(rec))
for name in ("a", "b"):
    (stage / "figures" / f"{{key}}-{{name}}.png").write_text(f"{{name}} {{tag}}")
print("tag", tag)
"""

#: Runs ``reproduce`` in argv[1] on the chapters of argv[3:] (with -p tag argv[2]) as the
#: command line does. The fault in the environment (KPERC_FAULT) is one of ``count``
#: (print the steps of the write and the number of file writes), ``SIG:k`` (send SIG at
#: the k-th step), ``ENOSPC:k`` (the k-th file write finds the disk full) or
#: ``EBUSY:name`` (renaming onto the file ``name`` fails, as for a bind-mounted file).
DRIVER = """
import errno, os, signal, sys, threading, time
from kperc_book import _fsio
from kperc_book import reproduce as rp

repo, tag, chapters = sys.argv[1], sys.argv[2], sys.argv[3:]
fault = os.environ.get("KPERC_FAULT", "none")
kind, _, at = fault.partition(":")
steps = []
writes = [0]


def step(what, path):
    steps.append(what)
    if kind.startswith("SIG") and len(steps) == int(at):
        sig = getattr(signal, kind)
        if sig == signal.SIGKILL:
            os.kill(os.getpid(), sig)
        t = threading.Thread(target=os.kill, args=(os.getpid(), sig))
        t.start()
        t.join()
        time.sleep(0.1)


rp._step = step
real_open = open


class Full:
    def __init__(self, fh, name):
        self.fh, self.name = fh, name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def write(self, blob):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.name)


def counting_open(file, mode="r", *args, **kw):
    fh = real_open(file, mode, *args, **kw)
    if "x" in mode:
        writes[0] += 1
        if kind == "ENOSPC" and writes[0] == int(at):
            return Full(fh, str(file))
    return fh


_fsio.open = counting_open
if kind == "EBUSY":
    real_replace = os.replace

    def replace(src, dst, **kw):
        if os.path.basename(dst) == at:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(src), None, str(dst))
        return real_replace(src, dst, **kw)

    rp.os.replace = replace

overrides = {"tag": tag}
if os.environ.get("KPERC_WAIT"):
    overrides["wait"] = os.environ["KPERC_WAIT"]
code = rp.guarded(lambda: rp.reproduce(chapters, overrides=overrides, root=repo, out=sys.stdout))
if fault == "count":
    print("COUNT", writes[0], ",".join(steps))
sys.exit(code)
"""


def _notebook(key: str):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("tag = 'old'\nwait = 0.0")
    p.metadata["tags"] = ["parameters"]
    nb.cells = [p, nbformat.v4.new_code_cell(CELL.format(key=key))]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _driver(repo: Path, tag: str, chapters=("ch01",), fault="none", **env) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(repo), tag, *chapters],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, KPERC_FAULT=fault, **env),
    )


def _run(repo: Path, tag: str, chapters=("ch01",), fault="none", timeout=120):
    proc = _driver(repo, tag, chapters, fault)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def _git(repo: Path, *args: str) -> str:
    res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A git repository whose two fake chapters were made with ``tag = 'old'``."""
    repo = tmp_path_factory.mktemp("fake")
    (repo / "_toc.yml").write_text(TOC)
    (repo / ".gitignore").write_text("_build/\n*.tmp\n")
    book = repo / "book"
    book.mkdir()
    (book / "index.md").write_text("# Index\n")
    nbformat.write(_notebook("ch01"), book / "ch01_alpha.ipynb")
    nbformat.write(_notebook("ch02"), book / "ch02_beta.ipynb")
    code, out, err = _run(repo, "old", ("ch01", "ch02"))
    assert code == 0, err
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "old")
    return repo


@pytest.fixture
def repo(base, tmp_path):
    dst = tmp_path / "repo"
    shutil.copytree(base, dst)
    return dst


@pytest.fixture(scope="module")
def steps(base, tmp_path_factory):
    """(steps of one run of ch01 with a new tag, file writes), counted by the driver."""
    dst = tmp_path_factory.mktemp("count") / "repo"
    shutil.copytree(base, dst)
    code, out, err = _run(dst, "new", fault="count")
    assert code == 0, err
    _, n_writes, names = next(s for s in out.splitlines() if s.startswith("COUNT")).split()
    names = names.split(",")
    # the run, then per file (record, two figures, notebook) a proof and a copy, then the
    # four replaces
    assert names == ["executed", *["probe", "copy"] * 4, *["replace"] * 4], names
    return names, int(n_writes)


def _tag_of_notebook(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    return text.split("tag", 1)[1].strip()


def _state(repo: Path, key: str = "ch01", stem: str = "ch01_alpha") -> dict[str, str]:
    """The tag found in every file that belongs to chapter ``key``."""
    book = repo / "book"
    tags = {
        "notebook": _tag_of_notebook(book / f"{stem}.ipynb"),
        "record": json.loads((book / "_generated" / f"{key}.json").read_text())["tag"],
    }
    for name in ("a", "b"):
        tags[f"figure {name}"] = (book / "figures" / f"{key}-{name}.png").read_text().split()[1]
    return tags


def _whole(repo: Path) -> str | None:
    """The chapter's tag if all its files agree, else None (half updated)."""
    tags = set(_state(repo).values())
    return tags.pop() if len(tags) == 1 else None


def _changed(repo: Path) -> set[str]:
    """What git reports changed or new (ignored files aside)."""
    return {line[3:] for line in _git(repo, "status", "--porcelain").splitlines()}


CH01 = {"book/ch01_alpha.ipynb", "book/_generated/ch01.json"} | {
    f"book/figures/ch01-{n}.png" for n in "ab"
}


def _check_after_fault(repo: Path, code: int, err: str) -> None:
    """Old, new, or restored to old by the command the next run prints."""
    # nothing that belongs to another chapter or to git changed, whatever happened
    assert _changed(repo) <= CH01 | {"book/reproducibility.md"}, _changed(repo)
    if code == 0:
        assert _whole(repo) == "new"
        return
    assert err.count("\n") <= 1 or code == -9, err  # one line (SIGKILL prints nothing)
    if _whole(repo) == "old":
        assert not (repo / "_build" / "reproduce" / "ch01.writing").exists() or code == -9
        return
    # half updated: the next run (of another chapter) says how to restore it
    nxt, out, err2 = _run(repo, "old", ("ch02",))
    assert nxt == 0, err2
    m = re.search(r"`(git restore [^`]+)`", out)
    assert m and "ch01_alpha.ipynb" in out, out
    subprocess.run(shlex.split(m.group(1)), cwd=repo, check=True)
    assert _whole(repo) == "old"
    assert _changed(repo) <= {"book/reproducibility.md"}
    again, out, _ = _run(repo, "old", ("ch02",))  # restored: no note any more
    assert again == 0 and "git restore" not in out


def _no_debris(repo: Path) -> None:
    book = [p.name for p in (repo / "book").rglob(".*.tmp")]
    build = [p.name for p in (repo / "_build" / "reproduce").iterdir() if p.is_dir()]
    assert book == [] and build == [], (book, build)


SIGNALS = ("SIGKILL", "SIGTERM", "SIGINT")
#: ``make test-thorough`` (``KPERC_THOROUGH=1``) sends every signal at every step.
THOROUGH = os.environ.get("KPERC_THOROUGH") == "1"


def signal_steps(names: list[str], sig: str, thorough: bool = THOROUGH) -> list[int]:
    """The steps (counted from 1) at which the sweep sends ``sig``.

    Thorough: all of them. Otherwise a fixed subset, the same in every run: under every
    signal the run, the last copy and every replace (the steps that can leave the chapter
    half updated); each probe and copy in between under one signal, in turn, so every step
    still meets a signal (25 of the 39 runs of the full sweep).
    """
    every = range(1, len(names) + 1)
    if thorough:
        return list(every)
    last_copy = names.index("replace")  # the step before the first replace
    turn = SIGNALS.index(sig)
    return [k for k in every if k == 1 or k >= last_copy or k % len(SIGNALS) == turn]


def test_the_sampled_sweep_still_meets_every_step():
    names = ["executed", *["probe", "copy"] * 4, *["replace"] * 4]
    sampled = {sig: signal_steps(names, sig, thorough=False) for sig in SIGNALS}
    assert sampled == {
        "SIGKILL": [1, 3, 6, 9, 10, 11, 12, 13],
        "SIGTERM": [1, 4, 7, 9, 10, 11, 12, 13],
        "SIGINT": [1, 2, 5, 8, 9, 10, 11, 12, 13],
    }
    assert set().union(*sampled.values()) == set(range(1, 14))
    assert all(signal_steps(names, sig, thorough=True) == list(range(1, 14)) for sig in SIGNALS)


@pytest.mark.slow  # one run of a fake chapter per step and signal: a minute or two
@pytest.mark.parametrize("sig", SIGNALS)
def test_a_signal_at_every_step_of_the_write_loses_nothing(base, steps, tmp_path, sig):
    names, _ = steps
    for k in signal_steps(names, sig):
        repo = tmp_path / f"r{k}"
        shutil.copytree(base, repo)
        code, _, err = _run(repo, "new", fault=f"{sig}:{k}")
        assert code in (0, 130, -9), (k, names[k - 1], code, err)
        if sig != "SIGKILL" and code == 130:
            assert err.startswith("interrupted: "), err
            half = _whole(repo) is None
            assert ("may be half updated" in err) == half, (k, err)
        _check_after_fault(repo, code, err)
        if code == -9:  # SIGKILL cannot be handled: the next start clears what it left
            _run(repo, "old", ("ch02",))
        _no_debris(repo)


@pytest.mark.slow  # one run of a fake chapter per file write
def test_a_full_disk_at_every_file_write_changes_nothing(base, steps, tmp_path):
    _, n_writes = steps
    for k in range(1, n_writes + 1):
        repo = tmp_path / f"r{k}"
        shutil.copytree(base, repo)
        code, _, err = _run(repo, "new", fault=f"ENOSPC:{k}")
        if code == 0:  # the write of the run log, after the chapter
            assert _whole(repo) == "new" and err.startswith("note: ch01_alpha.ipynb was written")
            continue
        assert code == 1 and err.count("\n") == 1, (k, err)
        if "and its records were written, but" in err:  # the page, after the chapter
            assert "No space left on device" in err and "still describes the earlier run" in err
            assert _whole(repo) == "new"
            continue
        assert "No space left on device" in err and "book/ is unchanged" in err, err
        assert _whole(repo) == "old" and _changed(repo) == set()
        _no_debris(repo)


def test_an_unreplaceable_notebook_fails_before_anything_changes(repo):
    """A notebook that is a mount point (EBUSY on rename): one true line, no change."""
    code, _, err = _run(repo, "new", fault="EBUSY:ch01_alpha.ipynb")
    assert code == 1, err
    assert err.startswith("FAILED: ch01_alpha.ipynb: cannot replace ") and err.count("\n") == 1
    assert "a file that is a mount point?" in err and "book/ is unchanged" in err
    assert _whole(repo) == "old" and _changed(repo) == set()
    _no_debris(repo)
    assert not (repo / "_build" / "reproduce" / "ch01.writing").exists()


def test_an_immutable_notebook_fails_before_anything_changes(repo):
    """``chattr +i`` (as root, on a file system that has the flag)."""
    nb = repo / "book" / "ch01_alpha.ipynb"
    if shutil.which("chattr") is None or os.geteuid() != 0:
        pytest.skip("needs chattr and root")
    if subprocess.run(["chattr", "+i", str(nb)], capture_output=True).returncode:
        pytest.skip("this file system has no immutable flag")
    try:
        code, _, err = _run(repo, "new")
    finally:
        subprocess.run(["chattr", "-i", str(nb)], check=True)
    assert code == 1 and err.count("\n") == 1, err
    assert "FAILED: ch01_alpha.ipynb: cannot replace " in err and "book/ is unchanged" in err
    assert _whole(repo) == "old" and _changed(repo) == set()


def _make_read_only(folder: Path):
    mode = folder.stat().st_mode
    folder.chmod(0o555)
    return mode


@pytest.mark.parametrize("sub", ["figures", "_generated", "."])
def test_a_read_only_folder_is_a_one_line_error_and_book_is_untouched(repo, sub):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = repo / "book" / sub
    mode = _make_read_only(folder)
    try:
        code, _, err = _run(repo, "new")
    finally:
        folder.chmod(mode)
    assert code == 1 and err.count("\n") == 1 and "Permission denied" in err, err
    assert _whole(repo) == "old" and _changed(repo) == set()


def test_read_only_files_are_replaced_whole_and_stay_read_only(repo):
    for p in (repo / "book" / "figures").iterdir():
        p.chmod(0o444)
    code, _, err = _run(repo, "new")
    assert code == 0, err
    assert _whole(repo) == "new"
    assert {p.stat().st_mode & 0o777 for p in (repo / "book" / "figures").iterdir()} == {0o444}


def test_two_commands_at_once_both_complete(repo):
    """The second waits for the first (the lock), says so, and neither loses anything."""
    first = _driver(repo, "one", ("ch01",), KPERC_WAIT="20")  # long enough to meet
    lock = paths.build_dir(repo) / "reproduce.lock"
    deadline = time.time() + 60
    work = paths.reproduce_dir(repo)
    while not any(p.is_dir() for p in work.iterdir()):  # its run folder: the lock is held
        assert time.time() < deadline and first.poll() is None, "first run did not start"
        time.sleep(0.05)
    second = _driver(repo, "two", ("ch02",))
    out1, err1 = first.communicate(timeout=120)
    out2, err2 = second.communicate(timeout=120)
    assert first.returncode == 0 and second.returncode == 0, (err1, err2)
    assert "waiting: another kperc_book.reproduce" in err2
    assert set(_state(repo).values()) == {"one"}
    assert set(_state(repo, "ch02", "ch02_beta").values()) == {"two"}
    log = json.loads(paths.runs_path(repo).read_text())["chapters"]
    assert log["ch01_alpha"]["parameters"]["tag"] == "one"
    assert log["ch02_beta"]["parameters"]["tag"] == "two"
    assert lock.exists()
    page = (repo / "book" / "reproducibility.md").read_text()
    assert "tag='one'" in page and "tag='two'" in page


def test_interrupted_write_message_names_the_restore_command(repo):
    """SIGTERM between two replaces: the one line says the chapter may be half updated
    and gives the command; the same command restores the committed chapter."""
    code, _, err = _run(repo, "new", fault="SIGTERM:11")  # after the first replace
    assert code == 130 and err.count("\n") == 1, err
    assert "ch01_alpha.ipynb was being written and may be half updated" in err
    assert _whole(repo) is None
    m = re.search(r"`(git restore [^`]+)`", err)
    subprocess.run(shlex.split(m.group(1)), cwd=repo, check=True)
    assert _whole(repo) == "old" and _changed(repo) <= {"book/reproducibility.md"}


def test_oserror_text_is_one_line():
    err = OSError(errno.EBUSY, os.strerror(errno.EBUSY), "/x/book/ch01.ipynb")
    assert rp._os_error(err) == (
        "cannot write /x/book/ch01.ipynb: Device or resource busy (a file that is a mount point?)"
    )
    err = OSError(errno.EPERM, os.strerror(errno.EPERM), "/x/.a.tmp", None, "/x/a")
    assert rp._os_error(err) == (
        "cannot replace /x/a: Operation not permitted (a read-only or immutable file or folder?)"
    )
