"""The kperc package stands on its own: light import, one version, typed, licensed, and
the README's library example runs with none of the book's tools installed."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

import kperc

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
#: The book's dependencies: ``import kperc`` must load none of them.
BOOK_DEPS = (
    "papermill",
    "nbformat",
    "myst_nb",
    "pandas",
    "yaml",
    "cvxpy",
    "psutil",
    "matplotlib",
    "kperc_book",
)
#: Third-party libraries try these optionally on import (scikit-learn tries pandas,
#: joblib's loky tries psutil). Making their import fail, as if they were not installed,
#: shows that kperc works without them.
BLOCK = (
    "import sys\n"
    "class _NotInstalled:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in {mods!r}:\n"
    "            raise ImportError(f'No module named {{name!r}} (blocked)')\n"
    "sys.meta_path.insert(0, _NotInstalled())\n"
)


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT.parent
    )


def test_import_kperc_loads_no_book_dependency():
    code = (
        "import sys, kperc\n"
        f"print(sorted(m for m in {BOOK_DEPS!r} if m in sys.modules and m not in "
        "('pandas', 'psutil')))"
    )
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_kperc_imports_and_fits_with_the_book_dependencies_blocked():
    code = BLOCK.format(mods=BOOK_DEPS) + textwrap.dedent(
        """
        import numpy as np
        import kperc
        from kperc import datasets, sweeps

        ds = datasets.planted(40, 3, 0.1, seed=0)
        G = kperc.gram_matrix(ds.X, ds.y)
        res = kperc.snkp(G)
        assert res.outcome == "separator", res.outcome
        clf = kperc.SNKPClassifier(kernel="linear").fit(ds.X, ds.y)
        assert clf.score(ds.X, ds.y) == 1.0
        print("ok")
        """
    )
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_library_modules_import_no_book_dependency():
    """Not even lazily: the library's source names none of the book's packages."""
    for path in sorted((ROOT / "kperc").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in BOOK_DEPS, f"{path.name} imports {name}"


def _example(text: str) -> str:
    section = text.split("## Use kperc on your own data", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


@pytest.mark.parametrize("doc", ["README.md", "PYPI.md"])
def test_the_use_kperc_on_your_own_data_example_runs(doc):
    code = _example((ROOT / doc).read_text())
    assert len(code.strip().splitlines()) <= 12  # about ten lines
    out = _run(BLOCK.format(mods=BOOK_DEPS) + code)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("separator ") and "exact margin: 0.1982" in lines[0]
    assert lines[1] == "training points classified: 1.0"
    assert lines[2] == "training accuracy: 1.0"


def test_readme_and_pypi_examples_agree():
    assert _example((ROOT / "README.md").read_text()) == _example((ROOT / "PYPI.md").read_text())


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_one_source_for_the_version():
    project = _project()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    dyn = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dyn == {"attr": "kperc.__version__"}
    assert metadata.version("kperc") == kperc.__version__


def test_package_metadata_a_package_index_accepts():
    project = _project()["project"]
    assert project["license"] == {"text": "BSD-3-Clause"}
    license_text = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause License" in license_text and "Neither the name" in license_text
    assert "License :: OSI Approved :: BSD License" in project["classifiers"]
    assert "Typing :: Typed" in project["classifiers"]
    urls = project["urls"]
    assert urls["Source"] == "https://github.com/kperc-book/kperc-book"
    assert all(u.startswith(urls["Source"]) for u in urls.values())
    assert project["readme"]["file"] == "PYPI.md"
    assert "make" not in (ROOT / "PYPI.md").read_text().split()  # library-first text
    assert (ROOT / "kperc" / "py.typed").is_file()
    assert "py.typed" in _project()["tool"]["setuptools"]["package-data"]["kperc"]
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "build/" in ignored and "dist/" in ignored


def test_scikit_learn_floor_covers_the_api_the_classifier_uses():
    from packaging.requirements import Requirement

    deps = {Requirement(d).name: Requirement(d) for d in _project()["project"]["dependencies"]}
    source = (ROOT / "kperc" / "_classifier.py").read_text()
    if "validate_data" in source or "__sklearn_tags__" in source:
        assert not deps["scikit-learn"].specifier.contains("1.5.2")
        assert deps["scikit-learn"].specifier.contains("1.6.0")


def test_the_two_distributions_split_the_packages():
    """kperc's wheel holds only the library; kperc-book (book-tools/) the book's tools."""
    lib = _project()["tool"]["setuptools"]["packages"]["find"]["include"]
    assert lib == ["kperc", "kperc.*"]
    book_tools = ROOT / "book-tools"
    book = tomllib.loads((book_tools / "pyproject.toml").read_text())
    include = set(book["tool"]["setuptools"]["packages"]["find"]["include"])
    packages = {p.parent.name for p in book_tools.glob("*/__init__.py")}
    assert packages == {"kperc_book"}
    assert include == {name for p in packages for name in (p, f"{p}.*")}
    for name in packages:  # the book's packages live only in book-tools/
        assert not (ROOT / name).exists(), f"{name}/ at the root shadows book-tools/{name}"
