"""Text cut to a column's width where what tells rows apart is at its end: a path."""

from __future__ import annotations


def cut_start(path: str, limit: int) -> str:
    """``path`` shortened to ``limit`` characters by its start, marked with an ellipsis when
    cut: its end is kept (the project's name), beginning at a separator when that keeps at
    least half of what fits (``…/work/proj``), else in the middle of a name that long."""
    if len(path) <= limit:
        return path
    kept = path[len(path) - max(0, limit - 1) :]
    at = kept.find("/")
    return "…" + (kept[at:] if 0 <= at <= len(kept) // 2 else kept)
