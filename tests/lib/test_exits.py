"""Every exit of every algorithm: its outcome and the wording of its message.

The algorithms build their results through one helper (``kperc._result.exit_result``);
these tests pin what each exit says, since the book's chapters print the messages.
A message states the result's own halting index (and call count); its other numbers are
matched by a pattern.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import kperc
from kperc.datasets import infeasible, planted

SEP = planted(40, 3, rho=0.2, seed=0)
HARD = planted(60, 4, rho=0.01, seed=1)
INF = infeasible(40, 2, rho=-0.2, seed=0)
G_SEP = kperc.gram_matrix(*SEP)
G_HARD = kperc.gram_matrix(*HARD)
G_INF = kperc.gram_matrix(*INF)
NUM = r"[-+.0-9e]+"  # a formatted number


def stop_at(n):
    def callback(r):
        if r.nit == n:
            raise StopIteration

    return callback


STOPPED = "stopped by callback after {nit} iterations (no exit test passed)"

CASES = {
    # the perceptrons on data count updates
    "perceptron-separator": (
        lambda: kperc.perceptron(*SEP),
        "separator",
        "separator found after {nit} updates",
    ),
    "perceptron-max_iter": (
        lambda: kperc.perceptron(*INF, max_iter=3),
        "max_iter",
        "no separator within max_iter=3 updates",
    ),
    "perceptron-callback": (
        lambda: kperc.perceptron(*INF, callback=stop_at(2)),
        "callback",
        STOPPED,
    ),
    "normalized_perceptron-separator": (
        lambda: kperc.normalized_perceptron(*SEP),
        "separator",
        "separator found after {nit} updates",
    ),
    "normalized_perceptron-max_iter": (
        lambda: kperc.normalized_perceptron(*INF, max_iter=3),
        "max_iter",
        "no separator within max_iter=3 updates",
    ),
    "normalized_perceptron-callback": (
        lambda: kperc.normalized_perceptron(*INF, callback=stop_at(0)),
        "callback",
        STOPPED,
    ),
    "winnow-separator": (
        lambda: kperc.winnow(*SEP),
        "separator",
        "separator found after {nit} updates",
    ),
    "winnow-max_iter": (
        lambda: kperc.winnow(*INF, max_iter=3),
        "max_iter",
        "no separator within max_iter=3 updates",
    ),
    "winnow-callback": (lambda: kperc.winnow(*INF, callback=stop_at(1)), "callback", STOPPED),
    "nkp-separator": (
        lambda: kperc.nkp(G_SEP),
        "separator",
        "separator found after {nit} updates",
    ),
    "nkp-max_iter": (
        lambda: kperc.nkp(G_INF, max_iter=3),
        "max_iter",
        "no separator within max_iter=3 updates",
    ),
    "nkp-callback": (lambda: kperc.nkp(G_INF, callback=stop_at(5)), "callback", STOPPED),
    "nkp-no-halt": (
        lambda: kperc.nkp(G_SEP, halt=False, max_iter=200),
        "separator",
        "ran {nit} updates; the first separating iterate was at {first}",
    ),
    "nkp-no-halt-stopped": (
        lambda: kperc.nkp(G_SEP, halt=False, max_iter=200, callback=stop_at(150)),
        "separator",
        "stopped by callback; ran {nit} updates; the first separating iterate was at {first}",
    ),
    # SNKP counts iterations
    "snkp-separator": (
        lambda: kperc.snkp(G_SEP),
        "separator",
        "separator found after {nit} iterations",
    ),
    "snkp-max_iter": (
        lambda: kperc.snkp(G_INF, max_iter=3),
        "max_iter",
        "no separator within max_iter=3 iterations",
    ),
    "snkp-callback": (lambda: kperc.snkp(G_INF, callback=stop_at(2)), "callback", STOPPED),
    "snkp-no-halt": (
        lambda: kperc.snkp(G_SEP, halt=False, max_iter=200),
        "separator",
        "ran {nit} iterations; the first separating iterate was at {first}",
    ),
    "snkp-no-halt-stopped": (
        lambda: kperc.snkp(G_SEP, halt=False, max_iter=200, callback=stop_at(40)),
        "separator",
        "stopped by callback; ran {nit} iterations; the first separating iterate was at {first}",
    ),
    # Von Neumann: a certificate exit, and its own cap message
    "nvn-certificate": (
        lambda: kperc.nvn(G_INF),
        "certificate",
        "eps-certificate (||p||_G <= 0.001) after {nit} iterations",
    ),
    "nvn-separator": (
        lambda: kperc.nvn(G_SEP),
        "separator",
        "separator found after {nit} iterations",
    ),
    "nvn-max_iter": (
        lambda: kperc.nvn(G_INF, max_iter=3),
        "max_iter",
        "neither certificate nor separator within max_iter=3",
    ),
    "nvn-callback": (lambda: kperc.nvn(G_INF, callback=stop_at(3)), "callback", STOPPED),
    "von_neumann_linear-certificate": (
        lambda: kperc.von_neumann_linear(*INF),
        "certificate",
        "eps-certificate (||A p|| <= 0.001) after {nit} iterations",
    ),
    "von_neumann_linear-separator": (
        lambda: kperc.von_neumann_linear(*SEP),
        "separator",
        "separator found after {nit} iterations",
    ),
    "von_neumann_linear-max_iter": (
        lambda: kperc.von_neumann_linear(*INF, max_iter=3),
        "max_iter",
        "neither certificate nor separator within max_iter=3",
    ),
    "von_neumann_linear-callback": (
        lambda: kperc.von_neumann_linear(*INF, callback=stop_at(1)),
        "callback",
        STOPPED,
    ),
    # SNKPVN
    "snkpvn-separator": (
        lambda: kperc.snkpvn(G_SEP),
        "separator",
        "separator found after {nit} iterations",
    ),
    "snkpvn-certificate": (
        lambda: kperc.snkpvn(G_INF, delta=1e-2),
        "certificate",
        "||p||_G = {num} < delta = 0.01 after {nit} iterations",
    ),
    "snkpvn-max_iter": (
        lambda: kperc.snkpvn(G_INF, max_iter=3),
        "max_iter",
        "neither exit fired within max_iter=3 iterations",
    ),
    "snkpvn-max_iter-below-floor": (
        lambda: kperc.snkpvn(G_HARD, delta=1e-12, max_iter=5),
        "max_iter",
        "neither exit fired within max_iter=5 iterations (delta=1e-12 is below the "
        "certifiable floor {num} of ||p||_G, so the certificate exit cannot fire)",
    ),
    "snkpvn-callback": (lambda: kperc.snkpvn(G_INF, callback=stop_at(3)), "callback", STOPPED),
    # ISNKPVN counts calls and iterations
    "isnkpvn-certificate-at-once": (
        lambda: kperc.isnkpvn(G_INF, eps=0.9),
        "certificate",
        "eps-certificate (||q||_G = {num} <= 0.9) after 0 calls and 0 iterations",
    ),
    "isnkpvn-certificate": (
        lambda: kperc.isnkpvn(G_INF, eps=1e-4),
        "certificate",
        "eps-certificate (||q||_G = {num} < 0.0001) after {nouter} calls and {nit} iterations",
    ),
    "isnkpvn-separator": (
        lambda: kperc.isnkpvn(G_SEP),
        "separator",
        "separator found after {nouter} calls and {nit} iterations",
    ),
    "isnkpvn-max_iter": (
        lambda: kperc.isnkpvn(G_INF, eps=1e-4, max_iter=7),
        "max_iter",
        "no exit within max_iter=7 total iterations",
    ),
    "isnkpvn-callback": (
        lambda: kperc.isnkpvn(G_INF, eps=1e-4, callback=stop_at(20)),
        "callback",
        STOPPED,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_exit_has_its_outcome_and_message(case):
    run, outcome, template = CASES[case]
    r = run()
    assert r.outcome == outcome
    assert r.status == {"separator": 0, "certificate": 1, "max_iter": 2, "callback": 3}[outcome]
    assert r.success == (outcome in ("separator", "certificate"))
    fields = {"nit": r.nit, "first": r.get("first_separator_nit"), "nouter": r.get("nouter")}
    pattern = NUM.join(re.escape(part.format(**fields)) for part in template.split("{num}"))
    assert re.fullmatch(pattern, r.message), r.message


def test_the_stopped_runs_end_where_their_callback_raised():
    assert kperc.snkp(G_INF, callback=stop_at(2)).nit == 2
    r = kperc.isnkpvn(G_INF, eps=1e-4, callback=stop_at(20))
    assert r.nit == 20 and r.nouter >= 1
    # the separator of a run that went on (halt=False) is reported, callback or not
    r = kperc.nkp(G_SEP, halt=False, max_iter=200, callback=stop_at(150))
    assert r.nit == 150 and r.first_separator_nit < 150 and r.success
    assert np.all(G_SEP @ r.alpha > 0)
