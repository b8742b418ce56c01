"""The reproducibility page's tables (kperc_book.report) and the committed page."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import nbformat
import pytest

import kperc
from kperc_book import _notebooks as nbu
from kperc_book import report

ROOT = Path(__file__).resolve().parents[2]


def test_savefig_calls_literal_fstring_and_untraceable():
    src = (
        '%matplotlib inline\nch.savefig(fig, "rates")\n'
        'for k in (1, 2):\n    ch.savefig(figs[k], f"panel-{k}")\n'
        'ch.savefig(fig, name)\nfig.savefig("plain.png")\n'
    )
    patterns = nbu.savefig_calls(src)
    assert patterns == ["rates", "panel\\-.+"]


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/index\nchapters:\n  - file: book/ch04_smooth\n"
        "  - file: book/ch05_missing\n  - file: book/api\n  - file: book/reproducibility\n"
    )
    book = tmp_path / "book"
    (book / "figures").mkdir(parents=True)
    (book / "_generated").mkdir()
    (book / "index.md").write_text("# x\n")
    (book / "api.md").write_text("# api\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Ch4"),
        nbformat.v4.new_code_cell("n = 1\nkernel = 'linear'"),
        nbformat.v4.new_code_cell("n = 3\nkernel = 'rbf'"),
        nbformat.v4.new_code_cell('ch.savefig(fig, "rates")'),
        nbformat.v4.new_code_cell('for k in (1, 2):\n    ch.savefig(f, f"panel-{k}")'),
        nbformat.v4.new_markdown_cell(
            "```{glue:figure} ch04-rates\n:name: fig-ch04-rates\n:alt: rates\n\nCaption.\n```"
        ),
    ]
    nb.cells[1].metadata["tags"] = ["parameters"]
    nb.cells[2].metadata["tags"] = ["injected-parameters"]  # a run with --preset full
    nb.metadata["kperc"] = {"presets": {"full": {"n": 3, "kernel": "rbf"}}}
    nbformat.write(nb, book / "ch04_smooth.ipynb")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "constraints.txt").write_text(
        '# pins\nnumpy==2.0.0 ; python_version == "3.11"\nrequests==1.0\n'
    )
    ids = [c.id for c in nb.cells]
    pngs = {}
    for name, content in (("rates", b"png-a"), ("panel-1", b"png-b"), ("panel-2", b"png-c")):
        path = book / "figures" / f"ch04-{name}.png"
        path.write_bytes(content)
        pngs[name] = hashlib.sha256(content).hexdigest()
    # the record of panel-2 is stale: the file on disk changed after the run
    (book / "figures" / "ch04-panel-2.png").write_bytes(b"changed")
    figures = {
        f"ch04-{n}.png": {
            "file": f"figures/ch04-{n}.png",
            "sha256": h,
            "data": {"moons": "ab" * 32} if n == "rates" else {},
        }
        for n, h in pngs.items()
    }
    (book / "_generated" / "ch04.json").write_text(
        json.dumps({"chapter": "ch04", "checks": {}, "figures": figures, "datasets": {}})
    )
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "manifest.json").write_text(
        json.dumps(
            {
                "datasets": {
                    "moons": {
                        "file": "moons.npz",
                        "generator": "kperc.datasets.moons",
                        "params": {"n": 200, "seed": 0},
                        "seed": 0,
                        "shape": {"X": [200, 2], "y": [200]},
                        "sha256": "ab" * 32,
                        "provenance": "sklearn make_moons",
                    }
                }
            }
        )
    )
    return tmp_path, ids


def test_figure_rows_find_the_cell_hash_and_data(repo):
    root, ids = repo
    rows = {r["figure"]: r for r in report.figure_rows(root)}
    assert set(rows) == {
        "figures/ch04-rates.png",
        "figures/ch04-panel-1.png",
        "figures/ch04-panel-2.png",
    }
    rates = rows["figures/ch04-rates.png"]
    assert rates["notebook"] == "ch04_smooth" and rates["cells"] == [(3, ids[3])]
    assert rates["data"] == {"moons": "ab" * 32} and rates["file_matches"]
    assert rows["figures/ch04-panel-1.png"]["cells"] == [(4, ids[4])]
    assert not rows["figures/ch04-panel-2.png"]["file_matches"]


def test_chapter_rows_skip_markdown_pages_and_flag_missing(repo):
    root, _ = repo
    rows = report.chapter_rows(root)
    assert [(r["stem"], r["exists"], r["run"] is not None) for r in rows] == [
        ("ch04_smooth", True, True),
        ("ch05_missing", False, False),
    ]


def test_render_shows_runs_versions_figures_and_datasets(repo):
    root, ids = repo
    page = report.render(root)
    assert "* {doc}`ch04_smooth`: preset full\n" in page
    assert "  - parameters: `n=3, kernel='rbf'`" in page
    assert "  - command: `python -m kperc_book.reproduce ch04 --preset full`" in page
    assert "| numpy | `2.0.0` |" in page and "requests" not in page
    assert f"| kperc | `{kperc.__version__}` |" in page
    # nothing that changes from run to run or machine to machine
    for word in ("finished", "runtime", "BLAS library,", "kernel Haswell", "thread"):
        assert word not in page.split("## Commands")[1], word
    assert f"code cell 3 (id `{ids[3]}`)" in page and "moons: `" + "ab" * 32 + "`" in page
    assert "the PNG on disk differs" in page
    assert "* `ch05_missing`: not written yet" in page
    assert '* `moons`: `kperc.datasets.moons` with `{"n": 200, "seed": 0}`' in page
    assert "python -m kperc_book.reproduce --preset full" in page
    # figure names link to the figure in its chapter (when it has a label) and to the PNG
    assert "* {ref}`ch04-rates <fig-ch04-rates>` ({download}`PNG <figures/ch04-rates.png>`)" in page
    assert "* `ch04-panel-1` ({download}`PNG <figures/ch04-panel-1.png>`)" in page
    path = report.write_page(root)
    assert path.read_text() == page


def _table_columns(page: str) -> list[int]:
    """Number of columns of every Markdown table row of ``page`` (escaped bars ignored)."""
    rows = [ln for ln in page.splitlines() if ln.startswith("|")]
    return [ln.replace("\\|", "").count("|") - 1 for ln in rows]


def test_render_has_no_wide_tables(repo):
    """Wide tables scroll on a phone: the page lists runs, figures and datasets instead,
    and keeps only the two-column table of package versions."""
    root, _ = repo
    assert _table_columns(report.render(root)) and max(_table_columns(report.render(root))) <= 2
    assert max(_table_columns((ROOT / "book" / "reproducibility.md").read_text())) <= 2


def test_committed_page_is_up_to_date():
    page = ROOT / "book" / "reproducibility.md"
    assert page.exists(), "run `python -m kperc_book.report` (make does) and commit the page"
    assert page.read_text() == report.render(ROOT), (
        "book/reproducibility.md is stale: run `python -m kperc_book.report`"
    )


def test_overrides_give_the_command_with_each_value(repo):
    root, _ = repo
    path = root / "book" / "ch04_smooth.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[2].source = "n = 5"
    nbformat.write(nb, path)
    (row,) = [r for r in report.chapter_rows(root) if r["exists"]]
    assert row["run"]["command"] == "python -m kperc_book.reproduce ch04 -p n 5"
    assert row["run"]["parameters"] == {"n": 5, "kernel": "linear"}
    del nb.cells[2]
    nbformat.write(nb, path)
    (row,) = [r for r in report.chapter_rows(root) if r["exists"]]
    assert row["run"]["command"] == "python -m kperc_book.reproduce ch04"
    assert row["run"]["preset"] == "default"


BLAS_PROBE = """
import json, sys
from pathlib import Path
from kperc_book import reproduce as rp
repo = Path(sys.argv[1])
res = rp.RunResult(repo / "book" / "ch01_x.ipynb", {}, {}, "default", 0.1)
print(json.dumps(rp.record_run(res, None, repo)))
"""


@pytest.mark.parametrize(
    "env",
    [
        {"OPENBLAS_CORETYPE": "Sandybridge", "OPENBLAS_NUM_THREADS": "1"},
        {"OPENBLAS_NUM_THREADS": "2"},
    ],
    ids=["sandybridge-1", "threads-2"],
)
def test_run_records_hold_the_blas_kernel_and_threads(tmp_path, env):
    import os
    import subprocess
    import sys

    (tmp_path / "book" / "_generated").mkdir(parents=True)
    proc = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    entry = json.loads(proc.stdout)
    libs = entry["blas"]
    assert libs and {"library", "version", "kernel", "threads", "threading_layer"} <= set(libs[0])
    openblas = [lib for lib in libs if lib["library"] == "openblas"]
    if not openblas:
        pytest.skip(f"numpy is not linked to OpenBLAS here: {libs}")
    assert {lib["threads"] for lib in openblas} == {int(env["OPENBLAS_NUM_THREADS"])}
    if "OPENBLAS_CORETYPE" in env:
        assert {lib["kernel"] for lib in openblas} == {"Sandybridge"}
    assert entry["versions"]["numpy"]


def test_a_full_disk_leaves_the_page_whole_with_a_one_line_error(monkeypatch, capsys):
    import errno

    from kperc_book import _fsio

    page = ROOT / "book" / "reproducibility.md"
    before = page.read_bytes()
    page.write_text(before.decode() + "stale\n")  # so that main has to write it
    try:
        real = open

        def full(file, mode="r", *args, **kw):
            if "x" in mode:
                real(file, mode, *args, **kw).close()
                raise OSError(errno.ENOSPC, "No space left on device", str(file))
            return real(file, mode, *args, **kw)

        monkeypatch.setattr(_fsio, "open", full, raising=False)
        assert report.main([]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "No space left on device" in err
        assert page.read_text() == before.decode() + "stale\n"
        assert not [p for p in page.parent.iterdir() if p.name.endswith(".tmp")]
    finally:
        page.write_bytes(before)


def test_every_committed_figure_links_to_its_cell():
    """Every figure on the reproducibility page names the code cell that saved it: a
    figure name built at run time (not a literal) cannot be traced to its code."""
    assert "not traceable" not in report.render(ROOT)


def _tool_imports() -> dict[str, set[str]]:
    """Which modules of kperc_book each module imports (at the top or in a function)."""
    import ast

    import kperc_book

    base = Path(kperc_book.__file__).parent
    names = {
        ".".join(("kperc_book", *p.relative_to(base).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): p
        for p in base.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    stem = ".".join(parts + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                found |= {f"{stem}.{a.name}" for a in node.names} | {stem}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in names and m != name}
    return graph


def test_the_tools_have_no_import_circle():
    """Issue 35: report imported reproduce for one constant while reproduce imported
    report; VERSIONED now lives in report, and no module imports one that imports it."""
    graph = _tool_imports()
    assert "kperc_book.reproduce" not in graph["kperc_book.report"]
    assert "kperc_book.report" in graph["kperc_book.reproduce"]

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start] - seen:
            seen.add(nxt)
            if nxt == goal or reaches(nxt, goal, seen):
                return True
        return False

    circles = sorted((a, b) for a in graph for b in graph[a] if reaches(b, a, set()))
    assert circles == [], circles
