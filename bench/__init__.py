"""Micro-benchmarks of kperc on pytest-benchmark (``make bench-micro``; see CONTRIBUTING.md).

One module per group, each written by ``python -m bench.run`` to
``book/_generated/micro/<group>.json`` (pytest-benchmark's JSON, with the machine and the
commit it was measured on):

* ``test_periter.py``: time per iteration of NKP, SNKP, NVN and ISNKPVN against one
  product ``G @ v`` (dense and factored ``G``), products counted, peak memory;
* ``test_fixedcost.py``: the fixed cost of one call on the matrix ``kperc.gram_matrix``
  returns, in products, timed and counted;
* ``test_classifier.py``: ``SNKPClassifier`` against ``SVC`` and ``LinearSVC`` on
  scikit-learn's bundled sets and ISLP's (:mod:`bench.datasets`);
* ``test_realdata.py`` and ``test_svm.py``: the timings that Chapters 4 and 7 show.

``python -m bench.report`` prints the targets of CONTRIBUTING.md and whether each is met.
"""
