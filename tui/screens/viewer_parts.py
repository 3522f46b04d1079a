"""What a file viewer keeps beside its screen: the secrets its rows masked, a piece of the
file indexed, one search asked, and where the file was read (`wftop.tui.screens.viewer`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from wftop.core.read.lineindex import Change, LineIndex
from wftop.core.row import RunRow
from wftop.tui.format import display_path


class Tally:
    """Secrets masked in the rows drawn so far, each line counted once however often drawn."""

    def __init__(self) -> None:
        self._lines: dict[int, Counter[str]] = {}

    def add(self, line: int, masked: Counter[str]) -> bool:
        """What was masked in one line's text (kept the first time only); True: it was new."""
        if masked and line not in self._lines:
            self._lines[line] = Counter(masked)
            return True
        return False

    @property
    def masked(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for counts in list(self._lines.values()):
            total.update(counts)
        return total

    def summary(self) -> str:
        masked = self.masked
        if not masked:
            return ""
        kinds = ", ".join(f"{kind} ×{count}" for kind, count in sorted(masked.items()))
        return f"{sum(masked.values())} masked ({kinds})"


@dataclass(frozen=True)
class Scanned:
    """A piece of a file indexed (or the index begun anew, or the end, or why it failed)."""

    index: LineIndex
    change: Change
    error: str = ""
    done: bool = False


@dataclass(frozen=True)
class Asked:
    """One search: its number, what and from where, and the view it was asked of."""

    number: int
    text: str
    line: int
    backward: bool
    page: int
    generation: int


def where_read(run: RunRow, path: str) -> str:
    """Where a viewer reads its file: the path, or for a remote run the host it came from."""
    if run.host is None:
        return display_path(path)
    return f"fetched from {run.host} into {display_path(path)}"
