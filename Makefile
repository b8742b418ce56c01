# kperc-book: `make` regenerates everything and builds the book; `make test` checks it.
# Every target works from a clean clone on a machine with only Python 3 (and make).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.kperc-installed
# the exact versions the committed outputs were made with (see the file's header)
CONSTRAINTS := requirements/constraints.txt
CHROMIUM := /usr/bin/chromium

.DEFAULT_GOAL := all
.PHONY: all env data chapters report html test check test-deps lint typecheck unit nbval datacheck \
        wheel minversions browser bench clean blas nbval-blas

## make: environment, data, every chapter re-executed, HTML book
all: env data chapters html
	@echo "Book built: $(CURDIR)/_build/html/index.html"

## the virtual environment (re-installed only when a pyproject.toml changes): the one
## install line of the README, the kperc library and the book's tools (book-tools/, the
## kperc-book distribution: kperc_book and benchmarks), both editable
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

chapters: env
	$(PY) -m kperc_book.reproduce

report: env
	$(PY) -m kperc_book.report

html: env report
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

## make test: the same environment, then every check (stops at the first failure)
test: test-deps lint typecheck unit blas wheel minversions nbval nbval-blas datacheck html browser
	@echo "make test: all checks passed"

## make check: the fast first command (a couple of minutes): lint and the library's
## tests not marked slow, in the checkout
check: lint typecheck
	$(PY) -m pytest tests/lib -m "not slow" -q
	@echo "make check: passed (make test runs every check)"

test-deps: env
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "installing Debian chromium for the browser test"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; fi
	@$(PY) -c "import playwright" || $(PY) -m pip install --quiet -c $(CONSTRAINTS) playwright

LINTED := kperc book-tools tests book benchmark_kperc
lint: env
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)

## the library's type hints (configured in pyproject.toml's [tool.mypy])
typecheck: env
	$(VENV)/bin/mypy

unit: env
	$(PY) -m pytest tests -m "not browser" -q

## the kperc wheel in a fresh venv, the library's tests (tests/lib/) run outside the checkout
wheel: env
	$(PY) -m kperc_book.wheelcheck

## the same with exactly the floor of every core dependency (fast subset: not slow)
minversions: env
	$(PY) -m kperc_book.wheelcheck --min-versions

NBVAL = $(PY) -m pytest -q -p no:cacheprovider --nbval --nbval-current-env \
	  $$($(PY) -m kperc_book.reproduce --list)
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
	KPERC_REQUIRE_BROWSER=1 $(PY) -m pytest tests/book/test_browser.py -m browser -q

## make bench: measure everything (one command, every suite, including the chapters'
## timing files), then regenerate the chapters that show the timings
bench: env
	$(PY) -m pip install --quiet -c $(CONSTRAINTS) -e . -e "./book-tools[test,bench]"
	$(PY) -m benchmarks.bench
	$(PY) -m kperc_book.reproduce ch04 ch07 benchmarks

clean:
	rm -rf _build

## make pdf: the whole book as one PDF, _build/latex/kperc-book.pdf (LaTeX via xelatex,
## Debian's TeX Live installed if missing: texlive-fonts-extra, about 500 MB, is there for
## bbm.sty, which jupyter-book's LaTeX class loads), then the HTML book again with a
## download link to the PDF on its landing page (a plain `make` build has no such link)
.PHONY: pdf
TEX_DEBS := latexmk xindy texlive-latex-recommended texlive-latex-extra \
            texlive-fonts-recommended texlive-fonts-extra texlive-xetex fonts-freefont-otf
pdf: env report
	@if ! command -v xelatex >/dev/null || ! command -v latexmk >/dev/null || \
	    ! command -v xindy >/dev/null || ! kpsewhich bbm.sty >/dev/null || \
	    ! fc-list | grep -q FreeSerif; then \
	  echo "installing Debian's TeX Live for the PDF"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
	    --no-install-recommends $(TEX_DEBS); fi
	rm -rf _build/latex
	$(VENV)/bin/jupyter-book build . --builder pdflatex
	$(PY) -c 'import yaml; c = yaml.safe_load(open("_config.yml")); c["parse"]["myst_substitutions"]["pdf_download"] = "The whole book is also available as one PDF: {download}`kperc-book.pdf </_build/latex/kperc-book.pdf>`."; yaml.safe_dump(c, open("_build/pdf-config.yml", "w"), allow_unicode=True, sort_keys=False)'
	$(VENV)/bin/jupyter-book build . -W -n --keep-going --config _build/pdf-config.yml
	@echo "PDF: $(CURDIR)/_build/latex/kperc-book.pdf (linked from _build/html/book/index.html)"
