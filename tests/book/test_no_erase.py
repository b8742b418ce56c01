"""No command erases a committed record on an empty, partial or wrong selection.

An unset shell variable turns ``--suite "$SUITES"`` into ``--suite ""``; a smoke run
(``--quick``) or a partial selection aimed at the book's own record would replace
measurements that took minutes by a few rows. Each command that writes a committed
file refuses such a request with one line and a non-zero exit, before it measures or
writes anything.
"""

from __future__ import annotations

import pytest

from kperc_book import paths


def _committed(*names: str) -> dict[str, bytes]:
    return {n: (paths.generated_dir() / n).read_bytes() for n in names}


@pytest.fixture
def nothing_runs(monkeypatch):
    """Make any measurement fail loudly: the refusals must come before it."""
    import benchmarks.bench
    import benchmarks.peers.cli

    def boom(*a, **k):
        raise AssertionError("a refused request started measuring")

    monkeypatch.setattr(benchmarks.bench, "run", boom)
    monkeypatch.setattr(benchmarks.peers.cli, "run", boom)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--suite", ""], "names no suite"),
        (["--suite", " , "], "names no suite"),
        (["--suite", "realdata"], "add --merge to keep them"),
        (["--quick"], "by a smoke run"),
        (["--suite", "nosuch"], "unknown suite"),
    ],
)
def test_bench_refuses_a_selection_that_would_erase_its_record(nothing_runs, capsys, argv, says):
    from benchmarks import bench

    before = _committed("bench.json")
    with pytest.raises(SystemExit) as exc:
        bench.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
    assert _committed("bench.json") == before


@pytest.mark.parametrize(
    "argv, record", [(["--quick"], "peers.json"), (["--families", "--quick"], "families.json")]
)
def test_peers_refuses_a_smoke_run_over_its_record(nothing_runs, capsys, argv, record):
    from benchmarks.peers import cli

    before = _committed(record)
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert "by a smoke run" in capsys.readouterr().err
    assert _committed(record) == before


@pytest.mark.parametrize("chapters", [[""], ["nosuch"], ["ch01", ""]])
def test_reproduce_refuses_an_empty_or_unknown_chapter(capsys, chapters):
    from kperc_book import reproduce

    before = {p: p.read_bytes() for p in paths.generated_dir().glob("*.json")}
    assert reproduce.main(chapters) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown chapter") and err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in paths.generated_dir().glob("*.json")} == before
