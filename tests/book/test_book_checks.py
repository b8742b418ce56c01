"""The helpers behind the browser test's reader checks, tested without a browser.

``tests/book/test_browser.py`` runs only after a book build (``make test``'s browser step);
these tests check its rules on small, known inputs, so that a check that could never
fire would be noticed in the ordinary unit run.
"""

from __future__ import annotations

import doctest
import json

import pytest
import test_book_figures
import test_browser
from test_book_figures import text_sizes
from test_browser import (
    INTERNAL_WORDS,
    MIN_FIGURE_PT,
    _notebook_names,
    _png_dpi,
    _smallest_font_pt,
    _smallest_text_pt,
)

from kperc_book.chapter import FIGURES_DIR, SAVE_DPI


@pytest.mark.parametrize("module", [test_browser, test_book_figures])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_figure_text_rule():
    """9 pt text saved at 200 dpi is 9 pt on screen at the nominal width W / 200 * 96."""
    font = _smallest_font_pt()
    assert font == 9.0
    natural = 1540  # a 7.7 in figure at 200 dpi
    nominal = natural / SAVE_DPI * 96
    assert _smallest_text_pt(natural, nominal, SAVE_DPI, font) == pytest.approx(MIN_FIGURE_PT)
    # 4 % narrower than nominal already shows the 9 pt text below 9 pt
    assert _smallest_text_pt(natural, 0.96 * nominal, SAVE_DPI, font) < MIN_FIGURE_PT - 0.05
    # a 100 dpi image (an inline notebook figure) needs twice the width per pixel
    assert _smallest_text_pt(770, 770 * 96 / 100, 100, font) == pytest.approx(MIN_FIGURE_PT)


def test_png_dpi_of_a_saved_figure():
    figures = sorted(FIGURES_DIR.glob("*.png"))
    assert figures, "book/figures has PNGs"
    for png in figures:
        assert _png_dpi(png) == pytest.approx(SAVE_DPI, abs=0.01), png.name


def test_png_dpi_without_phys(tmp_path):
    bad = tmp_path / "not.png"
    bad.write_bytes(b"GIF89a")
    assert _png_dpi(bad) is None


def test_notebook_names(tmp_path):
    cells = [
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": ["n_seeds = 3\n"]},
        {
            "cell_type": "code",
            "metadata": {},
            "source": [
                "import numpy as np\n",
                "%matplotlib inline\n",
                "rho_n, (a, b) = 0.1, (1, 2)\n",
                "for seed in range(3):\n",
                "    inner = seed\n",
                "def helper():\n",
                "    local = 1\n",
                "ch.glue('ch09_key', 1)\n",
                "glue('ch09-table', 2, display=False)\n",
            ],
        },
        {"cell_type": "markdown", "metadata": {}, "source": ["`shown = 1`"]},
    ]
    nb = tmp_path / "x.ipynb"
    nb.write_text(json.dumps({"cells": cells}))
    assert _notebook_names(nb) == {
        "n_seeds",
        "rho_n",
        "a",
        "b",
        "seed",
        "helper",
        "ch09_key",
        "ch09-table",
    }
    assert _notebook_names(nb, exported=True) == {"n_seeds", "ch09_key", "ch09-table"}


@pytest.mark.parametrize(
    "text,label",
    [
        ("as recorded in book/_generated/runs.json", "_generated"),
        ("see peers.json", ".json"),
        ("run python -m kperc_book.reproduce", "python -m"),
        ("the helpers live in kperc_book.experiments", "kperc_book"),
        ("tests run with pytest", "pytest"),
        ("numbers are glued into the prose", "glue"),
        ("see PAPER.md", "PAPER.md"),
    ],
)
def test_internal_words_fire(text, label):
    assert any(lab == label and pat.search(text) for lab, pat in INTERNAL_WORDS)


@pytest.mark.parametrize(
    "text",
    ["the Gordan alternative", "a JSON-free sentence", "the pytesting ground", "gluten"],
)
def test_internal_words_quiet_on_prose(text):
    assert not [lab for lab, pat in INTERNAL_WORDS if pat.search(text)]


def test_text_sizes_flags_small_text():
    assert text_sizes("ax.legend(fontsize=7)", 10) == [(1, "fontsize=", 7.0)]
    assert text_sizes("ax.tick_params(labelsize='x-small')", 10) == [(1, "labelsize=", 6.94)]
    assert text_sizes("mpl.rcParams.update({'font.size': 8})", 10) == [
        (1, "rcParams['font.size']", 8.0)
    ]
    assert text_sizes("ax.text(0, 0, 's', size=12)", 10) == [(1, "size=", 12.0)]
    assert text_sizes("x = f(size=3)", 10) == []
