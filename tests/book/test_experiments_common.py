"""The shared log-log slope of the experiment modules."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kperc_book.experiments._common import loglog_slope


@given(
    exponent=st.floats(-3.0, 3.0),
    scale=st.floats(1e-3, 1e3),
    n=st.integers(2, 30),
)
def test_power_law_recovers_exponent(exponent, scale, n):
    x = np.geomspace(1.0, 100.0, n)
    assert loglog_slope(x, scale * x**exponent) == pytest.approx(exponent, abs=1e-9)


def test_zero_count_raises_by_default():
    with pytest.raises(ValueError, match="nonpositive='drop'"):
        loglog_slope([1.0, 2.0, 4.0], [0.0, 2.0, 4.0])


def test_drop_policy_fits_remaining_pairs():
    assert loglog_slope([1.0, 2.0, 4.0], [0.0, 2.0, 4.0], nonpositive="drop") == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("x", "y", "kw", "match"),
    [
        ([1.0, 2.0], [1.0], {}, "same length"),
        ([1.0], [1.0], {}, "at least two"),
        ([1.0, 2.0, 4.0], [0.0, 0.0, 4.0], {"nonpositive": "drop"}, "at least two"),
        ([1.0, 2.0], [1.0, 2.0], {"nonpositive": "ignore"}, "nonpositive must be"),
    ],
)
def test_boundary_errors(x, y, kw, match):
    with pytest.raises(ValueError, match=match):
        loglog_slope(x, y, **kw)
