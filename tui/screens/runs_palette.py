"""The runs screen's commands in the palette: show a status or a host, sort, group."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual.app import SystemCommand

from wftop.tui.runlist import GROUPS, LOCAL, SORTS, STATUS_FILTERS, RunListView
from wftop.tui.store import Store


class RunsPalette:
    """What the runs screen adds to the command palette (a mixin of `RunsScreen`)."""

    view: RunListView
    store: Store

    def refresh_rows(self) -> None:
        raise NotImplementedError

    def palette_commands(self) -> Iterable[SystemCommand]:
        for status in STATUS_FILTERS[1:]:
            yield SystemCommand(
                f"Show {status} runs", "filter the list by status", self._status_setter(status)
            )
        for sort in SORTS:
            yield SystemCommand(f"Sort by {sort}", "order of the run list", self._sort_setter(sort))
        for group in GROUPS:
            yield SystemCommand(
                f"Group by {group}", "group the run list", self._group_setter(group)
            )
        if self.store.hosts:
            for host in (None, LOCAL, *self.store.hosts):
                title = {None: "every host", LOCAL: "this machine"}.get(host, f"host {host}")
                yield SystemCommand(
                    f"Show runs of {title}", "filter the list by host", self._host_setter(host)
                )

    def _host_setter(self, host: str | None) -> Callable[[], None]:
        def apply() -> None:
            self.view.host = host
            self.refresh_rows()

        return apply

    def _status_setter(self, status: str | None) -> Callable[[], None]:
        def apply() -> None:
            self.view.status = status
            self.refresh_rows()

        return apply

    def _sort_setter(self, sort: str) -> Callable[[], None]:
        def apply() -> None:
            self.view.sort = sort
            self.refresh_rows()

        return apply

    def _group_setter(self, group: str) -> Callable[[], None]:
        def apply() -> None:
            self.view.group = group
            self.view.collapsed.clear()
            self.refresh_rows()

        return apply
