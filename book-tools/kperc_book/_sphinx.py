"""Sphinx helpers: resolve references between kperc's two names (the API page), and
number figures only inside the numbered chapters.

The API page documents each object under its public name (``kperc.snkp``,
``kperc.datasets.planted``), while a docstring may cite it by the module that defines
it (``kperc._perceptrons.snkp``), and an object documented under its defining module
may be cited by the name it is re-exported under. This extension resolves a reference
that Sphinx could not resolve by trying the other name; a name that does not exist in
kperc stays a broken reference (and fails the nitpicky build).

It also lets the single-page HTML builder (``--builder singlehtml``, which ``make pdf``
prints to PDF) write the nodes that extensions register for the ``html`` builder only
(myst-nb's hidden cells): Sphinx keys these handlers by builder name.
"""

from __future__ import annotations

import importlib


def _lookup(target: str):
    parts = target.split(".")
    if parts[0] != "kperc" or len(parts) < 2:
        return None
    for i in range(len(parts), 0, -1):  # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except AttributeError:
            return None
        return obj
    return None


def defining_name(target: str) -> str | None:
    """``kperc._perceptrons.snkp`` for ``kperc.snkp``; None if not a kperc re-export."""
    obj = _lookup(target)
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(mod, str) or not isinstance(qual, str):
        return None
    real = f"{mod}.{qual}"
    return real if real != target else None


def public_name(target: str) -> str | None:
    """``kperc.snkp`` for ``kperc._perceptrons.snkp`` (and ``kperc._x.Cls.attr``);
    None unless ``kperc`` exports the object (or the class that holds the attribute)."""
    import kperc

    parts = target.split(".")
    if len(parts) < 3 or parts[0] != "kperc" or not parts[1].startswith("_"):
        return None
    obj = _lookup(".".join(parts[:3]))
    name = parts[2]
    if obj is None or name not in kperc.__all__ or getattr(kperc, name, None) is not obj:
        return None
    return ".".join(["kperc", *parts[2:]])


def _missing_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    for real in (public_name(target), defining_name(target)):
        if real is None:
            continue
        new = node.deepcopy()
        new["reftarget"] = real
        found = env.get_domain("py").resolve_xref(
            env, node["refdoc"], app.builder, node["reftype"], real, new, contnode
        )
        if found is not None:
            return found
    return None


def _unnumbered_pages_have_no_figure_numbers(app, env):
    """Only the chapters (the numbered part of the table of contents) number their figures.

    Sphinx numbers the figures of every page outside a numbered toctree with one counter
    shared by all of them, so the landing page's figures would be 1-3 and the benchmarks
    page's would go on from 4. Those pages show their figures without a number.
    """
    for docname, numbers in env.toc_fignumbers.items():
        if not env.toc_secnumbers.get(docname):
            numbers.pop("figure", None)  # only figures: theorems and the like keep theirs
    return []


def _html_handlers_for_singlehtml(app):
    handlers = app.registry.translation_handlers
    if app.builder.name == "singlehtml":
        for node, visitors in handlers.get("html", {}).items():
            handlers.setdefault("singlehtml", {}).setdefault(node, visitors)


def setup(app):
    app.connect("missing-reference", _missing_reference)
    # after Sphinx's own collector has assigned the numbers (default priority 500)
    app.connect("env-get-updated", _unnumbered_pages_have_no_figure_numbers, priority=900)
    app.connect("builder-inited", _html_handlers_for_singlehtml)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
