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

Records live in ``book/_generated/`` as one JSON file per chapter, figures in
``book/figures/``. A running notebook never writes there: it writes to the staging
folder that :mod:`kperc_book.reproduce` names in the environment variable
``KPERC_BOOK_STAGING``, and reproduce moves the files into place only after the whole
notebook succeeded. Run any other way (nbval, plain Jupyter) a chapter in a clone writes
to ``_build/scratch/`` and nothing committed changes.

A chapter downloaded alone runs too, once its first cell has installed ``kperc`` and the
book's tools: it reads the stored datasets and other chapters' records from the copy the
package ships (:data:`kperc_book.paths.STORED`), and writes its records to
``kperc-book-records/`` in the current folder (Jupyter's is the notebook's), or to the
folder named by ``Chapter(..., records=...)`` or the environment variable
``KPERC_BOOK_RECORDS`` (either also wins in a clone); never inside an installed package.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import data as _data

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = [
    "Chapter",
    "CheckSummary",
    "style",
    "figsize",
    "legend_below",
    "smallest_font_pt",
    "roundoff_bound",
    "bound_text",
    "power_text",
    "small_text",
    "UNIT_ROUNDOFF",
    "COLUMN_WIDTH",
    "BOOK_DIR",
    "GENERATED_DIR",
    "FIGURES_DIR",
]

from . import paths  # noqa: E402
from .paths import BOOK_DIR, FIGURES_DIR, GENERATED_DIR  # noqa: E402

#: Environment variable naming the staging folder of a run of :mod:`kperc_book.reproduce`.
STAGING_ENV = "KPERC_BOOK_STAGING"
#: Environment variable naming the folder a chapter writes its records to (the reader's).
RECORDS_ENV = "KPERC_BOOK_RECORDS"
#: The records folder of a chapter run outside a clone, in the current folder.
DEFAULT_RECORDS = "kperc-book-records"


def _installed_trees() -> list[Path]:
    """The folders that hold installed packages: no chapter writes there."""
    import sysconfig

    found = {Path(__file__).resolve().parent}
    for key in ("purelib", "platlib"):
        found.add(Path(sysconfig.get_paths()[key]).resolve())
    return sorted(found)


def _record_dirs(records: Path | str | None = None) -> tuple[Path, Path, bool]:
    """(records folder, figures folder, whether the reader is told where) of this run;
    never the committed ones.

    Under :mod:`kperc_book.reproduce` the staging folder it names in ``KPERC_BOOK_STAGING``;
    else ``records`` or the folder named by ``KPERC_BOOK_RECORDS``; else, in a clone,
    ``_build/scratch/`` (nbval and plain Jupyter runs change nothing committed, and print
    nothing); else ``kperc-book-records/`` in the current folder. A folder inside an
    installed package (``site-packages``) is refused with one sentence, as is a
    ``KPERC_BOOK_ROOT`` that names no clone.
    """
    staging = os.environ.get(STAGING_ENV)
    if staging:
        return (*paths.record_dirs(staging), False)
    chosen = records if records is not None else os.environ.get(RECORDS_ENV) or None
    if chosen is None and paths.is_checkout(paths.ROOT):
        return (*paths.record_dirs(paths.scratch_dir()), False)
    if chosen is None and os.environ.get(paths.ROOT_ENV):
        raise paths.OutsideCheckout(
            f"{paths.ROOT_ENV} names {paths.ROOT}, which is not a clone of the kperc-book "
            "repository (a folder with _toc.yml, book/ and data/), so nothing was written: "
            f"set it to a clone, or unset it to run this chapter on its own."
        )
    source = "records=" if records is not None else RECORDS_ENV if chosen else None
    folder = Path(DEFAULT_RECORDS if chosen is None else chosen).expanduser().resolve()
    for tree in _installed_trees():
        if folder.is_relative_to(tree):
            named = f" (from {source})" if source else " (the current folder's)"
            raise paths.OutsideCheckout(
                f"The records folder {folder}{named} lies inside the installed packages "
                f"({tree}), where a chapter never writes, so nothing was written: run the "
                f"chapter from another folder, or set {RECORDS_ENV} to one."
            )
    return (*paths.record_dirs(folder), True)


