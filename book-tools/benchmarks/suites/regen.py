"""The ``regen`` suite: chapter regeneration times (and the book build)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._config import (
    REPO_DIR,
    BenchConfig,
)
from benchmarks._timing import _now
from benchmarks.targets import target
from kperc_book import paths as _paths


def _toc_chapters() -> list[str]:
    toc = _paths.toc_path()
    if not toc.exists():
        return []
    book = _paths.book_dir(".").as_posix() + "/"
    names = []
    for line in toc.read_text().splitlines():
        line = line.strip()
        if line.startswith(f"- file: {book}ch"):
            names.append(line.split(book, 1)[1])
    return names


def suite_regen(cfg: BenchConfig, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Regeneration times recorded by ``python -m kperc_book.reproduce`` (and the book build).

    Reads ``_build/reproduce/runs.json``: the runtime of the last run of each chapter
    with its default parameters. With ``cfg.build`` it also times
    ``jupyter-book build`` into a temporary folder.
    """
    runs_path = _paths.runs_path()
    chapters = []
    if runs_path.exists():
        runs = json.loads(runs_path.read_text()).get("chapters", {})
        for name, entry in sorted(runs.items()):
            chapters.append(
                {
                    "chapter": name,
                    "runtime_s": entry.get("runtime_s"),
                    "preset": entry.get("preset"),
                    "finished_utc": entry.get("finished_utc"),
                }
            )
    toc = _toc_chapters()
    recorded = {c["chapter"] for c in chapters if c["preset"] == "default"}
    missing = [c for c in toc if c not in recorded]
    default = [c for c in chapters if c["preset"] == "default" and c["runtime_s"] is not None]
    total = float(sum(c["runtime_s"] for c in default))
    out: dict[str, Any] = {
        "chapters": chapters,
        "toc_chapters": toc,
        "missing": missing,
        "total_runtime_s": total,
        "max_chapter_s": max((c["runtime_s"] for c in default), default=None),
        "build_s": None,
    }
    if cfg.build:
        jb = Path(sys.executable).with_name("jupyter-book")
        with tempfile.TemporaryDirectory() as tmp:
            t0 = _now()
            proc = subprocess.run(
                [str(jb), "build", ".", "--path-output", tmp],
                cwd=str(REPO_DIR),
                capture_output=True,
                text=True,
            )
            out["build_s"] = _now() - t0
            out["build_ok"] = proc.returncode == 0
    log(f"regen: {len(default)} chapters recorded, total {total:.1f}s, missing {missing}")
    return out


def targets(regen: dict[str, Any], cfg: BenchConfig) -> list[dict[str, Any]]:
    """The whole regeneration and the slowest chapter, in seconds."""
    out: list[dict[str, Any]] = []
    if regen:
        tot, mx = regen["total_runtime_s"], regen["max_chapter_s"]
        complete = not regen["missing"]
        out.append(
            target(
                "regen-total",
                "whole regeneration (chapters, default parameters)",
                tot,
                180.0,
                (tot < 180.0) if complete else None,
                f"{tot:.1f} s over {len(regen['chapters'])} recorded chapters"
                + ("" if complete else f"; not recorded yet: {', '.join(regen['missing'])}"),
            )
        )
        if mx is not None:
            out.append(
                target("regen-max-chapter", "slowest chapter", mx, 90.0, mx <= 90.0, f"{mx:.1f} s")
            )
    return out


def timed(cfg: BenchConfig) -> bool:
    """Only with ``--build``: otherwise it reads the chapters' recorded run times."""
    return cfg.build
