"""Fault injection at every step of a chapter's commit, with a tiny fake chapter.

A temporary repository holds two fake chapters whose notebook writes one record and two
figures (through the staging folder, as :class:`kperc_book.chapter.Chapter` does), each
stamped with the value of its parameter ``tag``. A run with ``-p tag new`` over a book
made with ``tag old`` is stopped at each step of its commit, enumerated by counting the
calls of :func:`kperc_book.reproduce._step` (the journal write, each rename, the page,
the journal's removal), by SIGKILL, SIGTERM and SIGINT (sent from another thread, as
the OS may deliver it), by a disk that fills up at each file write, and by a read-only
folder. Every case checks that the chapter is wholly old or wholly new (notebook,
record, figures, runs.json entry, reproducibility page) with nothing left over, after
at most the next start (:func:`kperc_book.reproduce.recover`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

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
#: command line does. The fault in the environment (KPERC_FAULT) is one of
#: ``count`` (print the number of commit steps and file writes), ``SIG:k`` (send SIG at
#: the k-th commit step), ``ENOSPC:k`` (the k-th file write finds the disk full).
DRIVER = """
import errno, os, signal, sys, threading, time
from kperc_book import _fsio
from kperc_book import reproduce as rp

repo, tag, chapters = sys.argv[1], sys.argv[2], sys.argv[3:]
fault = os.environ.get("KPERC_FAULT", "none")
steps = []
writes = [0]
if fault == "count" or ":" in fault:
    kind, _, at = fault.partition(":")
    at = int(at or 0)

    def step(what, path):
        steps.append(what)
        if kind.startswith("SIG") and len(steps) == at:
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
            if kind == "ENOSPC" and writes[0] == at:
                return Full(fh, str(file))
        return fh

    _fsio.open = counting_open

overrides = {"tag": tag}
if os.environ.get("KPERC_WAIT"):
    overrides["wait"] = os.environ["KPERC_WAIT"]
code = rp.guarded(
    lambda: rp.reproduce(chapters, overrides=overrides, root=repo, out=sys.stdout)
)
if fault == "count":
    print("COUNT", len(steps), writes[0], ",".join(steps))
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


def _driver(repo: Path, tag: str, chapters=("ch01",), fault="none", **kw) -> subprocess.Popen:
    env = dict(os.environ, KPERC_FAULT=fault)
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(repo), tag, *chapters],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kw,
    )


