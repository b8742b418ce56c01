"""The figure style finds its bundled fonts whatever matplotlib's shared font cache holds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import matplotlib as mpl
from matplotlib import font_manager

from kperc_book.chapter import style


def test_style_finds_the_bundled_fonts_when_the_cache_names_another_environment():
    """matplotlib caches its font list per user and version, with the files of whichever
    environment built it; a second venv with the same matplotlib read a list that named
    the first one's files, kept none of them and failed every figure."""
    manager = font_manager.fontManager
    saved = (manager.ttflist, manager.afmlist)
    try:
        elsewhere = [
            dataclasses.replace(f, fname=str(Path("/elsewhere/venv/fonts") / Path(f.fname).name))
            for f in manager.ttflist
        ]
        manager.ttflist = elsewhere
        style()
        found = Path(font_manager.findfont("DejaVu Sans", fallback_to_default=False))
        bundled = Path(mpl.get_data_path(), "fonts", "ttf").resolve()
        assert found.resolve().parent == bundled
        assert all(Path(f.fname).resolve().parent == bundled for f in manager.ttflist)
    finally:
        manager.ttflist, manager.afmlist = saved
        style()
