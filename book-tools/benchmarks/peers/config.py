"""The peer comparison's configuration: solvers, labels, problems, caps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks import _peer_runners as runners
from kperc_book import paths as _paths

DEFAULT_OUT = _paths.GENERATED_DIR / "peers.json"
SCHEMA_VERSION = 1
#: Display names of the solvers.
SOLVER_LABELS = {
    "snkp-dense": "SNKP, dense G",
    "snkp-factored": "SNKP, factored G",
    "snkp-nystroem": "SNKP, Nystroem",
    "snkp-nystroem-grown": "SNKP, Nystroem grown",
    "nkp": "NKP",
    "sklearn-perceptron": "sklearn Perceptron",
    "linearsvc": "LinearSVC (hinge)",
    "svc-linear": "SVC, linear",
    "svc-rbf": "SVC, RBF",
    "perceptron": "Perceptron (kperc)",
    "normalized-perceptron": "Normalised Perceptron",
    "snkp": "SNKP",
    "isnkpvn": "ISNKPVN",
    "logreg": "LogisticRegression",
    "svc-kernel": "SVC, kernel",
}
#: Short names of the solvers, for table cells.
SHORT_LABELS = {
    "snkp-dense": "dense",
    "snkp-factored": "factored",
    "snkp-nystroem": "Nystroem",
    "snkp-nystroem-grown": "grown",
    "nkp": "NKP",
    "sklearn-perceptron": "Perceptron",
    "linearsvc": "LinearSVC",
    "svc-linear": "SVC",
    "svc-rbf": "SVC",
    "perceptron": "Perceptron",
    "normalized-perceptron": "NP",
    "snkp": "SNKP",
    "isnkpvn": "ISNKPVN",
    "logreg": "LogReg",
    "svc-kernel": "SVC",
}
#: Display names of the problem families.
FAMILY_LABELS = {"linear": "linear", "rbf": "RBF"}
#: Display names of the families of the by-family comparison (:func:`families_config`).
FAMILY_NAMES = {
    "planted": "planted, unit norms",
    "spread": "planted, spread norms",
    "crowded": "crowded",
    "two_rays": "two rays",
    "rbf": "RBF, planted",
    "breast_cancer-rbf": "breast cancer (RBF)",
    "digits_3_vs_8-rbf": "digits 3 vs 8 (RBF)",
    "circles-rbf": "circles (RBF)",
    "moons-rbf": "moons (RBF)",
    "xor-poly": "XOR (poly)",
}
#: Where the by-family comparison's record is written.
FAMILIES_OUT = _paths.GENERATED_DIR / "families.json"
#: Every kperc algorithm and every scikit-learn solver of the harness.
KPERC_SOLVERS = (
    "perceptron",
    "normalized-perceptron",
    "nkp",
    "snkp",
    "snkp-dense",
    "snkp-factored",
    "snkp-nystroem",
    "isnkpvn",
)
SKLEARN_SOLVERS = (
    "sklearn-perceptron",
    "logreg",
    "linearsvc",
    "svc-linear",
    "svc-rbf",
    "svc-kernel",
)
#: kperc's SNKP variants and the scikit-learn peers, as compared by
#: :func:`benchmarks.peers.analysis.crossovers`.
KPERC_SNKP = ("snkp-dense", "snkp-factored", "snkp-nystroem", "snkp-nystroem-grown")
PEERS = ("sklearn-perceptron", "linearsvc", "svc-linear", "svc-rbf")


@dataclass
class PeersConfig:
    """Problems, solvers and caps of a run.

    Attributes
    ----------
    linear_ns, rbf_ns : tuple of int
        Sizes of the linear and RBF families (ascending).
    linear_rhos, rbf_rhos : tuple of float
        Planted margins (largest first).
    d : int
        Dimension of the linear instances.
    rbf_d : int
        Dimension of the RBF instances.
    rbf_gamma : float
        RBF parameter of the instances and of every kernel solver.
    linear_solvers, rbf_solvers : tuple of str
        Solvers per family (names of :data:`benchmarks._peer_runners.SOLVERS`).
    cap_s : float
        Longest run of one solver on one instance, seconds (a hard cap).
    dense_max_gb : float
        The dense ``G`` is skipped where ``8 n^2`` bytes exceed this.
    nkp_dense_max_n : int
        NKP uses the dense ``G`` up to this ``n``, an operator above.
    nystroem_components : int
        Landmarks of the Nystroem features of ``snkp-nystroem`` (fixed).
    nystroem_start, nystroem_max : int
        First and largest rank of ``snkp-nystroem-grown`` (:func:`kperc.snkp_nystroem`).
    exact_max_n : int
        Nystroem results are checked under the exact kernel on every point up to this ``n``.
    exact_rows : int
        Above it, on this many random points.
    margin_max_n : int
        The exact kernel margin of an RBF instance is measured up to this ``n``.
    linearsvc_C, svc_C : float
        The large ``C`` of ``LinearSVC`` and of the hard-margin ``SVC``.
    raw_inputs : bool
        Give scikit-learn's linear solvers (and kperc's Perceptron, always) the data as
        given rather than the unit-norm rows.
    isnkpvn_eps : float
        ISNKPVN's certificate tolerance.
    logreg_C : float
        The large ``C`` of ``LogisticRegression``.
    families : dict
        Further families (:data:`benchmarks._peer_runners.FAMILY_BUILDERS`, or "rbf"),
        each ``{"ns", "rhos", "solvers", "d"}``; run after "linear" and "rbf".
    blas_threads : int
        BLAS threads of every solver.
    seed : int
        Seed of every instance and solver.
    quick : bool
        Smoke-run sizes.
    """

    linear_ns: tuple[int, ...] = (1_000, 10_000, 100_000, 1_000_000)
    rbf_ns: tuple[int, ...] = (1_000, 10_000, 100_000)
    linear_rhos: tuple[float, ...] = (1e-1, 1e-2, 1e-3, 1e-4)
    rbf_rhos: tuple[float, ...] = (1e-1, 1e-2, 1e-3)
    d: int = 20
    rbf_d: int = 3
    rbf_gamma: float = 2.0
    linear_solvers: tuple[str, ...] = runners.LINEAR_SOLVERS
    rbf_solvers: tuple[str, ...] = runners.RBF_SOLVERS
    cap_s: float = 20.0
    dense_max_gb: float = 1.0
    nkp_dense_max_n: int = 5_000
    nystroem_components: int = 300
    nystroem_start: int = 64
    nystroem_max: int = 4096
    exact_max_n: int = 10_000
    exact_rows: int = 2_000
    margin_max_n: int = 1_000
    linearsvc_C: float = 1e6
    svc_C: float = 1e8
    blas_threads: int = 1
    seed: int = 0
    quick: bool = False
    extra_solvers: dict[str, str] = field(default_factory=dict)
    raw_inputs: bool = False
    isnkpvn_eps: float = 1e-6
    logreg_C: float = 1e6
    families: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.cap_s > 0:
            raise ValueError(f"cap_s must be positive (seconds); got {self.cap_s}")
        fam_solvers = []
        for fam, spec in self.families.items():
            if fam != "rbf" and fam not in runners.FAMILY_BUILDERS:
                raise ValueError(
                    f"unknown family {fam!r} in families; choose from "
                    f"{sorted(['rbf', *runners.FAMILY_BUILDERS])}"
                )
            missing = {"ns", "rhos", "solvers", "d"} - set(spec)
            if missing:
                raise ValueError(f"families[{fam!r}] lacks {sorted(missing)}")
            fam_solvers += list(spec["solvers"])
        for name in (*self.linear_solvers, *self.rbf_solvers, *fam_solvers):
            if name not in runners.SOLVERS and name not in self.extra_solvers:
                raise ValueError(
                    f"unknown solver {name!r} in the config; choose from {sorted(runners.SOLVERS)}"
                )


def default_config(**overrides: Any) -> PeersConfig:
    """The full comparison (about 15 minutes on 2 cores)."""
    return PeersConfig(**overrides)


def quick_config(**overrides: Any) -> PeersConfig:
    """Tiny sizes for tests and development (well under a minute)."""
    base: dict[str, Any] = {
        "linear_ns": (200, 1_000),
        "rbf_ns": (200, 600),
        "linear_rhos": (1e-1, 1e-2),
        "rbf_rhos": (1e-1,),
        "cap_s": 5.0,
        "nkp_dense_max_n": 500,
        "nystroem_components": 100,
        "nystroem_start": 16,
        "nystroem_max": 256,
        "exact_max_n": 300,
        "exact_rows": 200,
        "margin_max_n": 200,
        "quick": True,
    }
    base.update(overrides)
    return PeersConfig(**base)


def _real_sizes() -> dict[str, int]:
    from kperc_book import data as kdata

    return {name: int(kdata.load(ds).X.shape[0]) for name, (ds, _, _) in kdata.PROBLEMS.items()}


def families_config(**overrides: Any) -> PeersConfig:
    """The by-family comparison: every kperc algorithm and the scikit-learn solvers on the
    planted, spread, crowded, two-rays and RBF families (two margins, two sizes each) and
    on the real problems (about 10 minutes on 2 cores)."""
    lin, ker = runners.FAMILY_LINEAR_SOLVERS, runners.FAMILY_KERNEL_SOLVERS
    ns, rhos = (1_000, 10_000), (1e-2, 1e-3)
    fams: dict[str, dict[str, Any]] = {
        "planted": {"ns": ns, "rhos": rhos, "solvers": lin, "d": 20},
        "spread": {"ns": ns, "rhos": rhos, "solvers": lin, "d": 20},
        "crowded": {"ns": ns, "rhos": rhos, "solvers": lin, "d": 5},
        "two_rays": {"ns": ns, "rhos": rhos, "solvers": lin, "d": 2},
        "rbf": {"ns": (1_000, 3_000), "rhos": rhos, "solvers": ker, "d": 3},
    }
    for name, n in _real_sizes().items():
        fams[name] = {"ns": (n,), "rhos": (0.0,), "solvers": ker, "d": 0}
    base: dict[str, Any] = {
        "linear_ns": (),
        "rbf_ns": (),
        "families": fams,
        "raw_inputs": True,
        "cap_s": 10.0,
        "margin_max_n": 1_000,
    }
    base.update(overrides)
    return PeersConfig(**base)


def families_quick_config(**overrides: Any) -> PeersConfig:
    """Small sizes of :func:`families_config` for tests and development (seconds)."""
    full = families_config()
    fams = {}
    for name, spec in full.families.items():
        small = spec["rhos"] == (0.0,)
        fams[name] = {
            **spec,
            "ns": spec["ns"] if small else (100, 300),
            "rhos": spec["rhos"] if small else (1e-1, 2e-2),
        }
    base: dict[str, Any] = {"families": fams, "cap_s": 3.0, "margin_max_n": 300, "quick": True}
    base.update(overrides)
    return families_config(**base)


def family_label(family: str) -> str:
    """The display name of a family."""
    return FAMILY_NAMES.get(family, FAMILY_LABELS.get(family, family))


#: The configuration keys that belong to one family (a run of one family keeps the
#: other family's keys of the record it is merged into).
FAMILY_KEYS = {
    "linear": ("linear_ns", "linear_rhos", "d", "linear_solvers", "linearsvc_C"),
    "rbf": (
        "rbf_ns",
        "rbf_rhos",
        "rbf_d",
        "rbf_gamma",
        "rbf_solvers",
        "nystroem_components",
        "nystroem_start",
        "nystroem_max",
        "exact_max_n",
        "exact_rows",
        "margin_max_n",
        "svc_C",
    ),
}


def label(solver: str | None) -> str:
    return SOLVER_LABELS.get(solver, str(solver))


def solvers_of(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Solvers of ``rows``: the known ones in display order, then any others."""
    present = {r["solver"] for r in rows}
    return [s for s in SOLVER_LABELS if s in present] + sorted(present - set(SOLVER_LABELS))
