"""Sphinx helper for the API page: resolve references to kperc's package-level names.

Docstrings may cite an object by the name it is re-exported under (``kperc.snkp``,
``kperc.GramOperator``) while the API page documents it in its defining module
(``kperc._perceptrons.snkp``). This extension resolves such a reference to the defining
module's entry; a name that does not exist in kperc stays a broken reference (and fails
the nitpicky build).
"""

from __future__ import annotations

import importlib


def defining_name(target: str) -> str | None:
    """``kperc._perceptrons.snkp`` for ``kperc.snkp``; None if not a kperc re-export."""
    parts = target.split(".")
    if parts[0] != "kperc" or len(parts) < 2:
        return None
    try:
        obj = importlib.import_module(parts[0])
        for p in parts[1:]:
            obj = getattr(obj, p)
    except (ImportError, AttributeError):
        return None
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(mod, str) or not isinstance(qual, str):
        return None
    real = f"{mod}.{qual}"
    return real if real != target else None


def _missing_reference(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    real = defining_name(node.get("reftarget", ""))
    if real is None:
        return None
    new = node.deepcopy()
    new["reftarget"] = real
    return env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], real, new, contnode
    )


def setup(app):
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
