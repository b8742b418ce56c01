"""The shared log-log slope of the experiment modules."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kperc_book import _notebooks as nbu
from kperc_book import paths
from kperc_book.experiments._common import LINE_WIDTH, loglog_slope, table_text


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


def test_every_sweep_point_function_is_named_run():
    """One name for one job: the function a sweep calls per point is ``<what>_run``, in the
    chapters (which define most of them) and in the modules that remain."""
    import ast
    import json
    from pathlib import Path

    import kperc_book.experiments as experiments

    sources = [
        (module.name, module.read_text())
        for module in sorted(Path(experiments.__file__).parent.rglob("*.py"))
    ]
    for nb in sorted(paths.BOOK_DIR.glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        sources += [(nb.name, "".join(c["source"])) for c in cells if c["cell_type"] == "code"]
    found = []
    for where, text in sources:
        for node in ast.walk(nbu.parse_code(text) or ast.parse("")):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            first = node.args[0]
            if name in ("sweep", "partial") and isinstance(first, ast.Name):
                found.append((where, first.id))
    assert len(found) >= 15
    bad = [(m, f) for m, f in found if not (f.endswith("_run") or f == "run")]
    assert not bad, f"sweep point functions not named *_run: {bad}"


def test_table_text_renames_shows_missing_values_and_refuses_long_lines():
    df = pd.DataFrame({"nit_np": [3.0, np.nan]}, index=pd.Index([0.1, 0.2], name="rho"))
    text = table_text(df, {"nit_np": "NP", "rho": "margin"}, na="-")
    lines = text.splitlines()
    assert lines[0].split() == ["NP"] and lines[1].split() == ["margin"]
    assert lines[-1].split() == ["0.2", "-"] and "NaN" not in text
    wide = pd.DataFrame({"x" * (LINE_WIDTH + 1): [1]})
    with pytest.raises(ValueError, match="characters long"):
        table_text(wide, index=False)
