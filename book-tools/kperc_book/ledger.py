"""The theorem ledger: every result the book states, where it is checked, what guards it.

:data:`REGISTRY` is the static part: one :class:`Result` per ledger id (the ids of
CONTRIBUTING.md), with the result's name, a one-line statement, the explicit constant
the book uses (derived on the Sources and derivations page) and the chapter that
states it. Everything else is discovered when the ledger page (``book/ledger.ipynb``) is
regenerated:

* :func:`recorded_checks` reads ``book/_generated/chNN.json``, written by
  :meth:`kperc_book.chapter.Chapter.check` during the last regeneration of each chapter
  (``{"checks": {id: {"ok", "detail", "instances"}}}``);
* :func:`guarding_tests` scans ``tests/*.py`` statically (with :mod:`ast`) for tests
  marked ``@pytest.mark.ledger("<id>")``;
* :func:`book_labels` and :func:`check_cells` scan the chapter notebooks for the labels
  of ``prf`` blocks, figures and targets, and for the cells that call
  ``ch.check("<id>", ...)``; :func:`locate` picks the label a ledger row links to.

:func:`collect` assembles the rows and :func:`table_markdown` renders the MyST table
that the ledger page shows. ``python -m kperc_book.ledger`` prints the table, and
``--strict`` exits with status 1 if a result lacks a passing check or a guarding test.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Result",
    "REGISTRY",
    "ORIGINS",
    "Label",
    "Row",
    "recorded_checks",
    "guarding_tests",
    "book_labels",
    "check_cells",
    "check_ids_in_notebooks",
    "chapter_notebooks",
    "locate",
    "collect",
    "problems",
    "table_markdown",
    "details_markdown",
    "main",
]

from . import paths as _paths  # noqa: E402
from .paths import BOOK_DIR, GENERATED_DIR, TESTS_DIR  # noqa: E402


@dataclass(frozen=True)
class Result:
    """A stated result of the book (one ledger row).

    Attributes
    ----------
    name : str
        Name as the book uses it (``"Lemma 5 (excessive gap)"``).
    statement : str
        One-line summary in MyST markdown (math in ``$...$``).
    constant : str
        The explicit constant or bound the book checks, in MyST markdown.
    chapter : str
        Key of the chapter that states the result (``"ch04"``).
    paper : str
        Where the result sits in the paper (its section number).
    label : str or None
        Label of the ``prf`` block (or figure) that states it, when it should not be
        discovered from the notebooks (:func:`locate`).
    status : str
        Where the statement and its constant come from, a key of :data:`ORIGINS`:
        ``"paper"`` (stated in the paper or the authors' talk, proof re-derived here),
        ``"paper+constant"`` (stated there, explicit constant derived in this book),
        ``"derived"`` (derived in this book) or ``"uncertain"`` (the sources do not settle
        it).
    """

    name: str
    statement: str
    constant: str
    chapter: str
    paper: str
    label: str | None = None
    status: str = "paper"


#: How the ledger page words :attr:`Result.status` (where a result comes from).
ORIGINS: dict[str, str] = {
    "paper": "stated in the paper",
    "paper+constant": "stated in the paper; explicit constant derived here",
    "derived": "derived in this book",
    "uncertain": "uncertain: neither the paper nor the talk settles it",
}

#: Every result the book states, by ledger id (CONTRIBUTING.md); the explicit constants
#: are derived on the book's Sources and derivations page.
REGISTRY: dict[str, Result] = {
    "block-novikoff": Result(
        "Block-Novikoff bound",
        r"If a unit $w^\star$ has $y_i x_i^\top w^\star\ge\rho>0$ for all $i$, the "
        r"Perceptron (Alg. 1) makes at most $R^2/\rho^2$ updates, $R=\max_i\|x_i\|_2$.",
        r"$K\le R^2/\rho^2$",
        "ch02",
        "2.1",
        label="ch02-thm-block-novikoff",
    ),
    "np-bound": Result(
        "Normalised Perceptron bound",
        r"On the normalised data $A=X_2Y$, Alg. 2 halts once $\rho_2>0$.",
        r"$K\le 1/\rho_2^2$",
        "ch02",
        "2.2",
        status="paper+constant",
        label="ch02-thm-np",
    ),
    "normalizing-never-hurts": Result(
        "Normalising never weakens the bound",
        r"The normalised margin dominates the scaled raw margin, so the normalised "
        r"bound is never worse.",
        r"$\rho/\max_i\|x_i\|_2\le\rho_2$, hence $1/\rho_2^2\le R^2/\rho^2$",
        "ch02",
        "2.2",
        label="ch02-prop-normalizing",
    ),
    "np-equals-perceptron": Result(
        "Normalised Perceptron = Perceptron",
        r"$k\,w_k$ of Alg. 2 is the Perceptron iterate with the most-violated-point rule "
        r"on normalised data; the sign patterns coincide.",
        r"exact identity $k\,w_k=\sum_{j<k}a_{i_j}$",
        "ch02",
        "2.1",
        label="ch02-prop-np-perceptron",
    ),
    "lemma-1": Result(
        "Lemma 1",
        r"$L(\alpha)<0\Rightarrow G\alpha>0$; a perfect classifier exists iff "
        r"$G\alpha>0$ for some $\alpha$.",
        r"$\min_i(G\alpha)_i>\tfrac12\|\alpha\|_G^2\ge0$ when $L(\alpha)<0$",
        "ch03",
        "3",
        label="ch03-lemma-1",
    ),
    "lemma-2": Result(
        "Lemma 2",
        r"The $G$-seminorm is dominated by the $\ell_1$ and $\ell_2$ norms.",
        r"$\|\alpha\|_G\le\|\alpha\|_1\le\sqrt n\,\|\alpha\|_2$",
        "ch03",
        "3",
        label="ch03-lemma-2",
    ),
    "lemma-3": Result(
        "Lemma 3",
        r"For $\rho_K>0$, $f$ is a unit max-margin function iff $\rho_K f$ minimises $L$; "
        r"$\min L=-\rho_K^2/2$; and $\rho_K\le\|p\|_G$ for every $p\in\Delta_n$.",
        r"$\rho_K\le\|p\|_G$; $\min_f L(f)=-\tfrac12\rho_K^2$",
        "ch03",
        "3",
        label="ch03-lemma-3",
    ),
    "minimax-margin": Result(
        "Minimax form of the margin",
        r"When positive, the normalised kernel margin is the distance from the origin to "
        r"the hull of the signed points (the bias-free hard-margin SVM).",
        r"$\rho_K=\min_{p\in\Delta_n}\|p\|_G$",
        "ch03",
        "3",
        status="derived",
        label="ch03-prop-minimax",
    ),
    "nkp-bound": Result(
        "NKP bound",
        r"The Normalised Kernel Perceptron (Alg. 3) halts once $\rho_K>0$.",
        r"$K\le 1/\rho_K^2$",
        "ch03",
        "4",
        status="paper+constant",
        label="ch03-prop-nkp-bound",
    ),
    "nkp-equals-np": Result(
        "NKP = Normalised Perceptron (linear kernel)",
        r"With the linear kernel, NKP and Alg. 2 have identical iterates.",
        r"exact identity $w_k=A\alpha_k$",
        "ch03",
        "4",
        label="ch03-prop-nkp-bound",
    ),
    "lemma-4": Result(
        "Lemma 4",
        r"Smoothing with the entropy lowers the loss by at most $\mu\log n$.",
        r"$L(\alpha)-\mu\log n\le L_\mu(\alpha)\le L(\alpha)$",
        "ch04",
        "4",
    ),
    "lemma-5": Result(
        "Lemma 5 (excessive gap)",
        r"Every SNKP iterate satisfies the excessive-gap inequality when $\mu_0\ge2$.",
        r"$L_{\mu_k}(\alpha_k)\le-\tfrac12\|p_k\|_G^2$ with $\mu_0=2$",
        "ch04",
        "4 and Appendix",
        status="paper+constant",
    ),
    "theorem-1": Result(
        "Theorem 1 (SNKP rate)",
        r"If $\rho_K>0$, SNKP (Alg. 4) halts with a separator.",
        r"$K(K+1)\le 8\log n/\rho_K^2$, so $K<2\sqrt{2\log n}/\rho_K$",
        "ch04",
        "4",
        status="paper+constant",
    ),
    "mu-closed-form": Result(
        "Closed form of the smoothing parameter",
        r"The recursion $\mu_{k+1}=(1-\theta_k)\mu_k$, $\theta_k=2/(k+3)$, has a closed "
        r"form.",
        r"$\mu_k=2\mu_0/((k+1)(k+2))$: $4/((k+1)(k+2))$ (SNKP), $4n/((k+1)(k+2))$ "
        r"(SNKPVN)",
        "ch04",
        "4 and 6",
        status="derived",
        label="ch04-prop-mu",
    ),
    "gordan": Result(
        "Lemma 6 (Gordan)",
        r"Exactly one holds: some $w$ has $A^\top w>0$, or some $p\in\Delta_n$ has "
        r"$Ap=0$.",
        r"alternative: $\min_{p\in\Delta}\|Ap\|_2>0$ or $=0$",
        "ch05",
        "5",
    ),
    "theorem-2": Result(
        "Theorem 2 (Gordan in an RKHS)",
        r"Exactly one holds: some $\alpha$ has $G\alpha>0$, or some $p\in\Delta_n$ has "
        r"$\|p\|_G=0$ ($Gp=0$).",
        r"alternative: $\min_{p\in\Delta}\|p\|_G>0$ or $=0$",
        "ch05",
        "5.1",
    ),
    "dantzig": Result(
        "Dantzig's bound for von Neumann's algorithm",
        r"Each NVN step (Alg. 5) with a non-positive inner product shrinks $\|w\|$.",
        r"$\|w_{k+1}\|^{-2}\ge\|w_k\|^{-2}+1$, so $\|w_k\|^2\le 1/(k+1)$ and "
        r"$K\le\lceil 1/\varepsilon^2\rceil-1$",
        "ch05",
        "5",
        status="paper+constant",
    ),
    "epelman-freund-primal": Result(
        "Epelman-Freund, primal side",
        r"NVN with the primal exit finds a separator when $\rho_2>0$.",
        r"$K\le 1/\rho_2^2$",
        "ch05",
        "5",
        status="paper+constant",
    ),
    "epelman-freund-dual": Result(
        "Epelman-Freund, dual side (linear rate)",
        r"If the problem is infeasible with margin $\rho<0$, NVN converges linearly.",
        r"$\|w_{k+1}\|^2\le(1-\rho^2)\|w_k\|^2$, "
        r"$K\le\lceil 2\ln(1/\varepsilon)/\rho^2\rceil$",
        "ch05",
        "5",
        status="paper+constant",
    ),
    "theorem-3": Result(
        "Theorem 3 (negative margin)",
        r"If the primal is infeasible, $|\rho_K|$ is the radius of the largest ball "
        r"around $0$ (within the span) contained in the hull of the signed points.",
        r"$|\rho_K|=\sup\{\delta:\|f\|_K\le\delta\Rightarrow f\in\mathrm{conv}(a_i)\}$",
        "ch05",
        "5.2",
        status="paper+constant",
    ),
    "lemma-7": Result(
        "Lemma 7 (Hoffman-type bound)",
        r"If $\rho_K<0$, a small $\|q\|_G$ means $q$ is close to the witness set $W$.",
        r"$\mathrm{dist}(q,W)\le\sqrt2\|q\|_G/(\|q\|_G+|\rho_K|)$ "
        r"$\le\min\{\sqrt2,\sqrt2\|q\|_G/|\rho_K|\}$",
        "ch06",
        "6",
        status="paper+constant",
    ),
    "lemma-8": Result(
        "Lemma 8",
        r"Along SNKPVN ($\mu_0=2n$, any $q\in\Delta_n$) the smoothed loss is sandwiched.",
        r"$-\tfrac12\|p_k\|_G^2\ge L^q_{\mu_k}(\alpha_k)\ge L(\alpha_k)-\mu_k$",
        "ch06",
        "6",
        status="paper+constant",
    ),
    "lemma-9": Result(
        "Lemma 9",
        r"If $W\ne\emptyset$, the smoothed loss along SNKPVN is bounded below by the "
        r"distance to $W$.",
        r"$-\tfrac12\|p_k\|_G^2\ge L^q_{\mu_k}(\alpha_k)\ge-\tfrac12\mu_k\,"
        r"\mathrm{dist}(q,W)^2$",
        "ch06",
        "6",
        status="paper+constant",
    ),
    "snkpvn-bound": Result(
        "SNKPVN bound (separable case)",
        r"If $\rho_K>0$, SNKPVN$(q,\delta)$ halts for any $\delta$, and only with a "
        r"separator when $\delta\le\rho_K$.",
        r"$K(K+1)\le 8n/\max(\rho_K,\delta)^2$, so $K<2\sqrt{2n}/\max(\rho_K,\delta)$",
        "ch06",
        "6",
        status="paper+constant",
    ),
    "snkpvn-infeasible-bound": Result(
        "SNKPVN bound (infeasible case)",
        r"If $W\ne\emptyset$, SNKPVN$(q,\delta)$ returns a $\delta$-certificate.",
        r"$K<2\sqrt n\,\mathrm{dist}(q,W)/\delta\le 2\sqrt{2n}/\delta$",
        "ch06",
        "6",
        status="derived",
    ),
    "isnkpvn": Result(
        "ISNKPVN guarantee",
        r"ISNKPVN$(\gamma,\varepsilon)$ returns a separator or an $\varepsilon$-certificate; "
        r"$\|q_t\|_G$ falls by $\gamma$ per call.",
        r"$\rho_K>\varepsilon$: at most "
        r"$\max\{1,\lceil\log(\|q_0\|_G/\rho_K)/\log\gamma\rceil\}$ calls of "
        r"$<2\sqrt{2n}/\rho_K$ iterations; otherwise at most "
        r"$\lfloor\log(\|q_0\|_G/\varepsilon)/\log\gamma\rfloor+1$ calls",
        "ch06",
        "6",
        status="paper+constant",
    ),
}


# --------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------


def chapter_notebooks(book_dir: Path | str = BOOK_DIR) -> dict[str, Path]:
    """``chapter key -> notebook`` for every ``book/chNN_*.ipynb``."""
    out = {}
    for p in sorted(Path(book_dir).glob("ch[0-9][0-9]_*.ipynb")):
        out.setdefault(p.name[:4], p)
    return out


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


@dataclass(frozen=True)
class Label:
    """A cross-reference target in a chapter notebook."""

    name: str
    kind: str  # "prf:<type>", "figure" or "target"
    cell: int  # index of the markdown cell that defines it
    title: str = ""

    @property
    def role(self) -> str:
        """The MyST role that links to it."""
        if self.kind.startswith("prf:"):
            return "prf:ref"
        if self.kind == "figure":
            return "numref"
        return "ref"

    def link(self, text: str | None = None) -> str:
        """``{prf:ref}`label``` (or ``{numref}``/``{ref}``), optionally with ``text``."""
        target = f"{text} <{self.name}>" if text else self.name
        return f"{{{self.role}}}`{target}`"


_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<directive>[a-z:-]+)\}\s*(?P<title>.*)$")
_TARGET = re.compile(r"^\((?P<name>[A-Za-z0-9_.:-]+)\)=\s*$")
_OPTION = re.compile(r"^:(?P<key>label|name):\s*(?P<value>\S+)\s*$")
_CHECK = re.compile(r"""\.check\(\s*(?:result_id\s*=\s*)?["']([A-Za-z0-9_-]+)["']""")
_RESULT_KINDS = ("theorem", "lemma", "proposition", "corollary", "property", "criterion")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _read_nb(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def book_labels(path: Path | str) -> list[Label]:
    """Labels of ``prf`` blocks, figures (``:name:``) and ``(target)=`` in a notebook."""
    labels = []
    for i, cell in enumerate(_read_nb(Path(path))["cells"]):
        if cell.get("cell_type") != "markdown":
            continue
        directive, title = None, ""
        for line in _source(cell).splitlines():
            s = line.strip()
            m = _FENCE.match(s)
            if m:
                directive, title = m.group("directive"), m.group("title").strip()
                continue
            m = _TARGET.match(s)
            if m:
                labels.append(Label(m.group("name"), "target", i))
                continue
            m = _OPTION.match(s)
            if m and directive:
                if directive.startswith("prf:") and m.group("key") == "label":
                    labels.append(Label(m.group("value"), directive, i, title))
                elif m.group("key") == "name" and "figure" in directive:
                    labels.append(Label(m.group("value"), "figure", i, title))
                continue
            if s and not s.startswith(":"):
                directive = None if s.startswith(("```", ":::")) else directive
    return labels


def check_cells(path: Path | str) -> dict[str, list[int]]:
    """``ledger id -> indices of the code cells`` that call ``ch.check("<id>", ...)``.

    Only literal ids are seen; ids held in variables are found at run time in the
    chapter's JSON record instead (:func:`recorded_checks`).
    """
    out: dict[str, list[int]] = {}
    for i, cell in enumerate(_read_nb(Path(path))["cells"]):
        if cell.get("cell_type") == "code":
            for rid in _CHECK.findall(_source(cell)):
                out.setdefault(rid, []).append(i)
    return out


def check_ids_in_notebooks(book_dir: Path | str = BOOK_DIR) -> dict[str, set[str]]:
    """``chapter -> ids`` of every literal ``ch.check("<id>", ...)`` call."""
    return {ch: set(check_cells(p)) for ch, p in chapter_notebooks(book_dir).items()}


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
    generated_dir = Path(generated_dir) if generated_dir else _paths.record_dirs(book_dir)[0]
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


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------


def _doc(ch: str, notebooks: Mapping[str, Path]) -> str:
    return f"{{doc}}`{ch} <{notebooks[ch].stem}>`" if ch in notebooks else ch


def _cell(text: str) -> str:
    """Make MyST text safe inside a pipe-table cell.

    A ``|`` would end the cell, even inside math, so the norm bars of LaTeX become
    ``\\Vert`` and ``\\vert`` (there are no pipes outside math in the book's tables).
    """
    return text.replace(r"\|", r"\Vert ").replace("|", r"\vert ").replace("\n", " ")


def _test_link(nodeid: str) -> str:
    path, _, name = nodeid.partition("::")
    path = path.rsplit("/", 1)[-1]
    return f"`{name}` ({path})" if name else f"`{path}`"


def _status(row: Row) -> str:
    if not row.checks:
        status = "**missing**"
    elif all(c.get("ok") for c in row.checks.values()):
        inst = [c.get("instances") for c in row.checks.values()]
        total = sum(i for i in inst if isinstance(i, int))
        status = "ok" + (f"<br>{total} instances" if total else "")
    else:
        status = "**FAILED**"
    if row.checks and not row.tests:
        status += "<br>**untested**"
    return status


def table_markdown(rows: Iterable[Row], *, book_dir: Path | str = BOOK_DIR) -> str:
    """The ledger as a MyST pipe table (one row per result), narrow enough for the page.

    Four columns: the status first, then the result (its name, a link to the statement
    and where it comes from), the statement with its explicit constant on a second line,
    and the chapters that check it with the guarding tests in a collapsed block.
    """
    notebooks = chapter_notebooks(book_dir)
    lines = [
        "| status | result | statement and explicit constant | checked in, guarded by |",
        "|---|---|---|---|",
    ]
    for row in rows:
        res = row.result
        name = f"**{res.name}**" + (f", {row.stated.link('statement')}" if row.stated else "")
        name += f"<br>*{ORIGINS.get(res.status, res.status)}*"
        where = []
        for ch, lab in row.where.items():
            if lab is not None:
                # prf blocks whose title is math render an empty default link text
                text = lab.kind[4:] if lab.kind.startswith("prf:") else None
                where.append(f"{_doc(ch, notebooks)} ({lab.link(text)})")
            else:
                where.append(_doc(ch, notebooks))
        checked = "<br>".join(where) if where else "not checked yet"
        if row.tests:
            n = len(row.tests)
            checked += (
                f"<details><summary>{n} test{'s' if n > 1 else ''}</summary>"
                + "<br>".join(_test_link(t) for t in row.tests)
                + "</details>"
            )
        else:
            checked += "<br>no guarding test"
        statement = f"{res.statement}<br>Constant: {res.constant}"
        lines.append(
            "| " + " | ".join(_cell(x) for x in (_status(row), name, statement, checked)) + " |"
        )
    return "\n".join(lines) + "\n"


def details_markdown(rows: Iterable[Row], *, book_dir: Path | str = BOOK_DIR) -> str:
    """What each recorded check verified, as a MyST definition list."""
    notebooks = chapter_notebooks(book_dir)
    out = []
    for row in rows:
        out.append(f"{row.result.name} (`{row.rid}`)")
        if not row.checks:
            out.append(": not checked by any chapter yet\n")
            continue
        for ch, rec in row.checks.items():
            state = "ok" if rec.get("ok") else "FAILED"
            inst = rec.get("instances")
            more = f", {inst} instances" if inst else ""
            detail = str(rec.get("detail", "")).replace("`", "'")
            out.append(f": {_doc(ch, notebooks)} ({state}{more}): {detail}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m kperc_book.ledger [--strict]``: print the ledger table and its gaps."""
    ap = argparse.ArgumentParser(prog="python -m kperc_book.ledger", description=main.__doc__)
    ap.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 if a result lacks a passing check or a test",
    )
    args = ap.parse_args(argv)
    _paths.require_checkout()
    rows = collect()
    print(table_markdown(rows), end="")
    gaps = problems(rows)
    for msg in gaps:
        print("GAP", msg)
    print(f"{sum(r.ok for r in rows)} of {len(rows)} results checked and guarded by a test")
    return 1 if (args.strict and gaps) else 0


if __name__ == "__main__":
    sys.exit(main())
