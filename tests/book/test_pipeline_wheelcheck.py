"""Which tests run against the installed wheel, and which versions the floor check installs.

The library's tests are the folder ``tests/lib/``, all of it: the wheel check refuses a
file there that imports the book, instead of leaving that file out.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from kperc_book import paths
from kperc_book import wheelcheck as wc

PYPROJECT = """\
[project]
dependencies = ["numpy>=1.26", "scikit-learn>=1.6"]
[project.optional-dependencies]
test = ["pytest>=8", "dask[distributed]>=2024.1"]
"""


def _lib(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name, text in files.items():
        (lib / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return lib, tmp_path / "pyproject.toml"


def test_every_test_file_of_the_folder_runs(tmp_path):
    lib, pyproject = _lib(
        tmp_path,
        {
            "test_a.py": "import math\nimport numpy\nfrom kperc import snkp\n",
            "test_b.py": "from sklearn.base import clone\nfrom _helpers import make\n",
            "test_c.py": "import dask\nfrom distributed import Client\nimport pytest\n",
            "_helpers.py": "import kperc\n",
        },
    )
    found = wc.library_tests(lib, conftest=None, pyproject=pyproject)
    assert [p.name for p in found] == ["test_a.py", "test_b.py", "test_c.py"]


@pytest.mark.parametrize(
    "name, text",
    [
        ("test_x.py", "import kperc\nfrom kperc_book import data\n"),
        ("test_x.py", "import kperc\ndef test():\n    import kperc_book.paths\n"),
        ("_helpers.py", "from kperc_book.data import planted\n"),
    ],
)
def test_a_library_file_that_imports_the_book_stops_the_check(tmp_path, name, text):
    lib, pyproject = _lib(tmp_path, {"test_ok.py": "import kperc\n", name: text})
    with pytest.raises(wc.WheelCheckFailed, match=f"{name} imports \\['kperc_book'\\]"):
        wc.library_tests(lib, conftest=None, pyproject=pyproject)


def test_a_library_test_that_needs_an_undeclared_package_stops_the_check(tmp_path):
    lib, pyproject = _lib(tmp_path, {"test_x.py": "import kperc\nimport nbformat\n"})
    with pytest.raises(wc.WheelCheckFailed, match="test_x.py imports \\['nbformat'\\]"):
        wc.library_tests(lib, conftest=None, pyproject=pyproject)


def test_a_conftest_that_imports_the_book_stops_the_check(tmp_path):
    lib, pyproject = _lib(tmp_path, {"test_ok.py": "import kperc\n"})
    (tmp_path / "conftest.py").write_text("from kperc_book import data\n")
    with pytest.raises(wc.WheelCheckFailed, match="conftest.py imports \\['kperc_book'\\]"):
        wc.library_tests(lib, conftest=tmp_path / "conftest.py", pyproject=pyproject)


def test_an_empty_library_folder_stops_the_check(tmp_path):
    lib, pyproject = _lib(tmp_path, {"_helpers.py": "import kperc\n"})
    with pytest.raises(wc.WheelCheckFailed, match="no test files"):
        wc.library_tests(lib, conftest=None, pyproject=pyproject)


def test_the_real_library_tests_import_no_book_module():
    """tests/lib/ as committed: every file qualifies, none is left out."""
    found = wc.library_tests()
    on_disk = sorted((paths.TESTS_DIR / "lib").rglob("test_*.py"))
    assert found == on_disk
    names = {p.name for p in found}
    # the files the old import scanner silently left out
    assert {"test_perceptrons.py", "test_classifier.py", "test_margins.py"} <= names
    assert not list(paths.TESTS_DIR.glob("test_*.py")), "a test outside tests/lib and tests/book"


def test_floors_are_the_lower_bounds_of_the_core_dependencies(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\ndependencies = ["numpy>=1.26", "scikit-learn>=1.6,<3"]\n')
    assert wc.floors(pyproject) == ["numpy==1.26", "scikit-learn==1.6"]
    pyproject.write_text('[project]\ndependencies = ["numpy"]\n')
    with pytest.raises(wc.WheelCheckFailed, match="no single floor"):
        wc.floors(pyproject)


def test_the_real_floors_include_scikit_learn_1_6():
    assert "scikit-learn==1.6" in wc.floors()


@pytest.mark.parametrize("module", [wc, paths])
def test_doctests(module):
    res = doctest.testmod(module)
    assert res.attempted > 0 and res.failed == 0, res


def test_every_slow_entry_names_a_library_test():
    """The conftest's list of slow library tests does not silently go stale."""
    import ast

    from conftest import SLOW_TESTS

    assert SLOW_TESTS
    for file, func in sorted(SLOW_TESTS):
        tree = ast.parse((paths.TESTS_DIR / "lib" / file).read_text())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert func in names, f"tests/conftest.py SLOW_TESTS: no {func} in tests/lib/{file}"
