"""The theorem ledger (kperc_book.ledger and book/ledger.ipynb).

The tests on the real book are strict: every result of the registry must have a
guarding test and a passing check recorded by a chapter. While chapters are being
written they fail for the missing ones, by design.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from kperc_book import ledger

REPO = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- the registry


def test_contributing_md_lists_no_copy_of_the_ids():
    """The ids are defined once, in the registry; CONTRIBUTING.md points to it."""
    text = (REPO / "CONTRIBUTING.md").read_text()
    section = text.split("## Ledger ids", 1)[1].split("\n## ", 1)[0]
    assert "ledger/registry.py" in section
    assert not [rid for rid in ledger.REGISTRY if f"`{rid}`" in section]


def test_conftest_reads_the_ids_from_the_registry(tmp_path):
    """tests/lib/ cannot import the book's tools, so tests/conftest.py reads the ids from
    the registry's source (to refuse a misspelt marker at collection): they are the
    registry's keys, and a registry that moved is an error, not an empty list."""
    import conftest

    assert conftest.LEDGER_IDS == frozenset(ledger.REGISTRY)
    assert conftest.ledger_ids(tmp_path / "registry.py") is None  # outside the checkout
    (tmp_path / "registry.py").write_text("OTHER = {}\n")
    with pytest.raises(RuntimeError, match="no REGISTRY"):
        conftest.ledger_ids(tmp_path / "registry.py")


@pytest.mark.parametrize("rid", list(ledger.REGISTRY))
def test_registry_entries_are_complete(rid):
    res = ledger.REGISTRY[rid]
    assert res.name and res.statement and res.constant and res.paper
    assert re.fullmatch(r"ch0[1-7]", res.chapter)
    assert res.status in ledger.ORIGINS
    for text in (res.statement, res.constant):
        assert text.count("$") % 2 == 0, f"{rid}: unbalanced math in {text!r}"


# ------------------------------------------------------- the real book (strict)


def test_every_result_has_a_guarding_test():
    tests = ledger.guarding_tests()
    missing = [rid for rid in ledger.REGISTRY if not tests.get(rid)]
    assert not missing, f"no test carries @pytest.mark.ledger for: {missing}"


def test_guarding_tests_exist():
    for rid, nodes in ledger.guarding_tests().items():
        for node in nodes:
            path, *names = node.split("::")
            source = (REPO / path).read_text()
            for name in names:
                assert re.search(rf"^\s*(class|def|async def) {re.escape(name)}\b", source, re.M), (
                    f"{node} (ledger {rid}) not found"
                )


def test_every_result_has_a_passing_check():
    rows = ledger.collect()
    missing = [r.rid for r in rows if not r.checks]
    failed = [(r.rid, ch) for r in rows for ch, rec in r.checks.items() if not rec["ok"]]
    assert not failed, f"failed checks: {failed}"
    assert not missing, (
        f"no chapter records a check of {missing}; run the chapters "
        "(python -m kperc_book.reproduce)"
    )


def test_ids_used_by_chapters_are_registered():
    for ch, recs in ledger.recorded_checks().items():
        unknown = set(recs) - set(ledger.REGISTRY)
        assert not unknown, f"{ch} records checks of unknown ids {unknown}"
    for ch, ids in ledger.check_ids_in_notebooks().items():
        unknown = ids - set(ledger.REGISTRY)
        assert not unknown, f"{ch} calls ch.check with unknown ids {unknown}"


def test_ids_used_by_tests_are_registered():
    unknown = set(ledger.guarding_tests()) - set(ledger.REGISTRY)
    assert not unknown, f"tests are marked with unknown ledger ids {unknown}"


def test_no_gaps():
    assert ledger.problems(ledger.collect()) == []


def test_every_link_points_to_an_existing_label():
    notebooks = ledger.chapter_notebooks()
    names = {ch: {lab.name for lab in ledger.book_labels(p)} for ch, p in notebooks.items()}
    for row in ledger.collect():
        for ch, lab in row.where.items():
            assert lab is None or lab.name in names[ch]
        if row.stated is not None:
            assert row.stated.name in names[row.result.chapter]


