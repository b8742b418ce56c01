"""The library from its wheel, outside the checkout: ``python -m kperc_book.wheelcheck``.

1. builds the ``kperc`` wheel into ``_build/wheel/``;
2. installs it into a fresh virtual environment (``_build/wheel/venv``), with the
   versions of ``requirements/constraints.txt`` (so pip takes them from its cache), or
   with ``--min-versions`` exactly the floor of every core dependency of
   ``pyproject.toml``;
3. copies the library's tests to a temporary folder outside the checkout and runs them
   there against the installed package.

The library's tests are the files of ``tests/`` that import ``kperc`` and otherwise only
the standard library, numpy, scipy, scikit-learn, joblib, pytest and hypothesis (with
their ``conftest.py``, which must import no book module), minus :data:`CHECKOUT_TESTS`,
which inspect the checkout itself.
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

#: Top-level modules a library test may import besides the standard library.
ALLOWED = {"kperc", "numpy", "scipy", "sklearn", "joblib", "pytest", "hypothesis", "conftest"}
#: Test-only packages installed next to the wheel.
TEST_DEPS = ("pytest", "hypothesis")
#: Tests that import only kperc but read files of the checkout (README, pyproject).
CHECKOUT_TESTS = {"test_packaging.py"}
WHEEL_DIR = paths.BUILD_DIR / "wheel"
CONSTRAINTS = paths.ROOT / "requirements" / "constraints.txt"


class WheelCheckFailed(SystemExit):
    """A step failed; the message says which."""


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _third_party(names: set[str]) -> set[str]:
    return {n for n in names if n not in sys.stdlib_module_names and n != "__future__"}


def library_tests(tests_dir: Path = paths.TESTS_DIR) -> list[Path]:
    """The test files that exercise only the installed ``kperc`` (see the module doc)."""
    conftest = tests_dir / "conftest.py"
    if conftest.exists():
        bad = _third_party(_imports(conftest)) - ALLOWED
        if bad:
            raise WheelCheckFailed(
                f"tests/conftest.py imports {sorted(bad)}: the library's tests run without "
                "the book; import the generators from kperc.datasets instead"
            )
    out = []
    for p in sorted(tests_dir.glob("test_*.py")):
        names = _third_party(_imports(p))
        if "kperc" in names and names <= ALLOWED and p.name not in CHECKOUT_TESTS:
            out.append(p)
    return out


def floors(pyproject: Path = paths.ROOT / "pyproject.toml") -> list[str]:
    """``name==floor`` for every core dependency of ``pyproject.toml``."""
    from packaging.requirements import Requirement

    pins = []
    for dep in tomllib.loads(pyproject.read_text())["project"]["dependencies"]:
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
    args = ap.parse_args(argv)
    root = paths.require_checkout()
    tests = library_tests()
    if not tests:
        raise WheelCheckFailed("wheelcheck: no library tests found under tests/")
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
    _run(
        [str(py), "-m", "pip", "install", "--quiet", str(wheel), *pins, *TEST_DEPS, *cons],
        f"install {wheel.name} into a fresh venv" + (f" with {' '.join(pins)}" if pins else ""),
    )
    outside = Path(tempfile.mkdtemp(prefix="kperc-wheelcheck-"))
    try:
        for p in [paths.TESTS_DIR / "conftest.py", *tests]:
            if p.exists():
                shutil.copy2(p, outside / p.name)
        markers = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"][
            "ini_options"
        ]["markers"]
        (outside / "pytest.ini").write_text(
            "[pytest]\nmarkers =\n" + "".join(f"    {m}\n" for m in markers)
        )
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        probe = "import kperc, sys; assert 'site-packages' in kperc.__file__, kperc.__file__"
        _run([str(py), "-c", probe], "kperc imports from the installed wheel", cwd=outside, env=env)
        cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        cmd += ["-m", "not slow"] if args.min_versions else []
        cmd += ["-k", args.k] if args.k else []
        _run(
            cmd + [p.name for p in tests],
            f"the library's tests ({len(tests)} files) outside the checkout",
            cwd=outside,
            env=env,
        )
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    print("wheelcheck: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