_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj)}")


def _write_json(path: Path, payload: Any) -> None:
    from ._fsio import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=2, sort_keys=True, default=_json_default) + "\n"
    atomic_write(path, text, durable=False)  # staging: reproduce fsyncs its copies in book/


#: Unit round-off of IEEE double precision (half the machine epsilon).
UNIT_ROUNDOFF = 2.0**-53


def roundoff_bound(terms: float, scale: float = 1.0) -> float:
    """A bound on rounding error, ``terms * u * scale``, rounded up to a power of ten.

    A quantity that is zero in exact arithmetic comes out of floating point as a number
    that depends on the BLAS kernel, the thread count and the order of the sums. The book
    never prints such a number; it prints this bound and checks the number against it.
    ``terms`` counts the rounded operations that reach the quantity (for example ``n``
    for a dot product or a sum of ``n`` terms, ``n`` for an eigenvalue of an ``n x n``
    matrix), ``scale`` is the size of the numbers combined (for example ``||G||_2``). The
    result is rounded up to a power of ten so that it prints with one significant digit
    that does not depend on the machine.

    Examples
    --------
    >>> roundoff_bound(200)  # 200 * 2**-53 = 2.2e-14
    1e-13
    >>> roundoff_bound(53, scale=19.0)  # 1.1e-13
    1e-12
    """
    raw = float(terms) * UNIT_ROUNDOFF * float(scale)
    if not (math.isfinite(raw) and raw > 0):
        raise ValueError(f"terms and scale must be positive and finite; got {terms}, {scale}")
    exponent = math.ceil(math.log10(raw))
    bound = 10.0**exponent
    return bound if bound >= raw else 10.0 ** (exponent + 1)


def power_text(bound: float) -> str:
    """A tolerance or bound as text: ``1e-6`` for a power of ten, else two digits.

    Examples
    --------
    >>> power_text(1e-6), power_text(1e-12), power_text(5e-9)
    ('1e-6', '1e-12', '5e-09')
    """
    bound = float(bound)
    if bound > 0:
        exponent = round(math.log10(bound))
        if 10.0**exponent == bound:
            return f"1e{exponent}"
    return f"{bound:.2g}"


def bound_text(value: float, bound: float, *, name: str = "value") -> str:
    """``"<= 1e-13"`` for a value that is zero up to rounding; raise if it is not.

    Parameters
    ----------
    value : float
        The computed quantity (zero in exact arithmetic, or known to be tiny).
    bound : float
        Its stated bound (:func:`roundoff_bound`, or a solver's stated accuracy).
    name : str
        What the value is, for the error message.

    Examples
    --------
    >>> bound_text(-4.4e-15, 1e-13)
    '<= 1e-13'
    """
    if not abs(float(value)) <= bound:
        raise AssertionError(
            f"{name} = {float(value):.3g} exceeds its stated bound {power_text(bound)}"
        )
    return f"<= {power_text(bound)}"


def small_text(value: float, bound: float, *, digits: int = 2) -> str:
    """A value that may be zero up to rounding: ``"|.| <= 1e-13"`` if it is, else its digits.

    Values within ``bound`` of zero are not distinguishable from zero in floating point,
    so they print as the bound; larger ones print with ``digits`` significant digits.

    Examples
    --------
    >>> small_text(2.8e-14, 1e-12), small_text(1.3e-3, 1e-12)
    ('|.| <= 1e-12', '0.0013')
    """
    if abs(float(value)) <= bound:
        return f"|.| <= {power_text(bound)}"
    return f"{float(value):.{digits}g}"


#: Width of the book's content column in inches at the figures' 100 dpi: about 770 CSS
#: pixels at a 1400 px window. A figure of this width shows its text at the size it was set.
COLUMN_WIDTH = 7.7
#: Resolution of the saved PNGs (twice the layout dpi: crisp on high-density screens).
SAVE_DPI = 200
#: Layout dpi: the nominal display size of a figure is its width in inches times this.
LAYOUT_DPI = 100


