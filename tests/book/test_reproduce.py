"""``python -m kperc_book.reproduce`` on tiny notebooks in a temporary book.

The faults (a kill at each step of the write, two runs at once, read-only and
unreplaceable files) are tried in ``test_pipeline_commit.py`` and
``test_pipeline_faults.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

from kperc_book import _notebooks as nbu
from kperc_book import paths
from kperc_book import reproduce as rp

TOC = """\
format: jb-book
root: book/index
chapters:
  - file: book/ch01_alpha
  - file: book/ch02_beta
  - file: book/ch03_gamma
  - file: book/reproducibility
"""


def _notebook(params: str, cells: list[str], presets=None):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell(params)
    p.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter"), p]
    nb.cells += [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    if presets:
        nb.metadata["kperc"] = {"presets": presets}
    return nb


@pytest.fixture
def book(tmp_path):
    """A repository with one working chapter and one that fails on demand."""
    (tmp_path / "_toc.yml").write_text(TOC)
    b = tmp_path / "book"
    (b / "_generated").mkdir(parents=True)
    (b / "figures").mkdir()
    (b / "index.md").write_text("# Index\n")
    nbformat.write(
        _notebook(
            "n = 2\nscale = 0.5\nlabel = 'a'\nsize = n * 2",
            [
                "import os\nprint('cwd', os.getcwd())\nprint('value', n * scale, label, size)",
                "from myst_nb import glue\nglue('value', n * scale, display=False)",
            ],
            presets={"full": {"n": 40}},
        ),
        b / "ch01_alpha.ipynb",
    )
    nbformat.write(
        _notebook(
            "fail = False",
            [
                "print('start')",
                "if fail:\n    raise RuntimeError('planted failure')\nprint('fine')",
            ],
        ),
        b / "ch02_beta.ipynb",
    )
    return tmp_path


def _leftovers(book):
    """What runs left in _build/reproduce besides the run log and a failed copy."""
    d = book / "_build" / "reproduce"
    keep = ("runs.json",) + tuple(p.name for p in d.glob("*.failed.ipynb"))
    return sorted(p.name for p in d.iterdir() if p.name not in keep) if d.is_dir() else []


def _runs(book):
    return json.loads(paths.runs_path(book).read_text())["chapters"]


def _run(book, chapters, **kw):
    return rp.reproduce(
        chapters,
        root=book,
        update_report=kw.pop("update_report", False),
        out=open("/dev/null", "w"),
        **kw,
    )  # noqa: SIM115


def _text_outputs(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_resolve_accepts_keys_stems_files_and_paths(book):
    nbs = nbu.toc_notebooks(book)
    assert [p.name for p in nbs] == ["ch01_alpha.ipynb", "ch02_beta.ipynb"]
    for name in ("ch01", "ch01_alpha", "ch01_alpha.ipynb", "book/ch01_alpha.ipynb"):
        assert nbu.resolve(name, nbs).name == "ch01_alpha.ipynb"


def test_parameters_are_read_from_the_tagged_cell(book):
    nb = nbformat.read(book / "book" / "ch01_alpha.ipynb", as_version=4)
    assert nbu.parameters(nb) == {"n": 2, "scale": 0.5, "label": "a", "size": "n * 2"}
    assert nbu.presets(nb) == {"full": {"n": 40}, "default": {}}


def test_unknown_chapter_is_a_clear_error(book):
    with pytest.raises(ValueError, match=r"unknown chapter 'ch09'.*ch01_alpha, ch02_beta"):
        _run(book, ["ch09"])


def test_unknown_parameter_or_preset_runs_nothing(book):
    before = (book / "book" / "ch01_alpha.ipynb").read_bytes()
    with pytest.raises(ValueError, match=r"unknown parameter 'nope'.*n, scale, label, size"):
        _run(book, ["ch01"], overrides={"nope": "1"})
    with pytest.raises(ValueError, match=r"unknown preset 'huge'"):
        _run(book, ["ch01"], preset="huge")
    # a parameter valid for one chapter but not another is rejected before running either
    with pytest.raises(ValueError, match=r"ch02_beta.ipynb: unknown parameter 'n'"):
        _run(book, ["ch01", "ch02"], overrides={"n": "3"})
    assert (book / "book" / "ch01_alpha.ipynb").read_bytes() == before
    assert not paths.runs_path(book).exists() and not (book / "_build").exists()


def test_cli_reports_unknown_chapter(capsys):
    assert rp.main(["no_such_chapter_xyz"]) == 2
    assert "unknown chapter 'no_such_chapter_xyz'" in capsys.readouterr().err


def test_failure_leaves_notebook_and_records_untouched(book):
    nb_path = book / "book" / "ch02_beta.ipynb"
    before = nb_path.read_bytes()
    with pytest.raises(rp.ChapterFailed) as info:
        _run(book, ["ch02"], overrides={"fail": "True"})
    msg = str(info.value)
    assert "ch02_beta.ipynb" in msg and "RuntimeError: planted failure" in msg
    assert "code cell 3 (id " in msg and "'if fail:'" in msg  # the cell, by number and source
    assert nb_path.read_bytes() == before
    # no temporary file is left under book/ or _build/reproduce
    assert _leftovers(book) == []
    assert sorted(p.name for p in (book / "book").iterdir()) == [
        "_generated",
        "ch01_alpha.ipynb",
        "ch02_beta.ipynb",
        "figures",
        "index.md",
    ]
    assert not paths.runs_path(book).exists()  # a failed run is not logged
    # the same chapter without the planted failure succeeds
    _run(book, ["ch02"])
    assert "fine" in _text_outputs(nb_path)


def test_interrupt_leaves_no_half_written_notebook(book, monkeypatch):
    import papermill

    nb_path = book / "book" / "ch01_alpha.ipynb"
    before = nb_path.read_bytes()

    def interrupted(src, out, **kw):
        Path(out).write_text('{"cells": [')  # a half-written output
        raise KeyboardInterrupt

    monkeypatch.setattr(papermill, "execute_notebook", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run(book, ["ch01"])
    assert nb_path.read_bytes() == before
    assert _leftovers(book) == []


def test_two_runs_give_byte_identical_normalised_notebooks(book):
    nb_path = book / "book" / "ch01_alpha.ipynb"
    _run(book, ["ch01"], overrides={"n": "3"})
    first = nb_path.read_bytes()
    _run(book, ["ch01"], overrides={"n": "3"})
    assert nb_path.read_bytes() == first
    nb = json.loads(first)
    assert "papermill" not in nb["metadata"]
    injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert len(injected) == 1 and injected[0]["id"] == "injected-parameters"
    for cell in nb["cells"]:
        assert "papermill" not in cell["metadata"]
        assert "execution" not in cell["metadata"]
        assert cell["metadata"].get("tags", None) != []
    text = first.decode()
    assert str(book) not in text and str(Path.home()) not in text
    assert "cwd .\n" in _text_outputs(nb_path)  # the notebook's folder, not a machine path
    assert "value 1.5 a 4\n" in _text_outputs(nb_path)  # n=3 injected after the cell


def test_defaults_remove_earlier_overrides_and_preset_yields_to_p(book):
    nb_path = book / "book" / "ch01_alpha.ipynb"
    _run(book, ["ch01"], preset="full", overrides={"n": "5"})
    assert "value 2.5 a 4\n" in _text_outputs(nb_path)
    entry = _runs(book)["ch01_alpha"]
    assert entry["preset"] == "full" and entry["parameters"]["n"] == 5
    assert entry["command"] == "python -m kperc_book.reproduce ch01 --preset full -p n 5"
    assert entry["runtime_s"] > 0 and entry["versions"]["numpy"] != "missing"
    _run(book, ["ch01"], update_report=True)
    nb = nbformat.read(nb_path, as_version=4)
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells)
    assert "value 1.0 a 4\n" in _text_outputs(nb_path)
    entry = _runs(book)["ch01_alpha"]
    assert entry["overrides"] == {} and entry["command"] == "python -m kperc_book.reproduce ch01"
    page = (book / "book" / "reproducibility.md").read_text()
    assert "{doc}`ch01_alpha`" in page and "python -m kperc_book.reproduce ch01`" in page
    assert "n=2," in page  # built from the notebook: its defaults now


def test_float_parameter_accepts_an_integer_value():
    assert nbu.parse_value("2", 0.5) == 2.0 and isinstance(nbu.parse_value("2", 0.5), float)
    assert nbu.parse_value("rbf", "linear") == "rbf"
    assert nbu.parse_value("[1, 2]", None) == [1, 2]


def test_normalise_leaves_image_data_alone(tmp_path):
    """Base64 image data can hold a temporary folder's name by chance: replacing it would
    corrupt the PNG."""
    import tempfile

    tmp = str(Path(tempfile.gettempdir()).resolve())
    png = "iVBORw0KGgo" + tmp + "AAAA" + tmp + "QmCC"
    out = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": png, "text/plain": f"saved in {tmp}/x.png"},
    }
    cell = {"cell_type": "code", "id": "a", "metadata": {}, "source": "", "outputs": [out]}
    nb = {"metadata": {}, "cells": [{**cell, "execution_count": 1}]}
    done = nbu.normalise(nb, nb_dir=tmp_path, root=tmp_path)
    data = done["cells"][0]["outputs"][0]["data"]
    assert data["image/png"] == png
    assert data["text/plain"] == "saved in <tmp>/x.png"


def test_normalise_merges_split_stream_outputs():
    """How the kernel flushed stdout must not change the stored notebook."""
    from kperc_book import _notebooks as nbu

    outs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": ["b\n", "c\n"]},
        {"output_type": "stream", "name": "stderr", "text": "w\n"},
        {"output_type": "stream", "name": "stdout", "text": "d\n"},
    ]
    merged = nbu._merge_streams(outs)
    assert [(o["name"], o["text"]) for o in merged] == [
        ("stdout", "a\nb\nc\n"),
        ("stderr", "w\n"),
        ("stdout", "d\n"),
    ]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("n", "-5", "-p n must be positive (its default is 2); got -5"),
        ("n", "0", "-p n must be positive"),
        ("n", "1e9", "-p n expects a value of type int like its default 2; got 1000000000.0"),
        ("n", "'many'", "-p n expects a value of type int"),
        ("scale", "nan", "-p scale expects a value of type float"),
        ("scale", "float('inf')", "-p scale expects a value of type float"),
        ("scale", "1e400", "-p scale must be finite"),
        ("label", "3", "-p label expects a string like its default 'a'; got 3"),
    ],
)
def test_p_values_are_checked_before_anything_runs(book, name, value, message):
    nb_path = book / "book" / "ch01_alpha.ipynb"
    before = nb_path.read_bytes()
    with pytest.raises(ValueError, match="ch01_alpha.ipynb: ") as info:
        _run(book, ["ch01"], overrides={name: value})
    assert message in str(info.value) and "\n" not in str(info.value)
    assert nb_path.read_bytes() == before
    assert not (book / "_build").exists()  # nothing ran


def test_p_values_of_the_right_type_pass():
    p = Path("x.ipynb")
    rp._check_value("n", 3, 2, p)
    rp._check_value("scale", 2, 0.5, p)  # an int for a float
    rp._check_value("rhos", [0.1, 0.2], [0.3], p)
    rp._check_value("rate_rhos", [-0.1], [-0.3, -0.1], p)  # signs free when defaults negative
    with pytest.raises(ValueError, match=r"-p rhos \(item -0.1\) must be positive"):
        rp._check_value("rhos", [0.1, -0.1], [0.3], p)
    with pytest.raises(ValueError, match="must not be an empty list"):
        rp._check_value("rhos", [], [0.3], p)


def test_dead_kernel_is_a_one_line_error(book, capsys):
    nb = _notebook("n = 1", ["import os\nos._exit(1)  # as the kernel dies when out of memory"])
    nbformat.write(nb, book / "book" / "ch03_gamma.ipynb")
    before = (book / "book" / "ch03_gamma.ipynb").read_bytes()
    with pytest.raises(rp.ChapterFailed) as info:
        _run(book, ["ch03"])
    msg = str(info.value)
    assert "ch03_gamma.ipynb: the kernel died" in msg and "\n" not in msg
    assert (book / "book" / "ch03_gamma.ipynb").read_bytes() == before
    assert _leftovers(book) == []


CHAPTER_CELLS = [
    "from kperc_book.chapter import Chapter\nimport matplotlib\nmatplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\nch = Chapter('ch03')\n"
    "ch.check('lemma-x', True, 'planted')\nfig = plt.figure()\nch.savefig(fig, 'f')",
    "if fail:\n    raise RuntimeError('late failure')",
]


def test_records_reach_book_only_after_the_notebook_succeeded(book):
    nbformat.write(_notebook("fail = False", CHAPTER_CELLS), book / "book" / "ch03_gamma.ipynb")
    gen, figs = book / "book" / "_generated", book / "book" / "figures"
    with pytest.raises(rp.ChapterFailed, match="late failure"):
        _run(book, ["ch03"], overrides={"fail": "True"})
    assert not (gen / "ch03.json").exists() and not (figs / "ch03-f.png").exists()
    assert _leftovers(book) == []
    _run(book, ["ch03"])
    record = json.loads((gen / "ch03.json").read_text())
    assert record["checks"]["lemma-x"]["ok"] is True
    assert "ch03-f.png" in record["figures"] and (figs / "ch03-f.png").is_file()
    assert _leftovers(book) == []


def test_a_chapter_may_not_write_another_chapters_records(book):
    cells = [
        "import os, pathlib\n"
        "d = pathlib.Path(os.environ['KPERC_BOOK_STAGING'], '_generated')\n"
        "d.mkdir(parents=True, exist_ok=True)\n(d / 'ch01.json').write_text('{}')"
    ]
    nbformat.write(_notebook("n = 1", cells), book / "book" / "ch03_gamma.ipynb")
    with pytest.raises(rp.ChapterFailed, match="not one of its own records"):
        _run(book, ["ch03"])
    assert not (book / "book" / "_generated" / "ch01.json").exists()


def test_a_plain_run_of_a_chapter_writes_nothing_committed(monkeypatch, tmp_path):
    """nbval and Jupyter run a chapter without reproduce: records go to _build/scratch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kperc_book import chapter

    monkeypatch.delenv(chapter.STAGING_ENV, raising=False)
    gen, figs, told = chapter._record_dirs()
    assert gen.parent == paths.scratch_dir() and figs.parent == gen.parent and not told
    monkeypatch.setenv(chapter.STAGING_ENV, str(tmp_path))
    ch = chapter.Chapter("zz99")
    ch.check("lemma-x", True, "ok")
    fig = plt.figure()
    path = ch.savefig(fig, "f")
    plt.close(fig)
    assert path == tmp_path / "figures" / "zz99-f.png"
    assert json.loads((tmp_path / "_generated" / "zz99.json").read_text())["checks"]
    assert not (chapter.GENERATED_DIR / "zz99.json").exists()
    assert not (chapter.FIGURES_DIR / "zz99-f.png").exists()


