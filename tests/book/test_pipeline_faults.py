"""Fault injection: SIGTERM and SIGKILL at several points of a chapter's regeneration.

Each test copies the cheapest chapter (ch01, a few seconds) and its committed records into
a temporary git repository, runs ``kperc_book.reproduce`` there in a subprocess, kills it
at a chosen point and then checks that ``git status`` is clean and that nothing was left
under ``book/``. SIGTERM must behave like Ctrl-C (clean-up runs, nothing is left in
``_build/reproduce``); SIGKILL cannot be handled, so what it leaves in ``_build/reproduce``
must be removed by the next start (:func:`kperc_book.reproduce.recover`). The commit of
each step is covered with a tiny fake chapter in ``test_pipeline_commit.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kperc_book import paths
from kperc_book import reproduce as rp

pytestmark = pytest.mark.slow

TOC = "format: jb-book\nroot: book/index\nchapters:\n  - file: book/ch01_introduction\n"

#: Runs ``reproduce ch01`` in the repository given as argv[1]. With a fault point in
#: argv[2], the process signals itself at that point of the commit phase.
DRIVER = """
import os, signal, sys
from pathlib import Path
from kperc_book import reproduce as rp

repo, fault = sys.argv[1], sys.argv[2]
if fault.startswith("commit-"):
    sig = getattr(signal, fault.split("-", 1)[1])
    real = rp._move_into_place

    def once(src, dst):
        real(src, dst)
        if "_build" not in Path(dst).parts:  # a rename into book/, past the commit point
            os.kill(os.getpid(), sig)

    rp._move_into_place = once
try:
    rp.reproduce(["ch01"], root=repo, update_report=False, out=sys.stdout)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory):
    """A git repository holding ch01 as this environment regenerates it.

    ch01, its records and figures are copied from the checkout, regenerated once (so that
    a regeneration reproduces them byte for byte here) and committed.
    """
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("base")
    src = paths.BOOK_DIR
    nb = next(src.glob("ch01_*.ipynb"))
    book = repo / "book"
    (book / "_generated").mkdir(parents=True)
    (book / "figures").mkdir()
    shutil.copy2(nb, book / nb.name)
    shutil.copy2(src / "_generated" / "ch01.json", book / "_generated" / "ch01.json")
    for fig in src.glob("figures/ch01-*.png"):
        shutil.copy2(fig, book / "figures" / fig.name)
    (book / "index.md").write_text("# Index\n")
    (repo / "_toc.yml").write_text(TOC)
    (repo / ".gitignore").write_text("_build/\n")
    proc = _start(repo)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return repo


@pytest.fixture
def repo(base_repo, tmp_path):
    dst = tmp_path / "repo"
    shutil.copytree(base_repo, dst, ignore=shutil.ignore_patterns("_build"))
    return dst


def _start(repo: Path, fault: str = "none") -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(repo), fault],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for(cond, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    t_end = time.monotonic() + timeout
    while not cond():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before the fault point: {proc.stdout.read()}")
        if time.monotonic() > t_end:
            proc.kill()
            raise AssertionError("the fault point was never reached")
        time.sleep(0.05)


def _staged_record(repo: Path):
    return lambda: any((repo / "_build" / "reproduce").glob("*.stage/_generated/ch01.json"))


def _kernel_started(repo: Path):
    return lambda: any((repo / "_build" / "reproduce").glob("*.in.ipynb"))


def _assert_untouched(repo: Path) -> None:
    status = _git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored", "book")
    assert status == "", f"book/ changed or holds leftovers:\n{status}"
    assert _git(repo, "status", "--porcelain") == ""


def _build_files(repo: Path) -> list[str]:
    d = repo / "_build" / "reproduce"
    return sorted(p.name for p in d.iterdir() if p.name != rp.LOCK) if d.is_dir() else []


def _next_start(repo: Path) -> None:
    """What any later reproduce command does first: finish or discard, then clean."""
    with rp.repo_lock(repo):
        rp.recover(repo)


@pytest.mark.parametrize("point", ["kernel-started", "record-staged"])
def test_sigterm_mid_run_changes_nothing_and_cleans_up(repo, point):
    proc = _start(repo)
    _wait_for(_kernel_started(repo) if point == "kernel-started" else _staged_record(repo), proc)
    os.kill(proc.pid, signal.SIGTERM)  # as `kill PID` does
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "interrupted" in out
    _assert_untouched(repo)
    assert _build_files(repo) == []


@pytest.mark.parametrize("point", ["kernel-started", "record-staged"])
def test_sigkill_mid_run_changes_nothing_and_next_run_cleans_up(repo, point):
    proc = _start(repo)
    _wait_for(_kernel_started(repo) if point == "kernel-started" else _staged_record(repo), proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    time.sleep(2.0)  # the orphaned kernel notices its parent is gone within about 1 s
    _assert_untouched(repo)
    assert _build_files(repo), "expected SIGKILL to leave temporary files to clean"
    _next_start(repo)
    _assert_untouched(repo)
    assert _build_files(repo) == []


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_signal_while_moving_records_into_place(repo, sig):
    """The commit phase holds SIGTERM until it ends; after SIGKILL there the next start
    completes the commit (the regenerated files are the committed ones, byte for byte)."""
    proc = _start(repo, f"commit-{sig}")
    out, _ = proc.communicate(timeout=180)
    if sig == "SIGTERM":
        # deferred until every file is in place: the run completes its commit, then stops
        assert proc.returncode == 130, out
        assert _build_files(repo) == []
    else:
        assert proc.returncode == -signal.SIGKILL
        assert (repo / "_build" / "reproduce" / rp.JOURNAL).exists()
        _next_start(repo)
        assert _build_files(repo) == []
    # regenerated files are byte-identical to the committed ones; only the run record
    # (part of the commit) changed: its entry for ch01 is the new run's
    status = _git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored", "book")
    assert status == " M book/_generated/runs.json\n", status
    old = json.loads(_git(repo, "show", "HEAD:book/_generated/runs.json"))
    new = json.loads((repo / "book" / "_generated" / "runs.json").read_text())
    key = next(iter(new["chapters"]))
    assert new["chapters"][key]["finished_utc"] >= old["chapters"][key]["finished_utc"]
    assert new["chapters"][key]["blas"]
