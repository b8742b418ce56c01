"""The documentation users read names only public objects: no docstring of a public name
shows a private module path such as ``kperc._ties`` or ``kperc._classifier.X``.

The book's pages, README.md and PYPI.md are checked by ``tests/book/test_private_paths.py``
(this folder also runs against the installed wheel, without the checkout).
"""

from __future__ import annotations

import importlib
import inspect
import re

#: A dotted path through a private module or name of kperc (or of the book's tools).
PRIVATE = re.compile(r"\bkperc(?:_book)?(?:\.\w+)*\._[A-Za-z]\w*")


def _docstrings():
    seen: set[int] = set()
    out: dict[str, str] = {}

    def walk(name, obj):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        out[name] = inspect.getdoc(obj) or ""
        if inspect.isclass(obj) and obj.__module__.startswith("kperc"):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, classmethod | staticmethod):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if callable(member):
                    walk(f"{name}.{attr}", member)

    for modname in ("kperc", "kperc.datasets", "kperc.sweeps", "kperc.reference"):
        module = importlib.import_module(modname)
        walk(modname, module)
        for n in module.__all__:
            obj = getattr(module, n)
            if not inspect.ismodule(obj):
                walk(f"{modname}.{n}", obj)
    return out


def test_pattern_catches_private_paths():
    for text in ("(``kperc._ties``)", ":class:`kperc._classifier.SNKPClassifier`"):
        assert PRIVATE.search(text)
    assert PRIVATE.search("kperc_book._markdown.table")
    for text in ("kperc.SNKPClassifier", "kperc.datasets.planted", "kperc_book.data", "_x"):
        assert not PRIVATE.search(text)


def test_public_docstrings_name_no_private_path():
    docs = _docstrings()
    assert "kperc.SNKPClassifier.fit" in docs and "kperc.reference.nkp" in docs
    offenders = {name: PRIVATE.findall(doc) for name, doc in docs.items() if PRIVATE.search(doc)}
    assert not offenders, f"private paths in public docstrings: {offenders}"