def _run(repo: Path, tag: str, chapters=("ch01",), fault="none", timeout=120):
    proc = _driver(repo, tag, chapters, fault)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A book whose two fake chapters were regenerated with ``tag = 'old'``."""
    repo = tmp_path_factory.mktemp("fake")
    (repo / "_toc.yml").write_text(TOC)
    book = repo / "book"
    book.mkdir()
    (book / "index.md").write_text("# Index\n")
    nbformat.write(_notebook("ch01"), book / "ch01_alpha.ipynb")
    nbformat.write(_notebook("ch02"), book / "ch02_beta.ipynb")
    code, out, err = _run(repo, "old", ("ch01", "ch02"))
    assert code == 0, err
    return repo


@pytest.fixture
def repo(base, tmp_path):
    dst = tmp_path / "repo"
    shutil.copytree(base, dst)
    return dst


@pytest.fixture(scope="module")
def steps(base, tmp_path_factory):
    """(commit steps, file writes) of one run of ch01, counted by the driver."""
    dst = tmp_path_factory.mktemp("count") / "repo"
    shutil.copytree(base, dst)
    code, out, err = _run(dst, "new", fault="count")
    assert code == 0, err
    line = next(s for s in out.splitlines() if s.startswith("COUNT"))
    _, n_steps, n_writes, names = line.split()
    names = names.split(",")
    # what a commit consists of: the run, the journal, one rename per file, the page
    assert names[:2] == ["executed", "journal"] and names[-2:] == ["report", "journal-removed"]
    assert names.count("move") == 5  # record, two figures, runs.json, notebook
    return int(n_steps), int(n_writes)


def _tag_of_notebook(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    return text.split("tag", 1)[1].strip()


def _state(repo: Path, key: str = "ch01", stem: str = "ch01_alpha") -> set[str]:
    """The tags found in every file that belongs to chapter ``key``."""
    book = repo / "book"
    tags = {
        "notebook": _tag_of_notebook(book / f"{stem}.ipynb"),
        "record": json.loads((book / "_generated" / f"{key}.json").read_text())["tag"],
        "runs": json.loads((book / "_generated" / "runs.json").read_text())["chapters"][stem][
            "parameters"
        ]["tag"],
    }
    for name in ("a", "b"):
        tags[f"figure {name}"] = (book / "figures" / f"{key}-{name}.png").read_text().split()[1]
    page = (book / "reproducibility.md").read_text()
    lines = page.splitlines()
    i = next(i for i, s in enumerate(lines) if f"{stem}`: preset" in s)
    params = lines[i + 1]
    tags["page"] = m.group(1) if (m := re.search(r"tag='(\w+)'", params)) else "?"
    return tags


def _files(repo: Path) -> list[str]:
    """Every file of book/ and _build/ except the lock file."""
    return sorted(
        p.relative_to(repo).as_posix()
        for p in repo.rglob("*")
        if p.is_file() and p.name != rp.LOCK and p.parts[len(repo.parts)] in ("book", "_build")
    )


def _assert_whole(repo: Path, expected: list[str], tag: str | None = None) -> str:
    """The chapter is wholly old or wholly new and nothing is left over; returns the tag."""
    state = _state(repo)
    assert len(set(state.values())) == 1, f"half-updated chapter: {state}"
    if tag is not None:
        assert set(state.values()) == {tag}, state
    assert _files(repo) == expected, "leftovers or missing files"
    return next(iter(state.values()))


def _recover(repo: Path) -> None:
    """What the next start of reproduce does first."""
    with rp.repo_lock(repo):
        rp.recover(repo)


@pytest.mark.slow  # 8 runs of a fake chapter per signal: 30 s to 3 min, with the load
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_signal_at_every_step_of_the_commit_leaves_old_or_new(base, steps, tmp_path, sig):
    expected = _files(base)
    n_steps, _ = steps
    for k in range(1, n_steps + 1):
        repo = tmp_path / f"repo{k}"
        shutil.copytree(base, repo)
        code, out, err = _run(repo, "new", fault=f"{sig}:{k}")
        if sig == "SIGKILL":
            assert code == -signal.SIGKILL, (k, err)
            _recover(repo)
            # before the journal (step 2) nothing was committed; after it, everything is
            _assert_whole(repo, expected, "old" if k <= 2 else "new")
        else:
            # the run stops at once before the commit, or finishes the commit first
            assert code == 130, (k, err)
            assert err.count("\n") == 1 and err.startswith("interrupted: "), err
            if k == 1:
                assert "ch01_alpha.ipynb and its records left untouched" in err
            else:
                assert "ch01_alpha updated completely" in err
            # whole right away (no recovery needed), and recovery changes nothing
            _assert_whole(repo, expected, "old" if k == 1 else "new")
            _recover(repo)
            _assert_whole(repo, expected, "old" if k == 1 else "new")


def test_the_issue_reproducer_sigterm_from_a_thread_after_the_notebook_moved(repo):
    """The reproducer of the issue: SIGTERM sent by another thread right after the
    notebook is renamed into place, while the other files are still being moved."""
    expected = _files(repo)
    script = f"""
import os, signal, sys, threading, time
from kperc_book import reproduce as rp
real = rp._move_into_place
def move(src, dst):
    real(src, dst)
    if str(dst).endswith(".ipynb"):
        t = threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGTERM))
        t.start(); t.join(); time.sleep(0.1)
