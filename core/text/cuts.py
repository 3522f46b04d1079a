"""Text cut to a column's width where what tells rows apart is at its end: a path."""

from __future__ import annotations

from unicodedata import combining, east_asian_width


def cell_width(text: str) -> int:
    """The terminal cells ``text`` takes: two for a wide or full-width character (CJK, most
    emoji), none for a combining mark, one for the rest; what a terminal draws, not ``len``."""
    if text.isascii():
        return len(text)
    return sum(char_cells(char) for char in text)


def char_cells(char: str) -> int:
    if combining(char):
        return 0
    return 2 if east_asian_width(char) in ("W", "F") else 1


def cut_start(path: str, limit: int) -> str:
    """``path`` shortened to ``limit`` cells by its start, marked with an ellipsis when cut:
    its end is kept (the project's name), beginning at a separator when that keeps at least
    half of what fits (``…/work/proj``), else in the middle of a name that long. Cells, not
    characters: a wide character takes two, so the cut never overflows its column."""
    if cell_width(path) <= limit:
        return path
    room, start = max(0, limit - 1), len(path)
    while start > 0 and room >= (need := char_cells(path[start - 1])):
        room -= need
        start -= 1
    kept = path[start:]
    at = kept.find("/")
    return "…" + (kept[at:] if at >= 0 and cell_width(kept[:at]) <= cell_width(kept) // 2 else kept)
