"""kperc's modules import one another without a cycle (issue 30, section 4).

Every import is counted, also those inside functions (a "lazy" import is still a
circle for a reader) and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kperc

PACKAGE = Path(kperc.__file__).parent


def _edges() -> dict[str, set[str]]:
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:
                    deps.add(node.module.split(".")[0])
                elif node.level == 1:
                    deps.update(alias.name for alias in node.names)
                elif node.level == 0 and (node.module or "").startswith("kperc."):
                    deps.add(node.module.split(".")[1])
                elif node.level == 0 and node.module == "kperc":
                    deps.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "kperc":
                        deps.add(parts[1] if len(parts) > 1 else "__init__")
        edges[path.stem] = {d for d in deps if d in modules and d != path.stem}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph (depth-first search), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        stack.append(v)
        for w in sorted(edges[v]):
            if state.get(w) == 1:
                return stack[stack.index(w) :] + [w]
            if w not in state and (found := visit(w)):
                return found
        stack.pop()
        state[v] = 2
        return None

    for v in sorted(edges):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_no_import_cycle_among_kperc_modules():
    edges = _edges()
    assert {"_gram", "_gram_matrix", "_kernel_values", "_validation", "_typing"} <= set(edges)
    assert _cycle(edges) is None, " -> ".join(_cycle(edges) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
