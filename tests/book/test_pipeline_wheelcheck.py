"""Which tests run against the installed wheel, and which versions the floor check installs."""

from __future__ import annotations

import pytest

from kperc_book import wheelcheck as wc


def test_library_tests_import_only_kperc_and_its_dependencies(tmp_path):
    (tmp_path / "conftest.py").write_text("import numpy\nimport kperc\n")
    (tmp_path / "test_lib.py").write_text("import math\nimport numpy\nfrom kperc import snkp\n")
    (tmp_path / "test_book.py").write_text("import kperc\nfrom kperc_book import data\n")
    (tmp_path / "test_nested.py").write_text("import kperc\ndef test():\n    import nbformat\n")
    (tmp_path / "test_nokperc.py").write_text("import subprocess\n")
    (tmp_path / "test_packaging.py").write_text("import kperc\n")  # reads the checkout
    assert [p.name for p in wc.library_tests(tmp_path)] == ["test_lib.py"]


def test_a_conftest_that_imports_the_book_stops_the_check(tmp_path):
    (tmp_path / "conftest.py").write_text("from kperc_book import data\n")
    with pytest.raises(wc.WheelCheckFailed, match="conftest.py imports \\['kperc_book'\\]"):
        wc.library_tests(tmp_path)


def test_floors_are_the_lower_bounds_of_the_core_dependencies(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\ndependencies = ["numpy>=1.26", "scikit-learn>=1.6,<3"]\n')
    assert wc.floors(pyproject) == ["numpy==1.26", "scikit-learn==1.6"]
    pyproject.write_text('[project]\ndependencies = ["numpy"]\n')
    with pytest.raises(wc.WheelCheckFailed, match="no single floor"):
        wc.floors(pyproject)


def test_the_real_floors_include_scikit_learn_1_6():
    assert "scikit-learn==1.6" in wc.floors()
