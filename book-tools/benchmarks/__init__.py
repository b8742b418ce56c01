"""The benchmark harness of kperc-book (``python -m benchmarks.bench``, ``make bench``)."""
