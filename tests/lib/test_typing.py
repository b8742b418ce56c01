"""The public API is typed: every parameter and return of a public name is annotated.

mypy (``make typecheck``) checks that the annotations agree with the code; this test
checks that they exist, so a new public function cannot leave its arrays untyped.
"""

from __future__ import annotations

import inspect
import typing

import pytest

import kperc
import kperc.datasets
import kperc.reference
import kperc.sweeps


def _public_callables():
    for module, names in (
        (kperc, kperc.__all__),
        (kperc.datasets, kperc.datasets.__all__),
        (kperc.sweeps, kperc.sweeps.__all__),
        (kperc.reference, kperc.reference.__all__),
    ):
        for name in names:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj
            elif inspect.isclass(obj) and obj.__module__.startswith("kperc"):
                for attr, member in vars(obj).items():
                    if isinstance(member, classmethod | staticmethod):
                        member = member.__func__
                    public = not attr.startswith("_") or attr == "__init__"
                    if public and inspect.isfunction(member):
                        yield f"{module.__name__}.{name}.{attr}", member


PUBLIC = dict(_public_callables())


def test_the_public_api_is_found():
    assert "kperc.snkp" in PUBLIC and "kperc.SNKPClassifier.fit" in PUBLIC
    assert "kperc.reference.snkp" in PUBLIC
    assert len(PUBLIC) > 40


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_every_public_parameter_and_return_is_annotated(qualname):
    func = PUBLIC[qualname]
    sig = inspect.signature(func)
    missing = [
        p.name
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    assert not missing, f"{qualname}: parameters without a type hint: {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, f"{qualname}: no return type"
    # the hints name real objects (a typo in a string annotation fails here)
    typing.get_type_hints(func)
