"""``kperc_book.paths`` is the only module of ``book-tools/`` that knows the layout.

Every other module takes its folders from it (``paths.generated_dir(root)``, ...), so a
folder moved or renamed is changed in one place. The scan below flags a layout name
(``paths.LAYOUT_NAMES``: ``book``, ``_generated``, ``figures``, ``_build``, ``data``, ...)
wherever a module builds a path with it:

* an operand of ``/`` (``root / "book"``);
* an argument of ``Path``, ``PurePath``, ``joinpath`` or ``os.path.join``;
* a path-like string (no white space, with a ``/``) with such a component
  (``"book/_generated"``, ``f"figures/{name}"``, a ``glob`` pattern);
* an element of a tuple, list or set literal that a loop walks
  (``for sub in ("_generated", "figures")``).

Stated exceptions: ``paths.py`` itself; docstrings, comments and messages (text with
white space describes the layout to a reader and builds no path); the same words used
as record keys (``rec["figures"]``, ``{"data": ...}``), which are not folders.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from kperc_book import paths

BOOK_TOOLS = Path(paths.__file__).resolve().parents[1]
PATH_CALLS = {"Path", "PurePath", "PurePosixPath", "joinpath", "join"}
#: Names of the checkout's root other than ``ROOT``/``root``, and the constants of
#: ``paths`` that no other module may define again (with the same or another meaning).
OTHER_ROOT_NAMES = {"REPO", "REPO_DIR", "repo_dir"}
PATHS_CONSTANTS = {n for n in paths.__all__ if n.isupper()}


def _layout_parts(text: str) -> set[str]:
    return {part for part in text.split("/") if part in paths.LAYOUT_NAMES}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def layout_spellings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every layout name ``source`` uses to build a path."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    hits: list[tuple[int, ast.Constant]] = []

    def strings(node: ast.AST) -> list[ast.Constant]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node]
        if isinstance(node, ast.JoinedStr):
            return [v for v in node.values if isinstance(v, ast.Constant)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            for side in (node.left, node.right):
                hits += [c for c in strings(side) if _layout_parts(c.value)]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in PATH_CALLS:
                for arg in node.args:
                    hits += [c for c in strings(arg) if _layout_parts(c.value)]
        elif isinstance(node, ast.For | ast.comprehension):
            if isinstance(node.iter, ast.Tuple | ast.List | ast.Set):
                for elt in node.iter.elts:
                    hits += [c for c in strings(elt) if c.value in paths.LAYOUT_NAMES]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if "/" in text and not any(ch.isspace() for ch in text) and _layout_parts(text):
                hits.append(node)
    for node in ast.walk(tree):  # the constant pieces of f-strings
        if isinstance(node, ast.JoinedStr):
            for c in strings(node):
                if "/" in c.value and not any(ch.isspace() for ch in c.value):
                    if _layout_parts(c.value):
                        hits.append(c)
    seen = set()
    out = []
    for c in hits:
        if id(c) in skip or id(c) in seen:
            continue
        seen.add(id(c))
        out.append((c.lineno, c.value))
    return sorted(out)


def _modules() -> list[Path]:
    """The book's packages' modules (not a build folder's copies of them)."""
    packages = [BOOK_TOOLS / "kperc_book"]
    return sorted(
        p
        for pkg in packages
        for p in pkg.rglob("*.py")
        if p != Path(paths.__file__).resolve() and "__pycache__" not in p.parts
    )


@pytest.mark.parametrize(
    "source",
    [
        'gen = root / "book" / "_generated"',
        'png = book / f"figures/{name}"',
        'pattern = "*.stage/_generated/ch01.json"',
        'for sub in ("_generated", "figures"):\n    print(stage / sub)',
        'toc = Path(root, "_toc.yml")',
        'scratch = build.joinpath("_build")',
    ],
)
def test_the_scan_finds_a_layout_name(source):
    assert layout_spellings(source), source


@pytest.mark.parametrize(
    "source",
    [
        '"""Reads book/_generated/runs.json."""',
        'rec = {"figures": {}, "data": {}}\nfigs = rec["figures"]',
        'print(f"{key}: changes nothing under book/; see data/manifest.json")',
        "gen = paths.generated_dir(root)",
    ],
)
def test_the_scan_passes_what_builds_no_path(source):
    assert layout_spellings(source) == [], source


def test_only_paths_spells_the_layout():
    found = []
    for module in _modules():
        for line, text in layout_spellings(module.read_text()):
            found.append(f"{module.relative_to(BOOK_TOOLS).as_posix()}:{line}: {text!r}")
    assert not found, "layout names outside kperc_book/paths.py:\n" + "\n".join(found)


def test_no_module_renames_the_root_or_shadows_a_path_constant():
    """``ROOT``/``root`` is the one name of the checkout; ``paths``'s constants stay theirs."""
    found = []
    for module in _modules():
        rel = module.relative_to(BOOK_TOOLS).as_posix()
        tree = ast.parse(module.read_text())
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id in PATHS_CONSTANTS:
                    found.append(f"{rel}:{node.lineno}: defines {t.id}")
        for node in ast.walk(tree):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.arg
                if isinstance(node, ast.arg)
                else node.asname
                if isinstance(node, ast.alias)
                else None
            )
            if name in OTHER_ROOT_NAMES:
                found.append(f"{rel}:{node.lineno}: names the root {name}")
    assert not found, "\n".join(found)