def test_cli_outside_a_checkout_is_a_one_line_error(monkeypatch, tmp_path, capsys):
    from kperc_book import paths

    monkeypatch.setattr(paths, "TOC", tmp_path / "_toc.yml")
    with pytest.raises(paths.NotACheckout) as info:
        rp.main(["--list"])
    assert "is not a kperc-book checkout" in str(info.value.code)
    assert "\n" not in str(info.value.code)


def test_sigterm_is_handled_like_ctrl_c():
    import signal

    before = signal.getsignal(signal.SIGTERM)
    with rp._sigterm_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before


def test_an_unreadable_run_log_starts_afresh(book):
    """The run log is this machine's, outside git: a truncated one is not an error."""
    log = paths.runs_path(book)
    log.parent.mkdir(parents=True)
    log.write_text('{"chapters": {"ch01_alpha": {"notebook"')
    _run(book, ["ch01"])
    assert list(_runs(book)) == ["ch01_alpha"]


def test_an_unchanged_rerun_touches_no_file_of_the_book(book):
    """Files whose bytes did not change are not replaced (their times stay)."""
    _run(book, ["ch01"])
    files = [p for p in (book / "book").rglob("*") if p.is_file()]
    before = {p: p.stat().st_mtime_ns for p in files}
    _run(book, ["ch01"])
    assert {p: p.stat().st_mtime_ns for p in files} == before


