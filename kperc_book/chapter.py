"""Helpers that chapter notebooks share: checks, figures and glued numbers.

A chapter notebook starts with ``ch = Chapter("ch04")`` and then

* ``ch.check(result_id, ok, detail)`` records the outcome of a numerical check of a
  lemma or theorem (and raises if it failed, so a broken claim stops the
  regeneration). The records feed the theorem ledger.
* ``ch.savefig(fig, "rates")`` writes ``book/figures/ch04-rates.png`` (opaque
  background, byte-reproducible) and records its sha256 and the datasets it read, for
  the reproducibility report.
* ``ch.glue("slope_snkp", value, digits=3)`` rounds a number and glues it with myst-nb,
  so the prose quotes computed values.
* ``ch.load("breast_cancer")`` loads a stored dataset (hash verified) and remembers it.

Records live in ``book/_generated/`` as one JSON file per chapter, rewritten from
scratch each time the chapter runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from . import data as _data

__all__ = ["Chapter", "BOOK_DIR", "GENERATED_DIR", "FIGURES_DIR"]

from .paths import BOOK_DIR, FIGURES_DIR, GENERATED_DIR  # noqa: E402

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def _write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True, default=_json_default) + "\n")
    tmp.replace(path)


def style() -> None:
    """Matplotlib defaults for the book: opaque white figures readable in dark mode."""
    import matplotlib as mpl

    mpl.rcParams.update({
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "savefig.facecolor": "white",
        "savefig.transparent": False,
        "figure.dpi": 100,
        "savefig.dpi": 110,
        "font.size": 10,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "svg.hashsalt": "kperc",
    })


class Chapter:
    """Context of one chapter notebook.

    Parameters
    ----------
    key : str
        Short chapter key such as ``"ch04"``; prefixes figure names.
    """

    def __init__(self, key: str):
        if not _NAME.match(key):
            raise ValueError(f"chapter key must be lower-case letters/digits; got {key!r}")
        self.key = key
        self.checks: dict[str, dict[str, Any]] = {}
        self.figures: dict[str, dict[str, Any]] = {}
        self.datasets: dict[str, str] = {}
        self._path = GENERATED_DIR / f"{key}.json"
        style()
        self._flush()

    def _flush(self) -> None:
        _write_json(self._path, {"chapter": self.key, "checks": self.checks,
                                 "figures": self.figures, "datasets": self.datasets})

    def load(self, name: str) -> _data.Dataset:
        """Load a stored dataset (sha256 verified) and remember that this chapter read it."""
        ds = _data.load(name)
        self.datasets[name] = ds.info["sha256"]
        self._flush()
        return ds

    def check(self, result_id: str, ok: bool, detail: str, *, instances: int | None = None
              ) -> bool:
        """Record a numerical check of a stated result; raise if it failed.

        Parameters
        ----------
        result_id : str
            Identifier of the result (for example ``"lemma-5"``), as listed in the ledger.
        ok : bool
            Whether every instance satisfied the statement.
        detail : str
            What was checked, with rounded numbers (for example the worst ratio).
        instances : int, optional
            Number of instances or iterates checked.
        """
        ok = bool(ok)
        self.checks[result_id] = {"ok": ok, "detail": str(detail), "instances": instances}
        self._flush()
        if not ok:
            raise AssertionError(f"{self.key}: check {result_id!r} failed: {detail}")
        print(f"[check] {result_id}: OK - {detail}")
        return ok

    def savefig(self, fig, name: str, *, data: tuple[str, ...] | None = None) -> Path:
        """Save ``fig`` as ``book/figures/<key>-<name>.png`` and record its provenance.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
        name : str
            Content part of the file name (lower case, digits, ``-`` or ``_``).
        data : tuple of str, optional
            Stored datasets the figure shows; default: every dataset this chapter loaded.
            Figures of generated instances record none.
        """
        if not _NAME.match(name):
            raise ValueError(f"figure name must be lower-case letters/digits/-/_; got {name!r}")
        FIGURES_DIR.mkdir(parents=True, exist_ok=True)
        fname = f"{self.key}-{name}.png"
        path = FIGURES_DIR / fname
        tmp = FIGURES_DIR / f".{fname}.tmp"
        fig.savefig(tmp, format="png", bbox_inches="tight", metadata={"Software": None})
        tmp.replace(path)
        used = self.datasets if data is None else {d: _data.manifest()[d]["sha256"]
                                                    for d in data}
        self.figures[fname] = {
            "file": f"figures/{fname}",
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "data": dict(used),
        }
        self._flush()
        return path

    def glue(self, name: str, value, *, digits: int = 4, display: bool = False):
        """Round ``value`` and glue it with myst-nb under ``name``; return the rounded value.

        Floats are rounded to ``digits`` significant digits so that re-execution on the
        same machine reproduces the stored output exactly.
        """
        from myst_nb import glue as _glue

        if isinstance(value, (float, np.floating)):
            value = float(f"{float(value):.{digits}g}")
        elif isinstance(value, np.integer):
            value = int(value)
        _glue(name, value, display=display)
        return value
