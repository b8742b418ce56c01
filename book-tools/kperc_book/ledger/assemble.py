"""Assemble the ledger rows: the registry, the chapters' records, labels and tests.

:func:`recorded_checks` reads ``book/_generated/chNN.json``, written by
:meth:`kperc_book.chapter.Chapter.check`; :func:`locate` picks the label a row links to;
:func:`collect` builds the :class:`Row` list and :func:`problems` says what keeps it from
being complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import BOOK_DIR, GENERATED_DIR, TESTS_DIR, record_dirs
from .chapters import Label, book_labels, chapter_notebooks, check_cells
from .guards import guarding_tests
from .registry import REGISTRY, Result

__all__ = ["Row", "recorded_checks", "locate", "collect", "problems"]

_RESULT_KINDS = ("theorem", "lemma", "proposition", "corollary", "property", "criterion")


def recorded_checks(
    generated_dir: Path | str = GENERATED_DIR,
) -> dict[str, dict[str, dict[str, Any]]]:
    """``chapter -> {id -> {"ok", "detail", "instances"}}`` from ``chNN.json`` records."""
    out = {}
    for p in sorted(Path(generated_dir).glob("ch[0-9][0-9].json")):
        try:
            payload = json.loads(p.read_text())
        except json.JSONDecodeError:
            continue
        checks = payload.get("checks", {})
        if isinstance(checks, Mapping):
            out[p.stem] = {k: dict(v) for k, v in checks.items()}
    return out


def _aliases(rid: str) -> list[str]:
    out = [rid]
    for long, short in (("theorem-", "thm-"), ("lemma-", "lem-")):
        if rid.startswith(long):
            num = rid[len(long) :]
            out += [short + num, long.rstrip("-") + num, short.rstrip("-") + num]
    return out


def locate(
    rid: str,
    chapter: str,
    labels: list[Label],
    checks: Mapping[str, list[int]],
    preferred: str | None = None,
) -> Label | None:
    """The label a ledger row links to in ``chapter``.

    In order: the registry's ``preferred`` label if the chapter defines it; a label
    named after the id (``ch04-lemma-5``, ``ch04-thm-1``, ...), statements first; the
    nearest theorem-like ``prf`` block or section target above the first cell that
    checks the id; the nearest label of any kind above it; else ``None`` (the row
    links to the page).
    """
    by_name = {lab.name: lab for lab in labels}
    if preferred and preferred in by_name:
        return by_name[preferred]
    names = _aliases(rid)
    hits = [
        lab for lab in labels if any(lab.name == a or lab.name.endswith("-" + a) for a in names)
    ]
    if hits:
        hits.sort(key=lambda lab: (not lab.kind.startswith("prf:"), lab.cell))
        return hits[0]
    cells = checks.get(rid)
    if not cells:
        return None
    first = min(cells)
    above = [lab for lab in labels if lab.cell < first]
    near = [
        lab for lab in above if lab.kind.split(":")[-1] in _RESULT_KINDS or lab.kind == "target"
    ]
    if near:
        return near[-1]
    return above[-1] if above else None


@dataclass
class Row:
    """One assembled ledger row."""

    rid: str
    result: Result
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)  # chapter -> record
    where: dict[str, Label | None] = field(default_factory=dict)  # chapter -> label
    stated: Label | None = None
    tests: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Checked at least once, every record passed, and a test guards it."""
        return (
            bool(self.checks)
            and all(c.get("ok") for c in self.checks.values())
            and bool(self.tests)
        )


def collect(
    *,
    book_dir: Path | str = BOOK_DIR,
    generated_dir: Path | str | None = None,
    tests_dir: Path | str = TESTS_DIR,
    registry: Mapping[str, Result] = REGISTRY,
) -> list[Row]:
    """Assemble the ledger rows, in registry order."""
    book_dir = Path(book_dir)
    generated_dir = Path(generated_dir) if generated_dir else record_dirs(book_dir)[0]
    notebooks = chapter_notebooks(book_dir)
    labels = {ch: book_labels(p) for ch, p in notebooks.items()}
    checks_static = {ch: check_cells(p) for ch, p in notebooks.items()}
    recorded = recorded_checks(generated_dir)
    tests = guarding_tests(tests_dir)
    rows = []
    for rid, res in registry.items():
        row = Row(rid, res, tests=list(tests.get(rid, [])))
        for ch in sorted(recorded):
            if rid in recorded[ch]:
                row.checks[ch] = recorded[ch][rid]
                row.where[ch] = (
                    locate(
                        rid,
                        ch,
                        labels[ch],
                        checks_static[ch],
                        res.label if ch == res.chapter else None,
                    )
                    if ch in notebooks
                    else None
                )
        if res.chapter in notebooks:
            row.stated = locate(
                rid, res.chapter, labels[res.chapter], checks_static[res.chapter], res.label
            )
        rows.append(row)
    return rows


def problems(
    rows: Iterable[Row],
    *,
    registry: Mapping[str, Result] = REGISTRY,
    generated_dir: Path | str = GENERATED_DIR,
    tests_dir: Path | str = TESTS_DIR,
) -> list[str]:
    """Everything that keeps the ledger from being complete, one sentence each.

    A row without a recorded check, with a failed check or without a guarding test;
    a check or test marker that uses an id outside the registry.
    """
    msgs = []
    for row in rows:
        if not row.checks:
            msgs.append(f"{row.rid}: no chapter records a check (expected in {row.result.chapter})")
        for ch, rec in row.checks.items():
            if not rec.get("ok"):
                msgs.append(f"{row.rid}: the check in {ch} failed: {rec.get('detail')}")
        if not row.tests:
            msgs.append(f"{row.rid}: no test carries @pytest.mark.ledger({row.rid!r})")
    for ch, recs in recorded_checks(generated_dir).items():
        for rid in recs:
            if rid not in registry:
                msgs.append(f"{ch} checks {rid!r}, which is not a ledger id")
    for rid, nodes in guarding_tests(tests_dir).items():
        if rid not in registry:
            msgs.append(f"{nodes[0]} is marked with unknown ledger id {rid!r}")
    return msgs