rp._move_into_place = move
sys.exit(rp.guarded(lambda: rp.reproduce(["ch01"], overrides={{"tag": "new"}},
                                        root={str(repo)!r})))
"""
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.count("\n") == 1
    _assert_whole(repo, expected, "new")


def test_a_full_disk_at_every_file_write_leaves_old_or_new(base, steps, tmp_path):
    expected = _files(base)
    _, n_writes = steps
    seen = set()
    for k in range(1, n_writes + 1):
        repo = tmp_path / f"repo{k}"
        shutil.copytree(base, repo)
        code, out, err = _run(repo, "new", fault=f"ENOSPC:{k}")
        assert code == 1, (k, err)
        assert err.count("\n") == 1, err
        assert "No space left on device" in err, err
        assert "Traceback" not in err
        if err.startswith("error: "):  # refused before the commit point
            assert "book/ was left untouched" in err
            _assert_whole(repo, expected, "old")
            seen.add("old")
        else:  # the page could not be written after the commit point: the chapter is new
            assert err.startswith("FAILED: ") and "the next" in err, err
            assert _state(repo)["notebook"] == "new"
            _recover(repo)
            _assert_whole(repo, expected, "new")
            seen.add("new")
    assert seen == {"old", "new"}


def _make_read_only(folder: Path):
    """A read-only folder: chmod for a normal user, a read-only bind mount for root."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return lambda: folder.chmod(0o755)
    if shutil.which("mount") is None:
        pytest.skip("root without mount(8): cannot make a folder read-only")
    try:
        subprocess.run(
            ["mount", "--bind", str(folder), str(folder)], check=True, capture_output=True
        )
    except subprocess.CalledProcessError:
        pytest.skip("root may not bind-mount here: cannot make a folder read-only")
    subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True, capture_output=True)
    return lambda: subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("sub", ["figures", "_generated", "."])
def test_a_read_only_folder_is_a_one_line_error_and_book_is_untouched(repo, sub):
    expected = _files(repo)
    undo = _make_read_only((repo / "book" / sub).resolve())
    try:
        code, out, err = _run(repo, "new")
    finally:
        undo()
    assert code == 1, err
    assert err.count("\n") == 1 and err.startswith("error: cannot write "), err
    assert "book/ was left untouched" in err and "read-only" in err.lower()
    _assert_whole(repo, expected, "old")


def test_read_only_files_are_replaced_whole(repo):
    expected = _files(repo)
    for p in (repo / "book").rglob("*"):
        if p.is_file():
            p.chmod(0o444)
    code, out, err = _run(repo, "new")
    assert code == 0, err
    _assert_whole(repo, expected, "new")


def test_two_commands_at_once_both_complete(repo):
    expected = _files(repo)
    a = _driver(repo, "new", ("ch01",))
    b = _driver(repo, "new", ("ch02",))
    for proc in (a, b):
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    _assert_whole(repo, expected, "new")
    assert set(_state(repo, "ch02", "ch02_beta").values()) == {"new"}
    # the same chapter twice: one waits for the other; the last one's files win, whole
    a = _driver(repo, "one", ("ch01",))
    time.sleep(0.3)
    b = _driver(repo, "two", ("ch01",))
    errs = []
    for proc in (a, b):
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        errs.append(err)
    assert _assert_whole(repo, expected) in ("one", "two")


RECORDER = """
import sys
from pathlib import Path
from kperc_book import reproduce as rp
repo, prefix, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
runs = repo / "book" / "_generated" / "runs.json"
for i in range(n):
    res = rp.RunResult(repo / "book" / f"{prefix}{i}.ipynb", {"i": i}, {}, "default", 0.1)
    rp.record_run(res, runs, repo)
"""