def test_paths_functions_follow_the_root(tmp_path):
    assert paths.generated_dir() == paths.GENERATED_DIR
    assert paths.figures_dir() == paths.FIGURES_DIR
    assert paths.runs_path(tmp_path) == tmp_path / "_build" / "reproduce" / "runs.json"
    assert paths.record_dirs(tmp_path / "stage") == (
        tmp_path / "stage" / "_generated",
        tmp_path / "stage" / "figures",
    )
    assert paths.reproduce_dir(tmp_path) == tmp_path / "_build" / "reproduce"
    assert paths.manifest_path(tmp_path) == tmp_path / "data" / "manifest.json"


def test_the_package_ships_what_a_chapter_reads_from_the_one_copy_in_git():
    """``kperc_book/_stored/`` mirrors the checkout's layout with symbolic links to the
    committed files (one copy in git), the package data of ``book-tools/pyproject.toml``
    are exactly :data:`paths.STORED_FILES`, and each pattern names committed files."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    links = sorted(p for p in paths.STORED.rglob("*") if p.is_symlink())
    assert links, "kperc_book/_stored/ holds no symbolic link"
    for link in links:
        rel = link.relative_to(paths.STORED)
        assert link.resolve() == (paths.ROOT / rel).resolve(), (rel, os.readlink(link))
        assert not Path(os.readlink(link)).is_absolute(), rel  # the clone may move
    for f in (f for f in paths.STORED.rglob("*") if f.is_file()):  # no second copy
        assert not f.resolve().is_relative_to(paths.STORED), f.relative_to(paths.STORED)
    config = tomllib.loads((BOOK_TOOLS / "pyproject.toml").read_text())
    data = config["tool"]["setuptools"]["package-data"]["kperc_book"]
    assert data == [f"_stored/{pattern}" for pattern in paths.STORED_FILES]
    for pattern in paths.STORED_FILES:
        assert sorted(paths.STORED.glob(pattern)), f"{pattern} matches no file"
        assert [p.name for p in sorted(paths.STORED.glob(pattern))] == [
            p.name for p in sorted(paths.ROOT.glob(pattern))
        ], pattern


# --------------------------------------------------------------------------------------
# One type and one naming rule for a problem; chapter modules apart
# --------------------------------------------------------------------------------------
#: Where problems are built: the library, the book's tools and the tests.
SOURCE_DIRS = ("kperc", "book-tools", "tests")


def _sources():
    """The checkout's Python files under :data:`SOURCE_DIRS`, without build output (a
    non-editable ``pip install`` leaves old copies under ``book-tools/build``). Build
    folders are not entered: test_install.py's pip may be writing them meanwhile."""
    for top in SOURCE_DIRS:
        for folder, dirs, files in os.walk(paths.ROOT / top):
            dirs[:] = sorted(d for d in dirs if d not in {"build", ".venv", "__pycache__"})
            yield from (Path(folder) / f for f in sorted(files) if f.endswith(".py"))


def problem_naming_faults(source: str) -> list[tuple[int, str]]:
    """(line, fault) for every break of the naming rule of CONTRIBUTING.md in ``source``.

    A problem is a :class:`kperc.datasets.Dataset`: no class named ``*Instance*`` or
    ``*Problem`` may stand for one, no function may be named ``*instance*``, and a
    function named ``make_problem`` or ``<what>_problem`` returns a ``Dataset``
    (annotated ``Dataset``, ``data.Dataset``, ...). ``test_*`` functions name tests, not
    builders, and Python's ``__instancecheck__`` hook names no problem.
    """
    faults = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            if "instance" in node.name.lower() or node.name.endswith("Problem"):
                faults.append((node.lineno, f"class {node.name}: a problem is a Dataset"))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = node.name
            if "instance" in name.lower() and name != "__instancecheck__":  # Python's hook
                faults.append((node.lineno, f"function {name}: a builder is *_problem"))
            elif name.endswith("_problem") and not name.startswith("test_"):
                ret = node.returns
                last = getattr(ret, "attr", None) or getattr(ret, "id", None)
                if isinstance(ret, ast.Constant):  # a string annotation
                    last = str(ret.value).rsplit(".", 1)[-1]
                if last != "Dataset":
                    faults.append((node.lineno, f"function {name} does not return a Dataset"))
    return faults


@pytest.mark.parametrize(
    "source",
    [
        "class Instance(dict):\n    pass\n",
        "class Problem:\n    pass\n",
        "def make_instance(kind):\n    pass\n",
        "class Worker:\n    def instance(self, spec):\n        pass\n",
        "def make_problem(kind) -> dict:\n    pass\n",
        "def planted_problem(seed):\n    pass\n",
    ],
)
def test_the_naming_scan_finds_a_second_name_or_type(source):
    assert problem_naming_faults(source)


def test_the_naming_scan_passes_the_rule():
    source = (
        "def make_problem(kind) -> data.Dataset:\n    pass\n"
        "def edge_problem(n) -> 'Dataset':\n    pass\n"
        "def test_make_problem_kinds():\n    pass\n"
        "def problem(name):\n    pass\n"
    )
    assert problem_naming_faults(source) == []


def test_a_problem_has_one_type_and_one_naming_rule():
    found = [
        f"{module.relative_to(paths.ROOT).as_posix()}:{line}: {fault}"
        for module in _sources()
        for line, fault in problem_naming_faults(module.read_text())
    ]
    assert not found, "\n".join(found)


def test_no_chapter_has_a_module_of_its_own():
    """A chapter is its notebook (CONTRIBUTING.md): no ``experiments/chNN*.py``; what
    chapters share lives in a module ``experiments/_*.py``."""
    experiments = BOOK_TOOLS / "kperc_book" / "experiments"
    assert sorted(p.name for p in experiments.rglob("ch[0-9]*.py")) == []
