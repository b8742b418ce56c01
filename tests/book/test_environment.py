"""environment.yml (conda / Binder) and the two pyproject.toml files name the same
dependencies; make env, postBuild and the README use the same install line; the README's
test command is what CI runs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _key(text: str) -> tuple[str, tuple[str, ...], str, str]:
    r = Requirement(text)
    return (
        canonicalize_name(r.name),
        tuple(sorted(r.extras)),
        str(SpecifierSet(str(r.specifier))),
        str(r.marker or ""),
    )


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _book_tools():
    return tomllib.loads((ROOT / "book-tools" / "pyproject.toml").read_text())["project"]


def _environment():
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def _declared(extras_kperc=("test",), extras_book=("test", "bench")) -> list[str]:
    """Every requirement of both distributions, minus their references to each other."""
    kperc, book = _pyproject(), _book_tools()
    wanted = list(kperc["dependencies"]) + list(book["dependencies"])
    wanted += [r for e in extras_kperc for r in kperc["optional-dependencies"][e]]
    wanted += [r for e in extras_book for r in book["optional-dependencies"][e]]
    ours = {canonicalize_name(kperc["name"]), canonicalize_name(book["name"])}
    return [r for r in wanted if canonicalize_name(Requirement(r).name) not in ours]


#: The one install line (README, make env, postBuild): both packages, editable.
INSTALL = '-c requirements/constraints.txt -e . -e "./book-tools[test]"'


def test_environment_yml_and_pyproject_name_the_same_dependencies():
    env = _environment()
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = [d for d in env["dependencies"] if isinstance(d, dict)]
    assert len(pip) == 1 and set(pip[0]) == {"pip"}
    assert {re.split(r"[=<>]", d)[0] for d in conda} == {"python", "pip"}
    got = [_key(x) for x in pip[0]["pip"]]
    assert len(got) == len(set(got)), "environment.yml lists a dependency twice"
    assert set(got) == {_key(x) for x in _declared()}


def test_book_tools_depend_on_kperc_and_its_test_extra():
    book = _book_tools()
    assert book["name"] == "kperc-book"
    assert "kperc" in book["dependencies"]
    assert "kperc[test]" in book["optional-dependencies"]["test"]
    assert _book_tools()["requires-python"] == _pyproject()["requires-python"]


def test_the_kperc_wheel_stays_library_only():
    """The library declares no book extra: its extras are what its own tests need and
    ``array-api`` (array-api-compat, for arrays of torch, CuPy and other namespaces)."""
    extras = _pyproject()["optional-dependencies"]
    assert set(extras) == {"test", "array-api"}
    assert [Requirement(r).name for r in extras["array-api"]] == ["array-api-compat"]
    names = {canonicalize_name(Requirement(r).name) for r in _pyproject()["dependencies"]}
    for heavy in ("matplotlib", "jupyter-book", "papermill", "pandas", "nbformat"):
        assert heavy not in names


def test_environment_python_satisfies_requires_python():
    env = _environment()
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    version = python.split("=", 1)[1]
    assert SpecifierSet(_pyproject()["requires-python"]).contains(version + ".0")


def test_jupyter_book_is_pinned_to_1x():
    book = _book_tools()["dependencies"]
    spec = next(
        Requirement(x).specifier
        for x in book
        if canonicalize_name(Requirement(x).name) == "jupyter-book"
    )
    assert spec.contains("1.0.4.post1") and not spec.contains("2.0.0")
    assert not spec.contains("1.0.3")


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    first = readme.split("\n## ")[1]  # the first section
    blocks = re.findall(r"```(?:bash|sh)?\n(.*?)```", first, re.S)
    commands = [ln.split("#")[0].strip() for b in blocks for ln in b.splitlines()]
    assert "make" in commands and "make test" in commands
    run = (ROOT / ".ci" / "run").read_text()
    executed = [
        ln.strip() for ln in run.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
    assert executed[-1] == "exec make test"
    assert sum("make test" in ln for ln in executed) == 1


def _constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            assert str(req.marker) == 'python_version == "3.11"', line
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = spec.version
    return pins


def test_constraints_pin_every_dependency_within_its_floor():
    """make env installs exact versions; they satisfy both pyprojects' honest floors."""
    pins = _constraints()
    for text in _declared(extras_book=("test",)):
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"python_version": "3.11"}):
            continue
        name = canonicalize_name(req.name)
        assert name in pins, f"requirements/constraints.txt does not pin {name}"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name])
    assert "kperc" not in pins and "kperc-book" not in pins


def test_make_env_binder_and_readme_use_the_one_install_line():
    makefile = (ROOT / "Makefile").read_text()
    assert "CONSTRAINTS := requirements/constraints.txt" in makefile
    recipe = makefile.split("\n$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert (
        "-m pip install --quiet "
        + INSTALL.replace("requirements/constraints.txt", "$(CONSTRAINTS)")
        in recipe
    )
    assert ".pth').write_text" not in makefile  # no path hack: the packages are installed
    post = [
        ln
        for ln in (ROOT / "postBuild").read_text().splitlines()
        if ln.strip() and not ln.startswith(("#", "set "))
    ]
    assert post == ["python -m pip install " + INSTALL]
    readme = (ROOT / "README.md").read_text()
    assert "python -m pip install " + INSTALL in readme
    python = next(
        d for d in _environment()["dependencies"] if isinstance(d, str) and d.startswith("python")
    )
    assert python == "python=3.11"  # the Python the constraints were frozen on