def test_restore_command_names_every_file_of_the_chapter(book):
    nb = book / "book" / "ch01_alpha.ipynb"
    assert rp.restore_command(book, nb) == (
        "git restore -- book/ch01_alpha.ipynb book/_generated/ch01.json 'book/figures/ch01-*'"
    )


def test_a_whole_rerun_clears_the_note_of_an_interrupted_write(book):
    """The note a killed write leaves is reported by the next run, and a run of that
    chapter makes it whole, even when no file had to change."""
    import io

    _run(book, ["ch01"])
    note = paths.reproduce_dir(book) / "ch01.writing"
    note.write_text("book/ch01_alpha.ipynb\n")
    out = io.StringIO()
    rp.reproduce(["ch02"], root=book, update_report=False, out=out)
    assert "ch01_alpha.ipynb and its records, which may be half updated" in out.getvalue()
    assert "`git restore -- book/ch01_alpha.ipynb" in out.getvalue()
    assert note.exists()
    rp.reproduce(["ch01"], root=book, update_report=False, out=io.StringIO())
    assert not note.exists()


def _read_only(path: Path):
    """Make ``path`` unreplaceable: ``chattr +i`` as root (if the file system has the
    flag), else a read-only folder around it; return the function that undoes it."""
    import os
    import shutil
    import subprocess

    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("root without chattr: nothing makes a file unreplaceable")
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
            pytest.skip("this file system has no immutable flag")
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)
    mode = path.parent.stat().st_mode
    path.parent.chmod(0o555)
    return lambda: path.parent.chmod(mode)


def test_an_immutable_page_stops_the_run_before_anything_changes(book, capsys):
    """Issue 36: the page could not be replaced, yet the command said "updated" and
    exited 0, with the page describing another run. Now it is probed first."""
    page = paths.reproducibility_page(book)
    page.write_text("# Reproducibility\n\nthe earlier run\n")
    nb = book / "book" / "ch01_alpha.ipynb"
    before = {p: p.read_bytes() for p in (book / "book").rglob("*") if p.is_file()}
    undo = _read_only(page)
    try:
        code = rp.guarded(
            lambda: rp.reproduce(
                ["ch01"], overrides={"n": "3"}, root=book, update_report=True,
                out=sys.stdout,
            )
        )  # fmt: skip
    finally:
        undo()
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert err.count("\n") == 1 and err.startswith("FAILED: ch01_alpha.ipynb: cannot replace ")
    assert "reproducibility.md" in err and "nothing was run, and book/ is unchanged" in err
    assert "updated" not in out and "done in" not in out
    after = {p: p.read_bytes() for p in (book / "book").rglob("*") if p.is_file()}
    assert after == before and nb.read_bytes() == before[nb]
    assert _leftovers(book) == []
    assert not paths.runs_path(book).exists()
