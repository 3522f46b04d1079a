"""The resume moment as a table on the plan screen: one row per strategy (from cache · live ·
at risk · tokens · estimate or exact · dollars), the selected row marked ``▶`` and bold, the
recommended one ``*``, fitted to the width by priority (tokens give way first, then what
the forecast is, then the risk), and the plain line under it.

The cells are `wftop.core.resume.table`'s, the ones ``wftop resume --dry-run`` prints; every
cell is gated here (a label is read from disk) and nothing is read as markup.
"""

from __future__ import annotations

from textual.content import Content

from wftop.core.resume.plan import Plan
from wftop.core.resume.table import StrategyRow, fates_line, strategy_rows
from wftop.core.text.gate import shown
from wftop.tui.widgets.columns import GAP, ColumnSpec, clip, fit

PLAN_COLUMNS = [
    ColumnSpec("strategy", "STRATEGY", 13, 0),
    ColumnSpec("cached", "CACHE", 5, 2, right=True, grows=True),
    ColumnSpec("live", "LIVE", 5, 1, right=True, grows=True),
    ColumnSpec("at_risk", "RISK", 4, 4, right=True, grows=True),
    ColumnSpec("tokens", "TOKENS", 13, 5, right=True),
    ColumnSpec("kind", "FORECAST", 8, 3),
    ColumnSpec("dollars", "DOLLARS", 10, 0, flex=True),
]
"""Display order; at 60 columns the tokens give way, the dollars stay. The counts grow to
their widest cell where there is room (a run of 100,004 calls reads ``100004``, not ``1000…``)."""

MARK = 2
"""Cells before the first column: ``▶ `` on the selected row."""


def _value(row: StrategyRow, key: str, width: int) -> str:
    if key == "strategy":
        return f"{row.strategy}*" if row.recommended else row.strategy
    if key == "dollars":  # the open end's note goes when the cell is short of room
        return row.dollars if len(row.dollars) <= width else row.dollars.split(",", 1)[0]
    return str(getattr(row, key))


def _line(cells: list[tuple[str, ColumnSpec, int]]) -> str:
    parts = []
    for text, spec, width in cells:
        text = clip(shown(text), width)
        parts.append(f"{text:>{width}}" if spec.right else f"{text:<{width}}")
    return (" " * GAP).join(parts).rstrip()


def table_lines(plan: Plan, width: int) -> list[Content]:
    """The table (headings, one row per strategy) and the plain line under it, in ``width``
    cells."""
    rows = strategy_rows(plan)
    wants = {  # never narrower than its width: a short count keeps the table as it was
        spec.key: max([spec.width, *(len(getattr(row, spec.key)) for row in rows)])
        for spec in PLAN_COLUMNS
        if spec.grows
    }
    layout = fit(PLAN_COLUMNS, max(1, width - MARK), wants)
    lines = [
        Content.styled(
            " " * MARK + _line([(spec.label, spec, size) for spec, size in layout]), "bold"
        )
    ]
    for row in rows:
        text = _line([(_value(row, spec.key, size), spec, size) for spec, size in layout])
        if row.selected:
            lines.append(Content.styled(f"▶ {text}", "bold"))
        else:
            lines.append(Content(f"  {text}"))
    lines.append(Content(shown(fates_line(plan.forecast))))
    if plan.recommended.value in plan.forecasts:
        lines.append(Content.styled("* recommended", "dim"))
    return lines