def figsize(
    rows: int = 1, cols: int = 1, *, aspect: float = 0.62, width: float = COLUMN_WIDTH
) -> tuple[float, float]:
    """Size of a figure of ``rows x cols`` panels that fits the content column.

    Parameters
    ----------
    rows, cols : int
        Panels stacked and side by side; at most two side by side.
    aspect : float
        Height of one panel over its width.
    width : float
        Figure width in inches (at most :data:`COLUMN_WIDTH`).
    """
    if cols not in (1, 2):
        raise ValueError(f"cols must be 1 or 2 (at most two panels side by side); got {cols}")
    if rows < 1:
        raise ValueError(f"rows must be at least 1; got {rows}")
    if not 0 < width <= COLUMN_WIDTH:
        raise ValueError(f"width must be in (0, {COLUMN_WIDTH}] inches; got {width}")
    return (width, rows * aspect * width / cols)


def style() -> None:
    """The book's one figure style: sized for the content column, opaque, reproducible.

    Fonts are set so that text displays at 9 pt or more when a figure of at most
    :data:`COLUMN_WIDTH` inches is shown at its nominal size. Text and mathematics use
    the DejaVu fonts that matplotlib itself ships, and matplotlib's font list is limited
    to those files: no system font is looked up, so a reader's installed fonts cannot
    change a figure.
    """
    import matplotlib as mpl
    from matplotlib import font_manager

    bundled = Path(mpl.get_data_path(), "fonts", "ttf").resolve()
    manager = font_manager.fontManager
    # The font list is read from the bundled files themselves, not filtered from
    # matplotlib's cached list: that cache is shared by every environment of the user
    # with this matplotlib version, and names the files of whichever one built it. It is
    # read again whenever it holds anything but exactly those files.
    files = sorted(bundled.glob("*.ttf"))
    if manager.afmlist or sorted(Path(f.fname) for f in manager.ttflist) != files:
        manager.ttflist = []
        manager.afmlist = []
        for path in files:
            manager.addfont(str(path))
    cached = getattr(manager, "_findfont_cached", None)  # forget earlier look-ups
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()
    mpl.rcParams.update(
        {
            "font.family": "DejaVu Sans",
            "mathtext.fontset": "dejavusans",
            "figure.facecolor": "white",
            "axes.facecolor": "white",
            "savefig.facecolor": "white",
            "savefig.transparent": False,
            "figure.dpi": LAYOUT_DPI,
            "savefig.dpi": SAVE_DPI,
            "figure.figsize": figsize(),
            "font.size": 10,
            "axes.titlesize": 10,
            "axes.labelsize": 10,
            "legend.fontsize": 9,
            "xtick.labelsize": 9,
            "ytick.labelsize": 9,
            "legend.framealpha": 0.9,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "svg.hashsalt": "kperc",
        }
    )


#: The rcParams of the book's figure style that hold a text size.
FONT_SIZE_PARAMS: tuple[RcKeyType, ...] = (
    "font.size",
    "axes.titlesize",
    "axes.labelsize",
    "legend.fontsize",
    "legend.title_fontsize",
    "xtick.labelsize",
    "ytick.labelsize",
    "figure.titlesize",
)


def smallest_font_pt() -> float:
    """The smallest font size (pt) that :func:`style` sets for any text of a figure.

    Named sizes such as ``"small"`` are resolved against ``font.size``. The book's
    figure tests check that no figure draws text smaller than this, and that at the
    width a figure is shown it reads at 9 pt or more.
    """
    import matplotlib
    from matplotlib.font_manager import FontProperties

    with matplotlib.rc_context():
        style()
        sizes = [matplotlib.rcParams[k] for k in FONT_SIZE_PARAMS]
        return min(FontProperties(size=v).get_size_in_points() for v in sizes if v is not None)


def legend_below(ax, *args, ncol: int = 1, drop: float = 0.5, **kwargs):
    """Place the legend of ``ax`` under its x-axis label, where it cannot hide data.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    *args
        Handles and labels, as for :meth:`matplotlib.axes.Axes.legend`.
    ncol : int
        Number of legend columns.
    drop : float
        Distance in inches from the bottom of the axes to the top of the legend (room for
        the tick labels and the axis label).
    **kwargs
        Passed on to :meth:`matplotlib.axes.Axes.legend`.
    """
    from matplotlib.transforms import ScaledTranslation

    shift = ax.transAxes + ScaledTranslation(0, -drop, ax.figure.dpi_scale_trans)
    return ax.legend(
        *args,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=shift,
        ncol=ncol,
        **kwargs,
    )