def test_concurrent_run_records_lose_nothing(tmp_path):
    (tmp_path / "book" / "_generated").mkdir(parents=True)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RECORDER, str(tmp_path), prefix, "150"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for prefix in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and err == "", err
    runs = json.loads((tmp_path / "book" / "_generated" / "runs.json").read_text())
    assert sorted(runs["chapters"]) == sorted(f"{p}{i}" for p in "ab" for i in range(150))
    assert all(e["parameters"]["i"] == int(k[1:]) for k, e in runs["chapters"].items())
    leftovers = [p.name for p in (tmp_path / "book" / "_generated").iterdir()]
    assert leftovers == ["runs.json"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["group-SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_mid_run_prints_one_line(repo, how):
    """Ctrl-C reaches the whole process group; the kernel's own output must not show."""
    expected = _files(repo)
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", DRIVER, str(repo), "new", "ch01"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, KPERC_FAULT="none", KPERC_WAIT="30.0"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        build = repo / "_build" / "reproduce"
        while not any(build.glob("*.kernel.log")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # the kernel is up and running a cell
        if how == "group-SIGINT":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        time.sleep(1.5)  # an orphaned kernel would print its traceback by now
        assert proc.returncode == 130, err
        assert err.count("\n") == 1 and err.startswith("interrupted: "), err
        _assert_whole(repo, expected, "old")


def test_the_next_start_removes_debris_of_dead_runs(tmp_path):
    """Temporary files that killed runs (of this and earlier versions) left in book/."""
    book = tmp_path / "book"
    for sub in ("_generated", "figures"):
        (book / sub).mkdir(parents=True)
    dead = 2**22 + 12345  # above the default pid_max: no such process
    debris = [
        book / "_generated" / f".ch01.json.{dead}.0a1b2c3d.tmp",
        book / "_generated" / f".ch01.json.{dead}.tmp",
        book / "figures" / f".ch01-a.png.{dead}.tmp",
        book / "_generated" / "runs.json.tmp",
        book / "reproducibility.md.tmp",
        tmp_path / "_build" / "reproduce" / f"ch01_alpha.{dead}.stage" / "x",
        tmp_path / "_build" / "reproduce" / f".journal.json.{dead}.00ff00ff.tmp",
    ]
    live = [
        book / "_generated" / f".ch02.json.{os.getpid()}.0a1b2c3d.tmp",
        book / "_generated" / "ch01.json",
        book / "figures" / ".keep",
    ]
    for p in debris + live:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    _recover(tmp_path)
    assert [p for p in debris if p.exists()] == []
    assert all(p.exists() for p in live)
    assert not (tmp_path / "_build" / "reproduce" / f"ch01_alpha.{dead}.stage").exists()


def test_papermill_log_records_go_to_the_kernel_log_not_stderr(tmp_path, capfd):
    """nbclient logs "Kernel died while waiting for execute reply." through papermill's
    logger, which has no handler: without one, the record reached stderr and the command
    printed two lines after a signal."""
    import logging

    from kperc_book import reproduce as rp

    log = tmp_path / "ch01.kernel.log"
    with rp._papermill_logs_to(log):
        logging.getLogger("papermill").error("Kernel died while waiting for execute reply.")
    assert capfd.readouterr().err == ""
    assert "Kernel died while waiting for execute reply." in log.read_text()
    assert not logging.getLogger("papermill").handlers  # nothing left behind


def test_an_interrupted_command_silences_the_dead_kernels_late_records(capfd):
    """After the one "interrupted:" line, asyncio's "Task exception was never retrieved"
    for the killed kernel's execute task must not reach stderr."""
    import logging

    from kperc_book import reproduce as rp

    loggers = [logging.getLogger(n) for n in ("asyncio", "papermill", "traitlets")]
    saved = [lg.disabled for lg in loggers]
    try:

        def run():
            raise KeyboardInterrupt

        assert rp.guarded(run) == 130
        logging.getLogger("asyncio").error("Task exception was never retrieved")
        assert capfd.readouterr().err == "interrupted: nothing changed\n"
    finally:
        for lg, was in zip(loggers, saved, strict=True):
            lg.disabled = was
