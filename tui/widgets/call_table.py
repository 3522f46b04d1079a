"""The calls of one run: phase headers, calls, and their earlier attempts."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from wftop.core.text.gate import gate
from wftop.tui.calls import STATE_GLYPHS, CallRow, PhaseRow
from wftop.tui.format import cost_cell, count, duration
from wftop.tui.styles import Palette
from wftop.tui.widgets.columns import ColumnSpec, clip
from wftop.tui.widgets.table import FittedTable

CALL_COLUMNS = [
    ColumnSpec("label", "CALL", 12, 0),
    ColumnSpec("state", "STATE", 11, 0),
    ColumnSpec("attempts", "TRY", 3, 3, right=True),
    ColumnSpec("agent", "AGENT", 17, 4),
    ColumnSpec("duration", "TIME", 7, 5, right=True),
    ColumnSpec("tokens", "TOKENS", 6, 6, right=True),
    ColumnSpec("cost", "COST", 8, 6, right=True),
    ColumnSpec("tools", "TOOLS", 5, 7, right=True),
    ColumnSpec("preview", "RESULT", 12, 1, flex=True),
]

STATE_STYLES = {
    "done": "status-completed",
    "failed": "status-failed",
    "running": "status-running",
    "dead": "status-dead",
    "cached": "accent",
    "orphan": "muted",
}


class CallTable(FittedTable):
    SPECS: ClassVar[list[ColumnSpec]] = CALL_COLUMNS

    def __init__(self, palette: Palette, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.palette = palette

    def key_of(self, item: object) -> str:
        assert isinstance(item, CallRow | PhaseRow)
        return item.key

    def keys_of(self, items: list[object]) -> list[str]:
        """`key_of` of each row, without a call per row (a run may have 50,000 calls)."""
        return [item.key for item in items]  # type: ignore[attr-defined]

    def cells(self, item: object, layout: list[tuple[ColumnSpec, int]]) -> list[Text]:
        p = self.palette
        out = []
        for spec, width in layout:
            if isinstance(item, PhaseRow):
                calls = f"{item.calls} call" + ("s" if item.calls != 1 else "")
                arrow = "▸" if item.folded else "▾"
                value = {"label": f"{arrow} {item.title}", "state": calls}.get(spec.key, "")
                out.append(p.styled(clip(value, width), "group"))
                continue
            assert isinstance(item, CallRow)
            out.append(self._cell(item, spec, width))
        return out

    def _cell(self, row: CallRow, spec: ColumnSpec, width: int) -> Text:
        p = self.palette
        key = spec.key
        if key == "label":
            label = f"  {row.label}" if not row.attempt else f"    ↳ {row.label}"
            return Text(clip(label, width), no_wrap=True, style=p["muted"] if row.attempt else "")
        if key == "state":
            glyph = STATE_GLYPHS.get(row.state, "?")
            return p.styled(clip(f"{glyph} {row.state}", width), STATE_STYLES.get(row.state, ""))
        spend = row.spend
        values = {
            "attempts": "" if row.attempt else str(row.attempts),
            "agent": gate(row.agent_id),
            "duration": duration(row.duration_ms),
            "tokens": count(row.tokens),
            "cost": "" if spend is None else cost_cell(spend.cost_usd, spend.lower_bound),
            "tools": count(row.tool_calls),
            "preview": row.preview,
        }
        value = clip(values.get(key, ""), width)
        if spec.right:
            value = f"{value:>{width}}"
        style = "muted" if key in ("preview", "agent") and row.attempt else ""
        return p.styled(value, style)
