"""pytest settings for the chapter notebooks (``pytest --nbval book/<chapter>.ipynb``).

nbval compares every stored text output of a notebook with a fresh run, and skips
``image/png``. The figures glued with myst-nb are stored under another MIME type
(``application/papermill.record/image/png``), which nbval would compare byte for byte.
Image bytes legitimately differ between machines (anti-aliasing of curves whose
coordinates differ in the last bits), so they are not compared here; the regenerated
figures are compared with the committed ones within a pixel tolerance by the test suite
instead (``tests/test_cross_machine.py``).
"""

from __future__ import annotations

GLUED_IMAGES = ("application/papermill.record/image/png",)


def pytest_collection_modifyitems(session, config, items):
    """Add the glued-image MIME types to what nbval does not compare."""
    for item in items:
        parent = getattr(item, "parent", None)
        skip = getattr(parent, "skip_compare", None)
        if skip is not None and not set(GLUED_IMAGES) <= set(skip):
            parent.skip_compare = tuple(skip) + GLUED_IMAGES
