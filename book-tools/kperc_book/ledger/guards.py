"""The tests that guard a stated result: ``@pytest.mark.ledger("<id>")``, found with :mod:`ast`."""

from __future__ import annotations

import ast
from pathlib import Path

from ..paths import TESTS_DIR

__all__ = ["guarding_tests"]


def _mark_ids(node: ast.AST) -> list[str]:
    """Ledger ids of every ``pytest.mark.ledger("...")`` call inside ``node``."""
    ids = []
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "ledger"
            and isinstance(sub.func.value, ast.Attribute)
            and sub.func.value.attr == "mark"
        ):
            ids += [
                a.value
                for a in sub.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
    return ids


def _visit_tests(
    body, prefix: str, parents: list[str], inherited: list[str], out: dict[str, list[str]]
) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            ids = inherited + [i for d in node.decorator_list for i in _mark_ids(d)]
            _visit_tests(node.body, prefix, parents + [node.name], ids, out)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            ids = inherited + [i for d in node.decorator_list for i in _mark_ids(d)]
            nodeid = "::".join([prefix, *parents, node.name])
            for rid in dict.fromkeys(ids):
                out.setdefault(rid, []).append(nodeid)


def guarding_tests(tests_dir: Path | str = TESTS_DIR) -> dict[str, list[str]]:
    """``ledger id -> test node ids`` of the tests marked ``pytest.mark.ledger(id)``.

    Found by parsing ``tests/**/test_*.py`` (no import, no collection): markers on test
    functions and methods, on their classes, in a module-level ``pytestmark``, and in
    ``pytest.param(..., marks=...)`` inside a decorator. Node ids look like
    ``tests/lib/test_x.py::TestY::test_z`` (relative to the repository).
    """
    tests_dir = Path(tests_dir)
    out: dict[str, list[str]] = {}
    # tests/lib/ and tests/book/; ordered by file name, as the ledger page lists them
    for path in sorted(tests_dir.rglob("test_*.py"), key=lambda p: (p.name, p)):
        tree = ast.parse(path.read_text(), filename=str(path))
        module_ids: list[str] = []
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                module_ids += _mark_ids(node.value)
        prefix = path.relative_to(tests_dir.parent).as_posix()
        _visit_tests(tree.body, prefix, [], module_ids, out)
    return out
