"""Fit table columns into a width by priority: nothing wraps, the least useful go first.

Pure: a column has a fixed width or is the one flexible column, and a priority
(0 = keep longest). `fit` drops columns from the lowest priority until the rest
fit at their widths; then the columns that hold names (``grows``) are made as wide as
their widest cell where there is room, most useful first (a name column narrower
than its width gives back what it does not use), and the flexible column takes what
is left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from wftop.core.compared import record

GAP = 1
"""Blank cells after each column (the tables draw no cell padding of their own)."""


@record
class ColumnSpec:
    key: str
    label: str
    width: int
    """Content width; for the flexible column and one that grows, what it keeps while its
    cells are not known."""
    priority: int
    flex: bool = False
    right: bool = False
    most: int = 0
    """For the flexible column, the widest blank room lets it grow (0: all that is left);
    past it the row ends in blank space rather than a wide gap after a short name."""
    grows: bool = False
    """It holds names: as wide as its widest cell where there is room (`fit`)."""


def kept(specs: list[ColumnSpec], width: int) -> list[ColumnSpec]:
    """The columns that fit in ``width`` cells at their widths, in display order."""
    kept = list(specs)
    while len(kept) > 1 and _needed(spec.width for spec in kept) > width:
        victim = max(kept, key=lambda spec: spec.priority)
        kept.remove(victim)
    return kept


def measured(specs: list[ColumnSpec], width: int) -> list[str]:
    """The columns kept at ``width`` whose widest cell `fit` needs to know: those that
    grow, unless the only one is the flexible column (it takes what is left either way)."""
    growing = [spec for spec in kept(specs, width) if spec.grows]
    if len(growing) == 1 and growing[0].flex:
        return []
    return [spec.key for spec in growing]


def fit(
    specs: list[ColumnSpec], width: int, wants: Mapping[str, int] | None = None
) -> list[tuple[ColumnSpec, int]]:
    """The columns that fit in ``width`` cells, in display order, with their widths.

    ``wants``: the widest cell of each column that grows (unknown: it keeps its width).
    """
    columns = kept(specs, width)
    wants = wants or {}
    widths = {spec.key: spec.width for spec in columns}
    growing = sorted(
        (spec for spec in columns if spec.grows and spec.key in wants), key=lambda s: s.priority
    )
    for spec in growing:
        widths[spec.key] = min(spec.width, max(len(spec.label), wants[spec.key]))
    spare = max(0, width - _needed(widths.values()))
    for spec in growing:
        more = min(spare, max(0, wants[spec.key] - widths[spec.key]))
        widths[spec.key] += more
        spare -= more
    for spec in columns:
        if spec.flex:
            room = widths[spec.key] + spare
            widths[spec.key] = max(widths[spec.key], min(room, spec.most) if spec.most else room)
    return [(spec, widths[spec.key]) for spec in columns]


def _needed(widths: Iterable[int]) -> int:
    return sum(width + GAP for width in widths)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with ``…`` (one cell per character assumed)."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"
