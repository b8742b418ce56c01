"""CONTRIBUTING.md's "where to put what" table matches the tree.

Every path the table names exists, every module of the library has a row, and every
module of the book's packages is named in its package's row, so that a newcomer who
reads the table finds each file where it says.
"""

from __future__ import annotations

import re

from kperc_book import paths

TEXT = (paths.ROOT / "CONTRIBUTING.md").read_text()
ROWS = [line for line in TEXT.splitlines() if line.startswith("| `")]


def _first_column(row: str) -> list[str]:
    return re.findall(r"`([^`]+)`", row.split(" | ")[0])


def test_every_path_in_the_table_exists():
    named = [p for row in ROWS for p in _first_column(row)]
    assert len(named) > 20
    missing = [p for p in named if not (paths.ROOT / p).exists()]
    assert not missing, f"CONTRIBUTING.md names paths that do not exist: {missing}"


def test_every_library_module_has_a_row():
    named = {p for row in ROWS for p in _first_column(row)}
    modules = sorted(
        p.relative_to(paths.ROOT).as_posix() for p in (paths.ROOT / "kperc").glob("*.py")
    )
    missing = [m for m in modules if m not in named]
    assert not missing, f"library modules without a row in CONTRIBUTING.md: {missing}"


def test_every_book_module_is_named_in_its_packages_row():
    tools = paths.ROOT / "book-tools"
    for package in ("kperc_book",):
        row = next(r for r in ROWS if _first_column(r) == [f"book-tools/{package}/"])
        for module in sorted((tools / package).glob("*.py")):
            if module.name == "__init__.py":
                continue
            stem = module.name
            generic = re.sub(r"ch\d\d", "chNN", stem)
            assert stem in row or generic in row, (
                f"book-tools/{package}/{stem} is not named in CONTRIBUTING.md's row for "
                f"book-tools/{package}/"
            )