class CheckSummary:
    """The checks of one chapter, shown as a collapsible table (see :meth:`Chapter.summary`).

    Parameters
    ----------
    checks : dict
        ``{result id: {"ok", "detail", "instances"}}`` as :meth:`Chapter.check` records.

    Examples
    --------
    >>> s = CheckSummary({"lemma-5": {"ok": True, "detail": "worst ratio 0.5", "instances": 3}})
    >>> print(repr(s))
    Numerical checks of this chapter: 1 of 1 stated results hold.
    - Lemma 5 (excessive gap) [lemma-5], 3 instances: worst ratio 0.5
    """

    def __init__(self, checks: dict[str, dict[str, Any]]):
        self.checks = dict(checks)

    @staticmethod
    def _name(result_id: str) -> str:
        from .ledger.registry import REGISTRY

        entry = REGISTRY.get(result_id)
        return entry.name if entry is not None else result_id

    def _headline(self) -> str:
        held = sum(1 for c in self.checks.values() if c["ok"])
        return f"Numerical checks of this chapter: {held} of {len(self.checks)} stated results hold"

    def __repr__(self) -> str:
        lines = [self._headline() + "."]
        for rid, c in self.checks.items():
            count = "" if c["instances"] is None else f", {c['instances']} instances"
            lines.append(f"- {self._name(rid)} [{rid}]{count}: {c['detail']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        def result(rid: str, c: dict[str, Any]) -> str:
            n = c["instances"]
            count = "" if n is None else f"<br><small>{n} instances</small>"
            return f"{escape(self._name(rid))}{count}"

        rows = "".join(
            f"<tr><td>{result(rid, c)}</td><td>{escape(c['detail'])}</td></tr>"
            for rid, c in self.checks.items()
        )
        return (
            '<details class="kperc-checks">'
            f"<summary>{escape(self._headline())} (open for the details)</summary>"
            '<table><colgroup><col class="kperc-checks-result"><col></colgroup>'
            f"<thead><tr><th>result</th><th>what was checked</th></tr></thead><tbody>{rows}"
            "</tbody></table></details>"
        )


class Chapter:
    """Context of one chapter notebook.

    Parameters
    ----------
    key : str
        Short chapter key such as ``"ch04"``; prefixes figure names.
    records : path, optional
        The folder this chapter writes its records (``_generated/<key>.json``) and
        figures (``figures/``) to. Default: the folder named by ``KPERC_BOOK_RECORDS``;
        else, in a clone, ``_build/scratch/``; else ``kperc-book-records/`` in the
        current folder. The chapter prints where, unless it writes into the clone.
    """

    def __init__(self, key: str, *, records: Path | str | None = None):
        if not _NAME.match(key):
            raise ValueError(f"chapter key must be lower-case letters/digits; got {key!r}")
        self.key = key
        self.checks: dict[str, dict[str, Any]] = {}
        self.figures: dict[str, dict[str, Any]] = {}
        self.datasets: dict[str, str] = {}
        self.glued: dict[str, Any] = {}
        gen_dir, self._fig_dir, tell = _record_dirs(records)
        self._path = gen_dir / f"{key}.json"
        #: The folder this chapter's records and figures go to.
        self.records = gen_dir.parent
        style()
        self._flush()
        if tell:
            print(
                f"{key} writes its records (checks, glued numbers, figures) to {self.records}"
                f"; set {RECORDS_ENV}, or pass records= to Chapter, to choose another folder."
            )

    def _flush(self) -> None:
        _write_json(
            self._path,
            {
                "chapter": self.key,
                "checks": self.checks,
                "figures": self.figures,
                "datasets": self.datasets,
                "glue": self.glued,
            },
        )

    def load(self, name: str) -> _data.Dataset:
        """Load a stored dataset (sha256 verified) and remember that this chapter read it."""
        ds = _data.load(name)
        self.datasets[name] = ds.info["sha256"]
        self._flush()
        return ds

    def problem(self, name: str) -> tuple[_data.Dataset, np.ndarray]:
        """Load a kernel problem of :data:`kperc_book.data.PROBLEMS` and remember its dataset.

        Returns
        -------
        dataset : Dataset
            The stored data (sha256 verified), with the problem's ``kernel`` and
            ``kernel_params`` set (``gamma="scale"`` resolved as in :class:`sklearn.svm.SVC`).
        G : ndarray of shape (n, n)
            The normalised signed Gram matrix of the problem.
        """
        G, ds, _, _ = _data.problem(name)
        self.datasets[_data.PROBLEMS[name][0]] = ds.info["sha256"]
        self._flush()
        return ds, G

    def check(self, result_id: str, ok: bool, detail: str, *, instances: int | None = None) -> bool:
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
        return ok

    def summary(self) -> CheckSummary:
        """Every check of this chapter in one collapsible block (the chapter's last cell).

        Displayed in the book as a closed ``<details>`` block that opens to a table (the
        result, how many instances, what was checked); its plain-text form, which nbval
        compares, is the same table in text.
        """
        return CheckSummary(self.checks)

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
        fig_dir = self._fig_dir
        fig_dir.mkdir(parents=True, exist_ok=True)
        fname = f"{self.key}-{name}.png"
        path = fig_dir / fname
        import io

        from ._fsio import atomic_write

        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
        atomic_write(path, buf.getvalue(), durable=False)
        used = self.datasets if data is None else {d: _data.manifest()[d]["sha256"] for d in data}
        self.figures[fname] = {
            "file": paths.figure_file(fname),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "data": dict(used),
        }
        self._flush()
        return path

    def figure(self, fig, name: str, *, alt: str, data: tuple[str, ...] | None = None) -> Path:
        """Save, record and glue a finished figure, then close it.

        The one way a chapter ends a figure: it is saved as
        ``book/figures/<key>-<name>.png`` (see :meth:`savefig`), its alt text is recorded,
        and it is glued under the key ``<key>-<name>`` (the file's stem), which the
        markdown shows with ``{glue:figure}``.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
        name : str
            Content part of the file name (lower case, digits, ``-`` or ``_``).
        alt : str
            What the figure shows, for readers who cannot see it (not a file name).
        data : tuple of str, optional
            Stored datasets the figure shows (see :meth:`savefig`).
        """
        import matplotlib.pyplot as plt
        from myst_nb import glue as _glue

        alt = str(alt).strip()
        if len(alt) < 20 or alt.endswith((".png", ".svg")) or "/" in alt.split()[0]:
            raise ValueError(f"alt must describe the figure in words; got {alt!r}")
        from IPython.display import Image

        path = self.savefig(fig, name, data=data)
        self.figures[path.name]["alt"] = alt
        self._flush()
        # Glue the saved PNG itself (SAVE_DPI, sharp on high-density screens) and give it
        # its nominal display width at LAYOUT_DPI; only the width, so that a narrower
        # column scales the height with it.
        png = path.read_bytes()
        width_px = int.from_bytes(png[16:20], "big")
        _glue(
            path.stem,
            Image(data=png, format="png", width=round(width_px * LAYOUT_DPI / SAVE_DPI)),
            display=False,
        )
        plt.close(fig)
        return path

    def glue(self, name: str, value, *, digits: int = 4, display: bool = False):
        """Round ``value`` and glue it with myst-nb under ``name``; return the rounded value.

        Floats are rounded to ``digits`` significant digits: print only digits that are
        stable across machines (values at rounding level are glued as their bound, see
        :func:`bound_text`). Numbers and strings are also recorded in the chapter's record
        (``book/_generated/<key>.json``, under ``"glue"``), where other chapters read
        them (Chapter 7's summary table quotes the rates Chapters 2 to 6 measured).
        """
        from myst_nb import glue as _glue

        if isinstance(value, (float, np.floating)):
            value = float(f"{float(value):.{digits}g}")
        elif isinstance(value, (np.integer, np.bool_)):
            value = value.item()
        _glue(name, value, display=display)
        if isinstance(value, (bool, int, float, str)):
            self.glued[name] = value
            self._flush()
        return value