def _glued_markdown(nb_path: Path, key: str) -> str:
    nb = nbformat.read(str(nb_path), as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            sb = out.get("metadata", {}).get("scrapbook", {})
            if sb.get("name") == key:
                text = out["data"][sb.get("mime_prefix", "") + "text/markdown"]
                return "".join(text) if isinstance(text, list) else text
    raise AssertionError(f"{nb_path.name} glues no {key!r}: execute it")


def test_ledger_page_is_current():
    page = REPO / "book" / "ledger.ipynb"
    assert page.exists()
    rows = ledger.collect()
    assert _glued_markdown(page, "ledger-table") == ledger.table_markdown(rows), (
        "book/ledger.ipynb is stale: run `python -m kperc_book.reproduce ledger`"
    )
    assert _glued_markdown(page, "ledger-details") == ledger.details_markdown(rows)


# ------------------------------------------------------------ discovery units


def _notebook(path: Path, cells: list) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


MD = nbformat.v4.new_markdown_cell
CODE = nbformat.v4.new_code_cell


@pytest.fixture
def fake_book(tmp_path):
    book = tmp_path / "book"
    _notebook(
        book / "ch04_smooth.ipynb",
        [
            MD("(ch04-sec)=\n# Title\n\n```{prf:algorithm} SNKP\n:label: ch04-alg-snkp\n\nx\n```"),
            MD(
                "```{prf:lemma} Excessive gap\n:label: ch04-lem-5\n\ntext\n```\n\n"
                "```{prf:theorem}\n:label: ch04-rate\n\ntext\n```"
            ),
            CODE('ch.check("lemma-5", True, "d", instances=3)\nch.check("theorem-1", ok, "x")'),
            MD(
                "```{glue:figure} ch04-fig\n:name: fig-ch04-rates\n\ncaption\n```\n\n"
                "(ch04-later)=\n## Later"
            ),
            CODE("ch.check(result_id='mu-closed-form', ok=True, detail='x')"),
            CODE("for rid in ids:\n    ch.check(rid, True, 'x')"),
        ],
    )
    gen = book / "_generated"
    gen.mkdir()
    (gen / "ch04.json").write_text(
        json.dumps(
            {
                "checks": {
                    "lemma-5": {"ok": True, "detail": "sandwich held", "instances": 3},
                    "theorem-1": {"ok": True, "detail": "K < bound", "instances": 10},
                    "mu-closed-form": {"ok": False, "detail": "broken", "instances": 1},
                    "bogus": {"ok": True, "detail": "", "instances": None},
                }
            }
        )
    )
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_a.py").write_text(
        textwrap.dedent("""
        import pytest
        pytestmark = [pytest.mark.ledger("theorem-1")]

        @pytest.mark.ledger("lemma-5")
        def test_one():
            pass

        @pytest.mark.ledger("mu-closed-form")
        class TestGroup:
            def test_two(self):
                pass

            @pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.ledger("zz"))])
            def test_three(self, x):
                pass

        def helper():
            pass
    """)
    )
    (tests / "conftest.py").write_text("@pytest.mark.ledger('lemma-5')\ndef test_x(): pass\n")
    return tmp_path


def test_guarding_tests_finds_every_kind_of_marker(fake_book):
    found = ledger.guarding_tests(fake_book / "tests")
    assert found["lemma-5"] == ["tests/test_a.py::test_one"]
    assert found["theorem-1"] == [
        "tests/test_a.py::test_one",
        "tests/test_a.py::TestGroup::test_two",
        "tests/test_a.py::TestGroup::test_three",
    ]
    assert found["mu-closed-form"] == [
        "tests/test_a.py::TestGroup::test_two",
        "tests/test_a.py::TestGroup::test_three",
    ]
    assert found["zz"] == ["tests/test_a.py::TestGroup::test_three"]


def test_labels_and_check_cells(fake_book):
    nb = fake_book / "book" / "ch04_smooth.ipynb"
    labels = {lab.name: lab for lab in ledger.book_labels(nb)}
    assert labels["ch04-sec"].kind == "target" and labels["ch04-sec"].role == "ref"
    assert labels["ch04-alg-snkp"].kind == "prf:algorithm"
    assert labels["ch04-lem-5"].link() == "{prf:ref}`ch04-lem-5`"
    assert labels["ch04-lem-5"].link("here") == "{prf:ref}`here <ch04-lem-5>`"
    assert labels["ch04-lem-5"].title == "Excessive gap"
    assert labels["fig-ch04-rates"].role == "numref"
    assert labels["ch04-later"].cell == 3
    cells = ledger.check_cells(nb)
    assert cells == {"lemma-5": [2], "theorem-1": [2], "mu-closed-form": [4]}


MYST_SAMPLE = """\
(sec-intro)=
# Intro

```python
(not-a-target)=
:label: not-a-label
```

````{prf:theorem} Outer
:label: thm-outer
:class: dropdown

```{prf:lemma}
---
label: lem-yaml
---
body
```

```{prf:proof}
:label: inside-a-body
```
````

:::{figure} img.png
:name: fig-colon
:alt: text

caption
:::

```{prf:remark} Late option
text
:label: not-an-option
```

- an item

  (sec-in-list)=
  more
"""


