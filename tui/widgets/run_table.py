"""The home list: one row per run, group headers when grouping, columns by priority."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from operator import attrgetter
from typing import ClassVar, cast

from rich.text import Text

from wftop.core.row import RunRow
from wftop.core.text.gate import gate, shown
from wftop.tui.format import (
    STATUS_STYLES,
    age,
    count,
    parity_segments,
    row_cost_cell,
    status_label,
)
from wftop.tui.haystack import Texts
from wftop.tui.runlist import GroupRow, row_key
from wftop.tui.styles import Palette
from wftop.tui.widgets.columns import ColumnSpec, clip
from wftop.tui.widgets.table import FittedTable

_IDENT = attrgetter("ident")

RUN_COLUMNS = [
    ColumnSpec("status", "STATUS", 12, 0),
    ColumnSpec("name", "NAME", 12, 1, flex=True, most=48, grows=True),
    ColumnSpec("run", "RUN", 15, 5),
    ColumnSpec("project", "PROJECT", 14, 6, grows=True),
    ColumnSpec("age", "AGE", 4, 4, right=True),
    ColumnSpec("parity", "PARITY", 14, 2),
    ColumnSpec("dead", "DEAD", 4, 3, right=True),
    ColumnSpec("cost", "COST", 8, 8, right=True),
]
"""Display order; priority 0 is dropped last: status, name, parity and dead stay longest
(60 columns keep them and the age; 80 adds the run id; 100 shows every column). The cost
gives way early: after the re-run tokens, before the project. The name, the project and the
host grow to their longest where there is room, the name first (`wftop.tui.widgets.columns.fit`)."""
HOST_COLUMNS = [
    *RUN_COLUMNS[:3],
    ColumnSpec("host", "HOST", 10, 4, grows=True),
    *(replace(spec, priority=5) if spec.key == "age" else spec for spec in RUN_COLUMNS[3:]),
]
"""With other hosts: HOST after RUN, kept over the age (60 columns keep status, name, host,
parity and dead; 80 add the run id)."""

RERUN_COLUMN = ColumnSpec("rerun", "RE-RUN", 6, 9, right=True)
"""Tokens spent on re-runs of calls that had returned: by default the first column to go
when the pane is short of room; ``t`` shows it (kept before age, run and project) or hides
it."""


class RunTable(FittedTable):
    """Runs and group headers; row keys are run idents and ``group:<title>``."""

    SPECS: ClassVar[list[ColumnSpec]] = RUN_COLUMNS
    WANTS_KEPT: ClassVar[int] = 8  # the lists the filters show again (`RunListView.chosen`)

    def __init__(
        self,
        palette: Palette,
        now: Callable[[], float],
        *,
        seen: Callable[[RunRow], bool] = lambda _row: False,
        id: str | None = None,  # noqa: A002
    ):
        super().__init__(id=id)
        self.palette = palette
        self.now = now
        self.seen = seen
        """The run was marked seen: its row is dimmed."""
        self.rerun_column: bool | None = None
        """None: shown when there is room; True: kept before age, run and project; False:
        hidden."""
        self.host_column = False
        """Other hosts are read: the HOST column is there."""
        self.auto: frozenset[tuple[str, str]] = frozenset()
        """(run id, root) of the runs marked auto (``m``): wftop supervise may resume them."""
        self._texts: Texts | None = None
        """The `Texts` of the items `show` is showing, while it shows them."""

    def show(self, items: list[object], texts: Texts | None = None) -> None:
        """`FittedTable.show`; ``texts``: the `Texts` of ``items`` (runs only, in this order),
        where their keys and widths are read instead of off each row (20,000 rows a key)."""
        self._texts = texts
        try:
            super().show(items)
        finally:
            self._texts = None

    def columns(self) -> list[ColumnSpec]:
        base = HOST_COLUMNS if self.host_column else RUN_COLUMNS
        if self.rerun_column is None:
            return [*base, RERUN_COLUMN]
        if self.rerun_column:
            return [*base, replace(RERUN_COLUMN, priority=4)]
        return base

    def toggle_rerun_column(self) -> bool:
        """Show the re-run tokens column if it is not shown now, else hide it; True: shown."""
        self.rerun_column = "rerun" not in self.visible_columns
        self.on_resize()
        return self.rerun_column

    def show_hosts(self, shown: bool) -> None:
        """The HOST column on (other hosts are read) or off (this machine only)."""
        if self.host_column != shown:
            self.host_column = shown
            self.on_resize()

    def key_of(self, item: object) -> str:
        assert isinstance(item, RunRow | GroupRow)
        return row_key(item)

    def keys_of(self, items: list[object]) -> list[str]:
        """`row_key` of each row, without a call per row (20,000 runs re-sorted per key):
        read in C when every row is a run's."""
        if self._texts is not None:
            return list(self._texts.idents)
        try:
            return list(map(_IDENT, items))
        except AttributeError:  # group headers among the runs
            return [item.ident if type(item) is RunRow else item.key for item in items]  # type: ignore[attr-defined]

    def wants(self, items: list[object], columns: list[str]) -> dict[str, int]:
        """The longest name, project and host of the runs (a group's title is a name): each
        field read in C, a few ms for 20,000 runs (every list shown is measured); read off
        the runs' `Texts` when `show` has them (no host column, no run marked auto)."""
        texts = self._texts
        if texts is not None and "host" not in columns and not self.auto:
            return widest_in(texts, columns)
        try:
            return self._widest_of(cast("list[RunRow]", items), columns)
        except AttributeError:  # group headers among the runs
            runs = [item for item in items if isinstance(item, RunRow)]
            wants = self._widest_of(runs, columns)
            if "name" in wants:
                titles = (shown(item.title) for item in items if isinstance(item, GroupRow))
                wants["name"] = max(wants["name"], _widest(titles))
            return wants

    def wants_key(self) -> object:
        return self.auto  # a run marked auto shows it in its name

    def _widest_of(self, runs: list[RunRow], columns: list[str]) -> dict[str, int]:
        wants: dict[str, int] = {}
        if "name" in columns:
            names = list(map(attrgetter("name"), runs))
            unnamed = len("(unnamed)") if not all(names) else 0
            marked = (f"auto {row.name}" for row in runs if (row.run_id, row.root) in self.auto)
            wants["name"] = max(_widest(names, unnamed), _widest(marked) if self.auto else 0)
        if "project" in columns:
            wants["project"] = _widest(map(attrgetter("project_name"), runs))
        if "host" in columns:
            hosts = list(map(attrgetter("host"), runs))
            stale = any(map(attrgetter("stale"), runs))
            wants["host"] = _widest(hosts, len("local") if None in hosts else 0) + 2 * stale
        return wants

    def cells(self, item: object, layout: list[tuple[ColumnSpec, int]]) -> list[Text]:
        if isinstance(item, GroupRow):
            return [self._group_cell(item, spec.key, width) for spec, width in layout]
        assert isinstance(item, RunRow)
        cells = [self._cell(item, spec.key, width) for spec, width in layout]
        if self.seen(item):
            for cell in cells:
                cell.stylize("dim")
        return cells

    def _group_cell(self, group: GroupRow, key: str, width: int) -> Text:
        p = self.palette
        if key == "status":
            arrow = "▸" if group.collapsed else "▾"
            return p.styled(
                clip(f"{arrow} {group.count} run{'s' * (group.count != 1)}", width), "group"
            )
        if key == "name":
            return p.styled(clip(shown(group.title), width), "group")
        return Text("")

    def _cell(self, run: RunRow, key: str, width: int) -> Text:
        p = self.palette
        status = run.shown_status
        if key == "status":
            style = "muted" if run.stale else STATUS_STYLES.get(status, "")
            return p.styled(clip(status_label(status), width), style)
        if key == "host":
            if run.host is None:
                return p.styled(clip("local", width), "muted")
            if run.stale:  # its last known state: the host cannot be reached now
                return p.styled(clip(f"{gate(run.host)} ?", width), "status-stalled")
            return Text(clip(gate(run.host), width), no_wrap=True)
        if key == "name":
            name = shown(run.name or "(unnamed)")
            if run.host is None and (run.run_id, run.root) in self.auto:
                cell = clip(f"auto {name}", width)
                return p.text([(cell[:5], "accent"), (cell[5:], "")])
            return Text(clip(name, width), no_wrap=True)
        if key == "run":
            return Text(clip(gate(run.run_id), width), no_wrap=True)
        if key == "project":
            return p.styled(clip(shown(run.project_name), width), "muted")
        if key == "age":
            return Text(f"{age(run.last_activity, self.now()):>{width}}", no_wrap=True)
        if key == "parity":
            return p.text(parity_segments(run.started, run.returned, run.call_states))
        if key == "rerun":
            spent = run.rerun_tokens
            text = "" if spent == 0 else "?" if spent is None else count(spent)
            return p.styled(f"{text:>{width}}", "warning")
        if key == "dead":
            dead = run.dead_workers
            return p.styled(f"{dead:>{width}}" if dead else "", "status-dead")
        if key == "cost":
            text = row_cost_cell(run)
            return Text(f"{text:>{width}}", no_wrap=True)
        return Text("")


def widest_in(texts: Texts, columns: list[str]) -> dict[str, int]:
    """`RunTable._widest_of` of the runs of ``texts``, read off its lists of widths."""
    wants: dict[str, int] = {}
    if "name" in columns:
        widths = texts.name_widths
        wants["name"] = max(len("(unnamed)") if 0 in widths else 0, max(widths, default=0))
    if "project" in columns:
        wants["project"] = max(texts.project_widths, default=0)
    return wants


def _widest(texts: Iterable[str | None], least: int = 0) -> int:
    """The longest of ``texts`` (None and empty ones aside), at least ``least``."""
    return max(least, max(map(len, filter(None, texts)), default=0))
