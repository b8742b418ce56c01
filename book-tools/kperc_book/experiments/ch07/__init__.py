"""Chapter 7 (paper Section 7): discussion and open problems.

What the chapter notebook ``book/ch07_discussion.ipynb`` computes, all of it here so
that tests reach it:

* **Values glued by other chapters.** :func:`glued_values` fetches named values from
  a chapter's record in ``book/_generated/`` (every glued value is recorded there) and
  raises :class:`MissingGlueError` (naming the chapter, the keys and the command
  that regenerates it) when one is missing. The book's summary table
  (:data:`ALGORITHMS`, :func:`summary_markdown`) quotes the rates Chapters 4 and 6
  measured through them.
* **The open question** (can the primal-dual method's ``sqrt(n)`` become
  ``sqrt(log n)``?): :func:`imbalanced` builds instances with an exact margin on
  which the Euclidean prox-function is slow, :func:`n_sweep` counts the iterations of
  SNKPVN, ISNKPVN and SNKP as ``n`` grows at a fixed margin, :func:`loglog_slope`
  fits the growth exponent, and :func:`check_bounds` tests every count against its
  explicit bound (the paper's Sections 4 and 6).
* **Perceptrons versus the max-margin SVM**: :func:`svc_homogeneous` solves the
  bias-free hard-margin SVM with scikit-learn's SVC on the normalised kernel (by
  symmetrising the signed points, which forces the intercept to 0);
  :func:`svm_comparison` compares the margins that SNKP, NKP and the SVM return with
  the exact optimum :func:`kperc.margin`; :func:`margin_paths` follows the margin of
  the perceptron iterates after they first separate.
* **Timings** never run inside the notebook: the benchmark's ``svm`` suite (``python -m
  benchmarks.bench --suite svm``) writes medians over repeats to
  ``book/_generated/timings/ch07-svm.json``; :func:`read_timings` reads them back.
* **The affine margin** (the paper's Sections 5 and 7): :func:`affine_margin_demo`.
* **What the cells print, check and glue** (:mod:`.report`): :func:`verdict` (the
  arguments of ``ch.check``), :func:`sweep_table`, :func:`svm_table`,
  :func:`final_margins`, :func:`timings_header`, :func:`affine_report`, ... (they raise
  :class:`ClaimError` where the text's claim about a number fails) and the ``glue_*``
  functions. The figures are drawn by :mod:`kperc_book.experiments.ch07_figures`.
"""

from __future__ import annotations

from kperc_book.experiments._common import loglog_slope  # noqa: F401
from kperc_book.experiments.ch07.affine import (  # noqa: F401
    affine_margin_demo,
)
from kperc_book.experiments.ch07.glue import (
    MissingGlueError,
    chapter_notebook,
    glued_values,
    recorded_glue,
)
from kperc_book.experiments.ch07.open_question import (  # noqa: F401
    COUNT_KEYS,
    FAMILIES,
    balanced,
    check_bounds,
    imbalanced,
    isnkpvn_call_bound,
    lone_weight_needed,
    medians,
    n_sweep,
    probe_run,
    snkpvn_lower_bound,
    sqrt_log_slope,
)
from kperc_book.experiments.ch07.report import (
    QUOTED_LABELS,
    WINNOW_GLUE,
    ClaimError,
    affine_report,
    families_goal,
    families_goal_text,
    final_margins,
    glue_affine,
    glue_families,
    glue_paths,
    glue_peers,
    glue_summary_table,
    glue_svm,
    glue_sweep,
    glue_timings,
    glue_winnow,
    peers_lost_text,
    peers_machine_text,
    peers_nkp_text,
    quoted_line,
    quoted_values,
    record_problem_datasets,
    svc_over_snkp,
    svm_table,
    sweep_rates,
    sweep_table,
    symmetrisation_report,
    timings_header,
    verdict,
)
from kperc_book.experiments.ch07.summary import (  # noqa: F401
    ALGORITHMS,
    Algorithm,
    Measured,
    chapter_stem,
    measured_values,
    required_glue,
    summary_markdown,
)
from kperc_book.experiments.ch07.svm import (  # noqa: F401
    _compare_one,
    load_problems,
    margin_paths,
    separator_margin,
    svc_homogeneous,
    svm_checks,
    svm_comparison,
)
from kperc_book.experiments.ch07.timings import (  # noqa: F401
    TIMING_METHODS,
    TIMINGS_COMMAND,
    TIMINGS_PATH,
    _ms,
    read_timings,
    timings_markdown,
)

__all__ = [
    "MissingGlueError",
    "recorded_glue",
    "chapter_notebook",
    "glued_values",
    "Measured",
    "Algorithm",
    "ALGORITHMS",
    "required_glue",
    "measured_values",
    "summary_markdown",
    "imbalanced",
    "balanced",
    "FAMILIES",
    "lone_weight_needed",
    "snkpvn_lower_bound",
    "probe_run",
    "n_sweep",
    "medians",
    "loglog_slope",
    "sqrt_log_slope",
    "check_bounds",
    "isnkpvn_call_bound",
    "separator_margin",
    "svc_homogeneous",
    "load_problems",
    "svm_comparison",
    "svm_checks",
    "margin_paths",
    "TIMINGS_PATH",
    "TIMING_METHODS",
    "read_timings",
    "timings_markdown",
    "affine_margin_demo",
    "ClaimError",
    "verdict",
    "sweep_table",
    "glue_sweep",
    "record_problem_datasets",
    "svm_table",
    "glue_svm",
    "final_margins",
    "glue_paths",
    "timings_header",
    "svc_over_snkp",
    "glue_timings",
    "peers_lost_text",
    "peers_nkp_text",
    "families_goal",
    "families_goal_text",
    "peers_machine_text",
    "glue_peers",
    "glue_families",
    "WINNOW_GLUE",
    "QUOTED_LABELS",
    "quoted_line",
    "glue_winnow",
    "affine_report",
    "glue_affine",
    "sweep_rates",
    "glue_summary_table",
    "quoted_values",
    "symmetrisation_report",
]