def test_myst_labels_reads_directives_as_myst_does():
    """Code blocks define nothing, only the option block that opens a directive counts
    (as ``:key:`` lines or YAML), and directives nested in directives are read too."""
    got = [(lab.name, lab.kind, lab.title) for lab in ledger.myst_labels(MYST_SAMPLE)]
    assert got == [
        ("sec-intro", "target", ""),
        ("thm-outer", "prf:theorem", "Outer"),
        ("lem-yaml", "prf:lemma", ""),
        ("inside-a-body", "prf:proof", ""),
        ("fig-colon", "figure", "img.png"),
        ("sec-in-list", "target", ""),
    ]
    assert {lab.cell for lab in ledger.myst_labels(MYST_SAMPLE, 7)} == {7}


def test_myst_labels_ignores_directives_without_labels():
    text = "```{prf:algorithm} A\n\nno label\n```\n\n```{figure} x.png\n:label: wrong\n```\n"
    assert ledger.myst_labels(text) == []
    assert ledger.myst_labels("(a.b:c_d-1)=\n") == [ledger.Label("a.b:c_d-1", "target", 0)]
    bad_yaml = "```{prf:lemma}\n---\nlabel: [unclosed\n---\nbody\n```\n"
    assert ledger.myst_labels(bad_yaml) == []


def test_locate_prefers_named_then_nearest(fake_book):
    nb = fake_book / "book" / "ch04_smooth.ipynb"
    labels, cells = ledger.book_labels(nb), ledger.check_cells(nb)
    assert ledger.locate("lemma-5", "ch04", labels, cells).name == "ch04-lem-5"
    assert ledger.locate("theorem-1", "ch04", labels, cells).name == "ch04-rate"
    assert ledger.locate("mu-closed-form", "ch04", labels, cells).name == "ch04-later"
    assert (
        ledger.locate("theorem-1", "ch04", labels, cells, preferred="ch04-alg-snkp").name
        == "ch04-alg-snkp"
    )
    assert ledger.locate("gordan", "ch04", labels, cells) is None


def test_collect_table_and_problems(fake_book):
    book, tests = fake_book / "book", fake_book / "tests"
    reg = {k: ledger.REGISTRY[k] for k in ("lemma-5", "theorem-1", "mu-closed-form", "gordan")}
    rows = ledger.collect(book_dir=book, tests_dir=tests, registry=reg)
    by = {r.rid: r for r in rows}
    assert by["lemma-5"].ok and by["theorem-1"].ok
    assert not by["mu-closed-form"].ok and not by["gordan"].ok
    assert by["lemma-5"].stated.name == "ch04-lem-5"
    table = ledger.table_markdown(rows, book_dir=book)
    lines = table.strip().splitlines()
    assert len(lines) == 2 + len(reg)
    for line in lines:
        assert len(re.findall(r"(?<!\\)\|", line)) == 5, line
    assert lines[0].startswith("| status |")  # status first: visible without scrolling
    assert "{doc}`ch04 <ch04_smooth>` ({prf:ref}`lemma <ch04-lem-5>`)" in table
    assert "**Lemma 5 (excessive gap)**, {prf:ref}`statement <ch04-lem-5>`" in table
    assert "*stated in the paper; explicit constant derived here*" in table
    assert "FAILED" in table and "missing" in table and "ok<br>3 instances" in table
    assert "<details><summary>" in table  # the guarding tests are collapsed
    for tag in ("[C]", "[C/D]", "[D]", "[U]", "PAPER"):
        assert tag not in table
    assert "\\Vert" in table or "\\|" not in table  # norm bars never split a cell
    details = ledger.details_markdown(rows, book_dir=book)
    assert "sandwich held" in details and "not checked by any chapter yet" in details
    gaps = ledger.problems(rows, registry=reg, generated_dir=book / "_generated", tests_dir=tests)
    text = "\n".join(gaps)
    assert "gordan: no chapter records a check" in text
    assert "mu-closed-form: the check in ch04 failed" in text
    assert "'bogus', which is not a ledger id" in text
    assert "unknown ledger id 'zz'" in text
    assert "gordan: no test carries" in text


def test_recorded_checks_skips_broken_files(tmp_path):
    (tmp_path / "ch01.json").write_text("{not json")
    (tmp_path / "ch02.json").write_text(json.dumps({"checks": {"np-bound": {"ok": True}}}))
    (tmp_path / "runs.json").write_text(json.dumps({"chapters": {}}))
    assert ledger.recorded_checks(tmp_path) == {"ch02": {"np-bound": {"ok": True}}}


def test_main_prints_the_table(capsys):
    code = ledger.main([])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("| status |")
    assert "results checked and guarded by a test" in out


def test_python_m_runs_the_package():
    """``python -m kperc_book.ledger --strict`` (the package's ``__main__``) runs ``main``."""
    proc = subprocess.run(
        [sys.executable, "-m", "kperc_book.ledger", "--strict"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("| status |")
    n = len(ledger.REGISTRY)
    assert proc.stdout.rstrip().endswith(f"{n} of {n} results checked and guarded by a test")
