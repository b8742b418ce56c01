"""The per-iteration ``callback`` of every iterative algorithm (scipy.optimize's convention)."""

from __future__ import annotations

import numpy as np
import pytest

import kperc
from kperc.datasets import infeasible, planted

SEP = planted(80, 3, rho=0.05, seed=1)
INF = infeasible(60, 2, rho=-0.1, seed=0)
G_SEP = kperc.gram_matrix(SEP.X, SEP.y)
G_INF = kperc.gram_matrix(INF.X, INF.y)


def _data(kind):
    return SEP if kind == "sep" else INF


# name -> (call(callback, **kw), problem, progress fields the callback must receive)
ALGORITHMS = {
    "perceptron": (
        lambda cb, **kw: kperc.perceptron(SEP.X, SEP.y, callback=cb, **kw),
        ("min_margin", "norm_w", "w"),
    ),
    "normalized_perceptron": (
        lambda cb, **kw: kperc.normalized_perceptron(SEP.X, SEP.y, callback=cb, **kw),
        ("min_margin", "norm_w", "w"),
    ),
    "winnow": (
        lambda cb, **kw: kperc.winnow(SEP.X, SEP.y, callback=cb, **kw),
        ("min_margin", "w", "p"),
    ),
    "nkp": (lambda cb, **kw: kperc.nkp(G_SEP, callback=cb, **kw), ("min_Galpha",)),
    "nkp-operator": (
        lambda cb, **kw: kperc.nkp(kperc.gram_operator(SEP.X, SEP.y), callback=cb, **kw),
        ("min_Galpha",),
    ),
    "snkp": (lambda cb, **kw: kperc.snkp(G_SEP, callback=cb, **kw), ("mu", "min_Galpha", "p")),
    "snkp-operator": (
        lambda cb, **kw: kperc.snkp(kperc.gram_operator(SEP.X, SEP.y), callback=cb, **kw),
        ("mu", "min_Galpha", "p"),
    ),
    "nvn": (
        lambda cb, **kw: kperc.nvn(G_INF, eps=1e-2, callback=cb, **kw),
        ("norm_w", "min_Galpha", "p"),
    ),
    "nvn-separator": (
        lambda cb, **kw: kperc.nvn(G_SEP, callback=cb, **kw),
        ("norm_w", "min_Galpha", "p"),
    ),
    "von_neumann_linear": (
        lambda cb, **kw: kperc.von_neumann_linear(INF.X, INF.y, eps=1e-2, callback=cb, **kw),
        ("norm_w", "min_margin", "p", "w"),
    ),
    "snkpvn": (
        lambda cb, **kw: kperc.snkpvn(G_INF, delta=1e-2, callback=cb, **kw),
        ("mu", "norm_p_G", "min_Galpha", "p"),
    ),
    "snkpvn-separator": (
        lambda cb, **kw: kperc.snkpvn(G_SEP, delta=1e-3, callback=cb, **kw),
        ("mu", "norm_p_G", "min_Galpha", "p"),
    ),
    "isnkpvn": (
        lambda cb, **kw: kperc.isnkpvn(G_INF, eps=1e-3, callback=cb, **kw),
        ("mu", "norm_p_G", "min_Galpha", "p", "nouter"),
    ),
}
NAMES = sorted(ALGORITHMS)


def _same(a, b):
    """Bit-identical results: every field, arrays compared exactly."""
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if key == "trace" and x is not None:
            assert x.keys() == y.keys()
            for t in x:
                np.testing.assert_array_equal(np.asarray(x[t]), np.asarray(y[t]), strict=True)
        elif isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, strict=True)
        else:
            assert x == y, key


@pytest.mark.parametrize("name", NAMES)
def test_callback_sees_every_iteration_in_order(name):
    call, fields = ALGORITHMS[name]
    seen = []
    res = call(seen.append)
    assert res.outcome in ("separator", "certificate")
    assert res.nit >= 3, "the instance must need a few iterations"
    # one call per iterate that failed the exit test: nit = 0, 1, ..., K - 1
    assert [r.nit for r in seen] == list(range(res.nit))
    for r in seen:
        assert "alpha" in r
        for key in fields:
            assert key in r, key
    if name != "winnow":
        for r in seen:
            assert r.alpha.shape == res.alpha.shape
            assert np.all(r.alpha >= 0)
    # the callback keeps copies: the first and last iterates differ
    if name != "winnow":
        assert not np.array_equal(seen[0].alpha, seen[-1].alpha)


