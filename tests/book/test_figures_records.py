"""The figures of Chapters 5 to 7 and the records Chapter 7 reads.

Doctests of both modules, every figure readable by the rule of ``test_plots.py``, every
figure of those chapters given its alt text once, and the summary table's quotes linked
to their chapters in words.
"""

from __future__ import annotations

import doctest
import json

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from test_plots import assert_readable  # noqa: E402

from kperc_book import paths, records  # noqa: E402
from kperc_book.experiments import figures  # noqa: E402


@pytest.mark.parametrize("module", [figures, records])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_every_figure_of_chapters_5_to_7_has_its_alt_text_here():
    for key in ("ch05", "ch06", "ch07"):
        saved = json.loads((paths.generated_dir() / f"{key}.json").read_text())["figures"]
        for name, entry in saved.items():
            stem = name.removesuffix(".png")
            assert figures.ALT.get(stem) == entry["alt"], stem


def test_figure_refuses_a_figure_without_words():
    class Chapter:
        key = "ch05"

    with pytest.raises(KeyError, match="ch05-nowhere"):
        figures.figure(Chapter(), "nowhere", None)


def test_figures_are_readable():
    from scipy.spatial import ConvexHull

    A = np.array([[1.0, 0.0], [-0.5, 0.8], [-0.5, -0.8], [0.2, 0.3]])
    hull = ConvexHull(A)
    i = int(np.argmin(-hull.equations[:, -1]))
    phi = np.linspace(0, 2 * np.pi, 200, endpoint=False)
    assert_readable(figures.theorem3(A, hull, i, hull.equations[i, -1], phi))
    assert_readable(figures.caveat([1.0, 0.1, 0.01], np.array([-0.2, -0.03, -0.003]), -0.3))
    runs = pd.DataFrame(
        {"family": ["balanced", "imbalanced"] * 2, "n": [10, 10, 100, 100],
         "a": [5, 9, 6, 30], "b": [4, 8, 5, 20], "c": [3, 7, 3, 8]}
    )  # fmt: skip
    med = runs.pivot_table(index="n", columns="family", values=["a", "b", "c"])
    med = med.swaplevel(axis=1).rename(columns={"a": "SNKPVN", "b": "ISNKPVN", "c": "SNKP"})
    med[("imbalanced", "lower bound")] = [2, 6]
    names = {"a": "SNKPVN", "b": "ISNKPVN", "c": "SNKP"}
    assert_readable(figures.open_question(runs, med, names, rho=0.05))


def test_summary_table_links_chapters_in_words():
    quoted = pd.DataFrame(
        [("NKP (Alg. 3)", "ch03", "k", "q", r"$\rho^{{-{:#.3g}}}$", 1.9)],
        columns=["algorithm", "chapter", "key", "quantity", "template", "value"],
    )
    table = records.summary_table(quoted, {"SNKP (Alg. 4)": "grows"})
    text = table.set_index("algorithm")["measured in this book"]
    assert text["NKP (Alg. 3)"] == r"$\rho^{-1.90}$ ({doc}`Chapter 3 <ch03_kernels>`)"
    assert text["SNKP (Alg. 4)"] == "grows"
    assert list(table.algorithm) == list(records.GUARANTEES)
    with pytest.raises(ValueError, match="chapter"):
        records.chapter_link("ch99")


def test_measured_on_names_the_machine_and_refuses_other_timings():
    import copy

    from kperc_book import records

    micro = records.micro("svm")
    line = records.measured_on(micro)
    assert line.startswith(f"measured on {micro['datetime'][:10]} with pytest-benchmark")
    assert "one BLAS thread" in line
    threads = copy.deepcopy(micro)
    threads["machine_info"]["blas"][0]["num_threads"] = 2
    with pytest.raises(ValueError, match="one BLAS thread"):
        records.measured_on(threads)
    wall = copy.deepcopy(micro)
    wall["benchmarks"][0]["options"]["timer"] = "perf_counter"
    with pytest.raises(ValueError, match="CPU time"):
        records.measured_on(wall)
