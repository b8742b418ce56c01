# kperc-book: `make` re-runs what changed and builds the book; `make test` checks it.
# Every target works from a clean clone on a machine with only Python 3 (and make).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.kperc-installed
# the exact versions the committed outputs were made with (see the file's header)
CONSTRAINTS := requirements/constraints.txt
CHROMIUM := /usr/bin/chromium

.DEFAULT_GOAL := all
.PHONY: all env data chapters report html pdf test test-thorough check test-deps lint typecheck unit \
        nbval datacheck wheel minversions browser benchopt bench-micro bench-device clean blas nbval-blas chromium

## make: environment, data verified, the chapters that changed re-executed, PDF, HTML book
## (the HTML links the PDFs that exist when it is built, so the PDF comes first)
all: env data chapters pdf html
	@echo "Book built: $(CURDIR)/_build/html/index.html"
	@echo "PDF: $(CURDIR)/_build/html/kperc-book.pdf (linked from the landing page; each page's own PDF in _build/html/pdf/)"

## the virtual environment (re-installed only when a pyproject.toml changes): the one
## install line of the README, the kperc library and the book's tools (book-tools/, the
## kperc-book distribution: kperc_book), both editable
env: $(STAMP)
$(STAMP): pyproject.toml book-tools/pyproject.toml $(CONSTRAINTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || { \
	  echo "python3 -m venv failed; on Debian install python3-venv first" >&2; \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update && apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); \
	  else exit 1; fi; }
	$(PY) -m pip install --quiet -c $(CONSTRAINTS) -e . -e "./book-tools[test]"
	@# a .venv made before book-tools/ existed put the checkout on the path with a .pth file
	@rm -f "$$($(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/kperc-book-checkout.pth"
	@touch $(STAMP)

data: env
	$(PY) -m kperc_book.data --check

