"""Every preset of every notebook names only parameters of that notebook, with valid values.

``python -m kperc_book.reproduce chNN --preset full`` must not fail before running
because a preset names a parameter that the notebook's parameters cell does not define.
"""

from __future__ import annotations

import nbformat
import pytest

from kperc_book import _notebooks as nbu
from kperc_book import reproduce as rp

NOTEBOOKS = nbu.toc_notebooks()


def test_the_book_has_notebooks_with_a_full_preset():
    chapters = [p for p in NOTEBOOKS if p.stem.startswith("ch")]
    assert len(chapters) >= 7
    for p in chapters:
        assert "full" in nbu.presets(nbformat.read(p, as_version=4)), p.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_preset_key_is_a_parameter_of_its_notebook(path):
    nb = nbformat.read(path, as_version=4)
    params = nbu.parameters(nb)
    for name, preset in nbu.presets(nb).items():
        unknown = sorted(set(preset) - set(params))
        assert not unknown, f"{path.name}: preset {name!r} names unknown parameters {unknown}"
        for key, value in preset.items():  # the same checks as -p values
            rp._check_value(key, value, params[key], path)
        # and the pipeline's own validation accepts it without running anything
        rp._effective(nb, name, {}, path)


def test_tuple_assignments_define_each_parameter():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("r_max, n_r = 100.0, 9\nn = 3  # comment\nexpr = n * 2")
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    assert nbu.parameters(nb) == {"r_max": 100.0, "n_r": 9, "n": 3, "expr": "n * 2"}
