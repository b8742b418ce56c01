"""Fault injection: SIGTERM and SIGKILL while the real ch01 runs.

Each test copies the cheapest chapter (ch01, a few seconds) and its committed records into
a temporary git repository, runs ``kperc_book.reproduce`` there in a subprocess, kills it
at a chosen point and then checks that ``git status`` is clean and that nothing was left
under ``book/``. SIGTERM must behave like Ctrl-C (clean-up runs, nothing is left in
``_build/reproduce``); SIGKILL cannot be handled, so what it leaves in ``_build/reproduce``
is removed by the next run. A kill at each step of the write into ``book/`` is tried
with a tiny fake chapter in ``test_pipeline_commit.py``.
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

#: Runs ``reproduce ch01`` in the repository given as argv[1].
DRIVER = """
import sys
from kperc_book import reproduce as rp

sys.exit(rp.guarded(lambda: rp.reproduce(["ch01"], root=sys.argv[1], out=sys.stdout)))
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
    (repo / ".gitignore").write_text("_build/\n*.tmp\n")
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


def _start(repo: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(repo)],
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
    return lambda: any((repo / "_build" / "reproduce").glob("*/stage/_generated/ch01.json"))


def _kernel_started(repo: Path):
    return lambda: any((repo / "_build" / "reproduce").glob("*/in.ipynb"))


def _assert_untouched(repo: Path) -> None:
    status = _git(repo, "status", "--porcelain", "--untracked-files=all", "--ignored", "book")
    assert status == "", f"book/ changed or holds leftovers:\n{status}"
    assert _git(repo, "status", "--porcelain") == ""


def _build_files(repo: Path) -> list[str]:
    d = repo / "_build" / "reproduce"
    return sorted(p.name for p in d.iterdir() if p.name != "runs.json") if d.is_dir() else []


def _next_start(repo: Path) -> None:
    """What any later reproduce command does first, under the lock."""
    with rp.repo_lock(repo):
        rp._clean_after_dead_runs(repo)


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


def test_an_unchanged_rerun_leaves_git_clean_and_files_untouched(repo):
    """Regenerating ch01 gives its committed bytes back, so nothing is replaced."""
    files = {p: p.stat().st_mtime_ns for p in (repo / "book").rglob("*") if p.is_file()}
    proc = _start(repo)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    _assert_untouched(repo)
    assert {p: p.stat().st_mtime_ns for p in files} == files
    log = json.loads(paths.runs_path(repo).read_text())["chapters"]["ch01_introduction"]
    assert log["blas"] and log["runtime_s"] > 0  # this machine's log, outside git
