"""The helpers Chapters 5 and 6 share: small, fast instances.

Both chapters run their experiments in their notebooks (proven by nbval); here are the
shared problem and bound helpers they use (:mod:`kperc_book.experiments._problems`,
:mod:`kperc_book.experiments._infeasible`).
"""

from __future__ import annotations

import numpy as np
import pytest

import kperc
from kperc_book.experiments._infeasible import dantzig_bound, ef_dual_bound
from kperc_book.experiments._problems import edge_problem, make_problem

# --------------------------------------------------------------------------- chapter 5


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_edge_problem_margin_zero_and_witness(d, seed):
    ds = edge_problem(12, d, seed=seed)
    G = ds.gram()
    w = ds.info["witness"]
    assert w.sum() == pytest.approx(1.0) and w.min() >= 0
    assert np.allclose(G @ w, 0.0, atol=1e-12)
    if d <= 6:
        assert kperc.margin(G) == pytest.approx(0.0, abs=1e-9)
    # the witness set is this single point: dist from any q is ||q - w||
    q = np.full(12, 1 / 12)
    assert kperc.dist_to_witness(G, q).dist == pytest.approx(np.linalg.norm(q - w), abs=1e-6)


@pytest.mark.parametrize("eps,rho,w0,expected", [(0.1, -0.5, 1.0, 17), (1.0, -0.5, 0.5, 0)])
def test_bound_helpers(eps, rho, w0, expected):
    assert ef_dual_bound(rho, eps, w0) == expected
    assert dantzig_bound(0.1) == 99


# ------------------------------------------------------- chapter 6 (the shared problems)


def test_make_problem_kinds():
    ds = make_problem("planted", 20, 3, 0.1, 0)
    assert ds.info["rho"] == pytest.approx(0.1) and "witness" not in ds.info
    assert kperc.margin(ds.gram()) == pytest.approx(0.1, abs=1e-9)
    ds = make_problem("cap", 20, 2, -0.2, 0)
    assert ds.info["rho"] == pytest.approx(-0.2, abs=1e-9)
    ds = make_problem("edge", 12, 3, 0.0, 0)
    assert ds.info["rho"] == 0.0 and ds.info["witness"].sum() == pytest.approx(1.0)
    ds = make_problem("gauss", 7, 3, 0.0, 0)
    assert ds.X.shape == (7, 3) and np.isnan(ds.info["rho"])
    with pytest.raises(ValueError, match="unknown problem kind 'nope'"):
        make_problem("nope", 5, 2, 0.1, 0)
