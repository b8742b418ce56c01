"""The library's docstring examples run as doctests, and every public name has one.

The modules are found through the imported package, so the same test runs against an
installed wheel as against the checkout.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import kperc

MODULES = sorted(m.name for m in pkgutil.iter_modules(kperc.__path__, prefix="kperc."))


def _public_objects():
    names = [(f"kperc.{n}", getattr(kperc, n)) for n in kperc.__all__]
    for sub in ("datasets", "sweeps", "reference"):
        mod = importlib.import_module(f"kperc.{sub}")
        names += [(f"kperc.{sub}.{n}", getattr(mod, n)) for n in mod.__all__]
    return [(name, obj) for name, obj in names if not inspect.ismodule(obj)]


PUBLIC = _public_objects()


def test_the_library_modules_are_found():
    assert {"kperc._perceptrons", "kperc._classifier", "kperc.datasets"} <= set(MODULES)
    assert "kperc.reference" in MODULES
    assert len(PUBLIC) >= 40


@pytest.mark.parametrize("modname", MODULES)
def test_doctests(modname):
    module = importlib.import_module(modname)
    printopts = np.get_printoptions()
    try:
        finder = doctest.DocTestFinder(exclude_empty=True)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        for test in finder.find(module, modname):  # globals: a copy of the module's
            runner.run(test)
    finally:
        np.set_printoptions(**printopts)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} doctest example(s) of {modname} failed"


@pytest.mark.parametrize("name,obj", PUBLIC, ids=[name for name, _ in PUBLIC])
def test_every_public_name_has_a_doctested_example(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------\n" in doc, f"{name} has no numpydoc Examples section"
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={})
    assert tests and tests[0].examples, f"{name}'s Examples section has no >>> example"