## A chapter re-runs only when its notebook, the stored data, the library or the book's
## tools changed (or the environment was re-installed): each run leaves a stamp file in
## _build/stamps/, newer than everything it read. The ledger also reads every chapter's
## records and the tests' ledger marks; the benchmarks page reads benchopt's result file;
## chapter 7 reads it too, its timings (make bench-micro) and the records of chapters 1 to 6.
NOTEBOOKS := $(wildcard book/*.ipynb)
RAN       := $(patsubst book/%.ipynb,_build/stamps/%.ran,$(NOTEBOOKS))
SOURCES   := $(shell find kperc book-tools -name '*.py' -not -path '*/__pycache__/*')
DATA      := $(wildcard data/*)
chapters: $(RAN)
_build/stamps/%.ran: book/%.ipynb $(SOURCES) $(DATA) $(STAMP)
	$(PY) -m kperc_book.reproduce $*
	@mkdir -p $(@D) && touch $@
_build/stamps/ledger.ran: $(filter-out _build/stamps/ledger.ran,$(RAN)) \
	$(shell find tests -name '*.py' -not -path '*/__pycache__/*')
_build/stamps/benchmarks.ran: $(wildcard book/_generated/benchopt/*.parquet)
## Chapter 4 shows the timings of `make bench-micro`: new ones re-run it
_build/stamps/ch04_smoothed_perceptron.ran: book/_generated/micro/realdata.json
_build/stamps/ch07_discussion.ran: $(wildcard book/_generated/benchopt/*.parquet) \
	$(wildcard book/_generated/micro/svm.json) \
	$(filter-out _build/stamps/ch07_discussion.ran,$(filter _build/stamps/ch0%,$(RAN)))

report: env
	$(PY) -m kperc_book.report

## the HTML book; kperc_book.pdf (a Sphinx extension of _config.yml) links and copies the
## PDFs of `make pdf` that exist (none after a plain build: then no PDF link either)
html: env report
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

## make pdf: the whole book as one PDF, without TeX: the single-page HTML build printed by
## Debian's Chromium through Playwright (kperc_book.pdf: bookmarks, a table of contents,
## page numbers, code wrapped by _static/kperc-print.css), and one PDF per page of the book
## cut from it, in _build/pdf/. Re-made only when a page changed; an HTML book built
## before is then rebuilt, so that it links the new PDFs.
PAGES := $(wildcard book/*.md book/*.ipynb book/*.bib book/figures/* _static/*) _toc.yml _config.yml
pdf: _build/pdf/kperc-book.pdf
_build/pdf/kperc-book.pdf: $(PAGES) $(STAMP) book-tools/kperc_book/pdf.py | chromium
	rm -rf _build/singlehtml
	$(VENV)/bin/jupyter-book build . --builder singlehtml -W -n --keep-going
	$(PY) -m kperc_book.pdf
	@if [ -f _build/html/index.html ]; then $(VENV)/bin/jupyter-book build . -W -n --keep-going; fi

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "installing Debian chromium (for the PDF and the browser test)"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; fi
	@command -v pdftotext >/dev/null || { \
	  echo "installing poppler-utils (pdftotext, for the test of the PDF)"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y poppler-utils; }

## make test: the same environment, then every check (stops at the first failure)
test: test-deps lint typecheck unit blas wheel minversions nbval nbval-blas datacheck pdf html browser
	@echo "make test: all checks passed"

## make check: the fast first command (a couple of minutes): lint and the library's
## tests not marked slow, in the checkout
check: lint typecheck
	$(PY) -m pytest tests/lib -m "not slow" -q
	@echo "make check: passed (make test runs every check)"

test-deps: env chromium
	@$(PY) -c "import playwright" || $(PY) -m pip install --quiet -c $(CONSTRAINTS) playwright

LINTED := kperc book-tools tests book benchmark_kperc bench
lint: env
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)

## the type hints of the library and the book's tools (pyproject.toml's [tool.mypy])
typecheck: env
	$(VENV)/bin/mypy

## the tests of the book's tools and of the benchmarks, on $(JOBS) workers (pytest-xdist);
## --dist loadfile keeps each test file on one worker, so a module fixture (a fresh venv,
## a regenerated copy of the checkout) is built once. (loadgroup's xdist_group marks do
## nothing under pytest 9.2.) The library's tests (tests/lib/) run once, against the
## installed wheel (make wheel); make check runs them in the checkout.
JOBS ?= 2
UNIT = $(PY) -m pytest tests/book tests/bench -m "not browser" -q -n $(JOBS) --dist loadfile
unit: env
	$(UNIT)
	@# each micro-benchmark once, untimed (the large sizes and data sets are marked slow)
	$(PY) -m pytest bench -m "not slow" --benchmark-disable -q -p no:cacheprovider

## make test-thorough: the same with every fault point of the sweeps that make unit samples
## (KPERC_THOROUGH=1; tests/book/test_pipeline_commit.py says which points it keeps)
test-thorough: env
	KPERC_THOROUGH=1 $(UNIT)
	KPERC_THOROUGH=1 $(PY) -m kperc_book.wheelcheck -n $(JOBS)

## the kperc wheel in a fresh venv, the library's tests (tests/lib/) run outside the
## checkout, on $(JOBS) workers
wheel: env
	$(PY) -m kperc_book.wheelcheck -n $(JOBS)

## the same with exactly the floor of every core dependency (fast subset: not slow)
minversions: env
	$(PY) -m kperc_book.wheelcheck --min-versions -n $(JOBS)

## each notebook on one of $(JOBS) workers (nbval runs a notebook's cells in order in one
## kernel; --dist loadfile keeps them together)
NBVAL = $(PY) -m pytest -q -p no:cacheprovider --nbval --nbval-current-env \
	  -n $(JOBS) --dist loadfile $$($(PY) -m kperc_book.reproduce --list)
nbval: env
	$(NBVAL)

## Other machines round differently: the same checks under another OpenBLAS kernel with
## one thread (what a reader's other CPU does), and under the default kernel with two
## threads (skipped where the default run above already used exactly that).
BLAS_OTHER   := OPENBLAS_CORETYPE=Sandybridge OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
BLAS_THREADS := OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2
DEFAULT_IS_TWO = $$($(PY) -c "import numpy, threadpoolctl as t; \
  print(all(p['num_threads'] == 2 for p in t.threadpool_info() if p['user_api'] == 'blas'))")
define under_blas_configs
	@echo "== $(1): another OpenBLAS kernel, one thread ($(BLAS_OTHER))"
	env $(BLAS_OTHER) $(2)
	@if [ "$(DEFAULT_IS_TWO)" = True ]; then \
	  echo "== $(1): the default run already used the default kernel with two threads"; \
	else echo "== $(1): the default kernel with two threads"; env $(BLAS_THREADS) $(2); fi
endef
nbval-blas: env
	$(call under_blas_configs,nbval,$(NBVAL))

## the numerics-sensitive tests (marker blas) under the other BLAS configurations
blas: env
	$(call under_blas_configs,blas tests,$(PY) -m pytest tests -m blas -q -p no:cacheprovider)

datacheck: env
	$(PY) -m kperc_book.data --check

browser: env
	KPERC_REQUIRE_BROWSER=1 KPERC_REQUIRE_PDF=1 \
	  $(PY) -m pytest tests/book/test_browser.py tests/book/test_book_pdf.py -m browser -q

## make benchopt: the book's benchopt grid (benchmark_kperc/book.yml) on one core, one BLAS
## thread; book/_generated/benchopt/book.parquet is replaced only by a complete run
benchopt: env
	$(PY) benchmark_kperc/book_results.py

## make bench-micro: the micro-benchmarks of bench/ (pytest-benchmark), one BLAS thread;
## each group's JSON replaces its committed file in book/_generated/micro/ only after a
## complete, passing run (bench/run.py); then the targets of CONTRIBUTING.md, met or not
bench-micro: env
	env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m bench.run
	$(PY) -m bench.report

## make bench-device: bench/device.py, kperc on a CUDA GPU within 8 minutes (issue 37). On a
## CUDA machine it writes book/_generated/device/record.json (the machine recorded); without
## one it says so, runs the same steps at small n on the CPU (torch) and writes
## _build/device/record.json. The GPU machine has no registry and no venv: here run
##   pip download --no-deps --only-binary=:all: --python-version 3.12 \
##     --platform manylinux_2_17_x86_64 -d _build/wheels array-api-compat==1.16.0
## then there, in the checkout with _build/wheels carried along,
##   pip install --no-index --target _build/pydeps _build/wheels/*.whl
##   make bench-device PY="env PYTHONPATH=.:book-tools:_build/pydeps python3"
bench-device:
	$(PY) bench/device.py

## the next `make` re-runs every chapter and rebuilds the book and the PDF
clean:
	rm -rf _build