@pytest.mark.parametrize("name", NAMES)
def test_stop_iteration_stops_with_status_callback(name):
    call, _ = ALGORITHMS[name]
    seen = []

    def stop_at_2(r):
        seen.append(r)
        if r.nit == 2:
            raise StopIteration

    res = call(stop_at_2)
    assert [r.nit for r in seen] == [0, 1, 2]
    assert res.outcome == "callback" and res.status == 3 and not res.success
    assert res.nit == 2
    assert "stopped by callback" in res.message
    if name == "winnow":
        np.testing.assert_array_equal(res.w, seen[-1].w)
    else:
        np.testing.assert_array_equal(res.alpha, seen[-1].alpha)
    full = call(None)
    assert full.outcome != "callback" and full.nit > 2


@pytest.mark.parametrize("name", NAMES)
def test_noop_callback_is_bit_identical(name):
    call, _ = ALGORITHMS[name]
    for trace in (False, True):
        plain = call(None, trace=trace)

        def scribble(r):  # a callback that writes into what it gets changes nothing
            if r.get("alpha") is not None:
                r.alpha[:] = -1.0
            if r.get("p") is not None:
                r.p[:] = -1.0

        _same(plain, call(scribble, trace=trace))
        _same(plain, call(lambda r: None, trace=trace))


@pytest.mark.parametrize("name", ["nkp", "snkp"])
def test_stop_after_the_first_separator_without_halting(name):
    """halt=False: a run stopped after its first separating iterate keeps a separator
    exactly when the iterate it stopped on is positive (certified), else says "callback"."""
    fn = getattr(kperc, name)
    first = fn(G_SEP).nit
    outcomes = set()
    for extra in range(1, 12):

        def stop(r, at=first + extra):
            if r.nit == at:
                raise StopIteration

        res = fn(G_SEP, halt=False, max_iter=first + 50, callback=stop)
        assert res.nit == first + extra and res.first_separator_nit == first
        assert "stopped by callback" in res.message
        positive = float((G_SEP @ res.alpha).min()) > 1e-12
        assert res.outcome == ("separator" if positive else "callback")
        outcomes.add(res.outcome)
    assert "separator" in outcomes


def test_isnkpvn_numbers_iterations_across_restarts():
    seen = []
    res = kperc.isnkpvn(G_INF, eps=1e-3, callback=seen.append)
    assert res.nouter >= 2
    assert [r.nit for r in seen] == list(range(res.nit))
    outer = [r.nouter for r in seen]
    assert outer == sorted(outer) and outer[0] == 0 and outer[-1] == res.nouter - 1


def test_isnkpvn_stop_in_a_later_call():
    first = []
    kperc.isnkpvn(G_INF, eps=1e-3, callback=first.append)
    later = next(r.nit for r in first if r.nouter == 1) + 1

    def stop(r):
        if r.nit == later:
            raise StopIteration

    res = kperc.isnkpvn(G_INF, eps=1e-3, callback=stop)
    assert res.outcome == "callback" and res.nit == later and res.nouter == 2


def test_snkp_progress_quantities_are_the_traced_ones():
    seen = []
    res = kperc.snkp(G_SEP, trace=True, callback=seen.append)
    np.testing.assert_array_equal([r.mu for r in seen], res.trace["mu"][:-1])
    np.testing.assert_array_equal([r.min_Galpha for r in seen], res.trace["min_Galpha"][:-1])


@pytest.mark.parametrize("bad", [1, "print", [print]])
def test_callback_must_be_callable(bad):
    with pytest.raises(TypeError, match="callback must be a callable"):
        kperc.snkp(G_SEP, callback=bad)
    with pytest.raises(TypeError, match="callback must be a callable"):
        kperc.perceptron(SEP.X, SEP.y, callback=bad)
