"""Fit table columns into a width by priority: nothing wraps, the least useful go first.

Pure: a column has a fixed width or is the one flexible column, and a priority
(0 = keep longest). `fit` drops columns from the lowest priority until the rest
fit, then gives the flexible column what is left.
"""

from __future__ import annotations

from dataclasses import dataclass

GAP = 1
"""Blank cells after each column (the tables draw no cell padding of their own)."""


@dataclass(frozen=True)
class ColumnSpec:
    key: str
    label: str
    width: int
    """Content width; for the flexible column, its minimum."""
    priority: int
    flex: bool = False
    right: bool = False
    most: int = 0
    """For the flexible column, the widest it grows (0: all that is left); past it the
    row ends in blank space rather than a wide gap after a short name."""


def fit(specs: list[ColumnSpec], width: int) -> list[tuple[ColumnSpec, int]]:
    """The columns that fit in ``width`` cells, in display order, with their widths."""
    kept = list(specs)

    def needed(columns: list[ColumnSpec]) -> int:
        return sum(spec.width + GAP for spec in columns)

    while len(kept) > 1 and needed(kept) > width:
        victim = max(kept, key=lambda spec: spec.priority)
        kept.remove(victim)
    spare = max(0, width - needed(kept))

    def grown(spec: ColumnSpec) -> int:
        if not spec.flex:
            return spec.width
        return min(spec.width + spare, spec.most) if spec.most else spec.width + spare

    return [(spec, grown(spec)) for spec in kept]


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with ``…`` (one cell per character assumed)."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"
