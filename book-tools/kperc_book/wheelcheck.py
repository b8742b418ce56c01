"""The library from its wheel, outside the checkout: ``python -m kperc_book.wheelcheck``.

1. builds the ``kperc`` wheel into ``_build/wheel/``;
2. installs it with its ``test`` extra into a fresh virtual environment
   (``_build/wheel/<latest|min>/venv``), with the versions of
   ``requirements/constraints.txt`` (so pip takes them from its cache), or with
   ``--min-versions`` exactly the floor of every core dependency of ``pyproject.toml``;
3. copies the library's tests, the whole folder ``tests/lib/`` with the shared
   ``tests/conftest.py``, to a temporary folder outside the checkout and runs them there
   against the installed package (``--min-versions``: the tests not marked ``slow``).

Before anything is built, every file of ``tests/lib/`` and ``tests/conftest.py`` is read
(not imported): none may import the book's machinery (``kperc_book``), and
each may import only the standard library, ``kperc``, the dependencies of ``kperc`` and of
its ``test`` extra, and its sibling modules. A file that breaks this stops the check with
its name: the library's tests never silently shrink.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

from . import paths

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The book's own packages: a library test must never import them.
BOOK_PACKAGES = frozenset({"kperc_book"})
#: Import names of distributions whose name differs from what they are imported as.
IMPORT_NAMES = {"scikit-learn": ("sklearn",), "dask": ("dask", "distributed")}
LIB_TESTS_DIR = paths.library_tests_dir()
WHEEL_DIR = paths.wheel_dir()
CONSTRAINTS = paths.constraints_path()
PYPROJECT = paths.pyproject_path()


class WheelCheckFailed(SystemExit):
    """A step failed; the message says which."""


def _imports(path: Path) -> set[str]:
    """Top-level names of every absolute import in ``path``, nested ones included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _third_party(names: set[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n != "__future__"}


def allowed_imports(pyproject: Path = PYPROJECT) -> frozenset[str]:
    """Import names a library test may use: ``kperc``, its dependencies and test extra.

    Examples
    --------
    >>> sorted(allowed_imports())[:4]
    ['array_api_compat', 'array_api_strict', 'clarabel', 'conftest']
    >>> "kperc_book" in allowed_imports()
    False
    """
    from packaging.requirements import Requirement

    project = tomllib.loads(Path(pyproject).read_text())["project"]
    names = {"kperc", "conftest"}
    for text in project["dependencies"] + project.get("optional-dependencies", {}).get("test", []):
        req = Requirement(text)
        names.update(IMPORT_NAMES.get(req.name, (req.name.replace("-", "_"),)))
    return frozenset(names)


def library_tests(
    lib_dir: Path = LIB_TESTS_DIR,
    conftest: Path | None = paths.TESTS_DIR / "conftest.py",
    pyproject: Path = PYPROJECT,
) -> list[Path]:
    """Every test file of ``lib_dir``, after checking what each file there imports.

    Raises
    ------
    WheelCheckFailed
        ``lib_dir`` holds no test file, or a file of it (or ``conftest``) imports the
        book's machinery or a package that ``kperc`` and its test extra do not bring.
    """
    lib_dir = Path(lib_dir)
    files = sorted(p for p in lib_dir.rglob("*.py") if "__pycache__" not in p.parts)
    siblings = {p.stem for p in files}
    allowed = allowed_imports(pyproject) | siblings
    checked = files + ([Path(conftest)] if conftest is not None and Path(conftest).exists() else [])
    for path in checked:
        names = _third_party(_imports(path))
        book = sorted(names & BOOK_PACKAGES)
        if book:
            raise WheelCheckFailed(
                f"wheelcheck: {path} imports {book}: the library's tests run without the "
                "book; take instances from kperc.datasets or a helper in tests/lib/"
            )
        other = sorted(names - allowed)
        if other:
            raise WheelCheckFailed(
                f"wheelcheck: {path} imports {other}, which neither kperc nor its test "
                "extra installs; add it to [project.optional-dependencies] test in "
                "pyproject.toml or move the test to tests/book/"
            )
    tests = [p for p in files if p.name.startswith("test_")]
    if not tests:
        raise WheelCheckFailed(f"wheelcheck: no test files under {lib_dir}")
    return tests


def floors(pyproject: Path = PYPROJECT) -> list[str]:
    """``name==floor`` for every core dependency of ``pyproject.toml``."""
    from packaging.requirements import Requirement

    pins = []
    for dep in tomllib.loads(Path(pyproject).read_text())["project"]["dependencies"]:
        req = Requirement(dep)
        low = [s.version for s in req.specifier if s.operator in (">=", "==")]
        if len(low) != 1:
            raise WheelCheckFailed(f"pyproject.toml: {dep!r} has no single floor (>=)")
        pins.append(f"{req.name}=={low[0]}")
    return pins


def _run(cmd: list[str], what: str, **kw) -> None:
    print(f"wheelcheck: {what}", flush=True)
    done = subprocess.run(cmd, **kw)
    if done.returncode != 0:
        raise WheelCheckFailed(f"wheelcheck: {what} failed (exit status {done.returncode})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kperc_book.wheelcheck", description=__doc__)
    ap.add_argument(
        "--min-versions",
        action="store_true",
        help="install exactly the floor of every core dependency",
    )
    ap.add_argument("-k", default=None, help="pytest -k expression (a subset of the tests)")
    ap.add_argument(
        "-n", type=int, default=1, help="pytest-xdist workers (kperc's test extra brings it)"
    )
    args = ap.parse_args(argv)
    root = paths.require_checkout()
    tests = library_tests()
    work = WHEEL_DIR / ("min" if args.min_versions else "latest")
    shutil.rmtree(work, ignore_errors=True)
    dist = work / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["-w", str(dist), str(root)],
        "build the kperc wheel",
    )
    wheel = next(dist.glob("kperc-*.whl"))
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    py = env_dir / "bin" / "python"
    pins = floors() if args.min_versions else []
    cons = ["-c", str(CONSTRAINTS)] if CONSTRAINTS.exists() and not pins else []
    # nothing of the checkout on the path: pip would take kperc there as already installed
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", paths.ROOT_ENV)}
    _run(
        [str(py), "-m", "pip", "install", "--quiet", f"{wheel}[test]", *pins, *cons],
        f"install {wheel.name}[test] into a fresh venv"
        + (f" with {' '.join(pins)}" if pins else ""),
        env=env,
    )
    outside = Path(tempfile.mkdtemp(prefix="kperc-wheelcheck-"))
    try:
        shutil.copy2(paths.TESTS_DIR / "conftest.py", outside / "conftest.py")
        shutil.copytree(
            LIB_TESTS_DIR, outside / "lib", ignore=shutil.ignore_patterns("__pycache__")
        )
        markers = tomllib.loads(PYPROJECT.read_text())["tool"]["pytest"]["ini_options"]["markers"]
        (outside / "pytest.ini").write_text(
            "[pytest]\nmarkers =\n" + "".join(f"    {m}\n" for m in markers)
        )
        probe = (
            "import importlib.util as u, kperc\n"
            "assert 'site-packages' in kperc.__file__, kperc.__file__\n"
            "bad = [m for m in ('kperc_book',) if u.find_spec(m)]\n"
            "assert not bad, f'the book is importable next to the wheel: {bad}'\n"
        )
        _run(
            [str(py), "-c", probe],
            "kperc imports from the installed wheel, the book's tools do not",
            cwd=outside,
            env=env,
        )
        cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        cmd += ["-m", "not slow"] if args.min_versions else []
        cmd += ["-k", args.k] if args.k else []
        cmd += ["-n", str(args.n)] if args.n > 1 else []
        _run(
            cmd + ["lib"],
            f"the library's tests (tests/lib/, {len(tests)} files) outside the checkout",
            cwd=outside,
            env=env,
        )
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    print("wheelcheck: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
