"""What the audit log says so far, as the supervisor needs it while it decides.

The last line written for each run (a decision is written again only when it changes),
the requests already written down as launched and as finished, and the dollars the
day's launches cost (a launch not finished yet counts its forecast's high end).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from wftop.core.supervise.audit import AuditLine


def local_day(now: float) -> tuple[float, float]:
    """The local day holding ``now``: its midnight and the next one (as the local clock
    reads them, a day of 23 or 25 hours included)."""
    start = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


@dataclass
class Ledger:
    last: dict[str, AuditLine] = field(default_factory=dict)
    """The latest line of each run."""
    launched: dict[str, AuditLine] = field(default_factory=dict)
    """``launched`` lines by request."""
    finished: set[str] = field(default_factory=set)
    """Requests with a ``finished`` line."""
    lines: list[AuditLine] = field(default_factory=list)

    @classmethod
    def of(cls, lines: list[AuditLine]) -> Ledger:
        ledger = cls()
        for line in lines:
            ledger.add(line)
        return ledger

    def add(self, line: AuditLine) -> None:
        self.lines.append(line)
        self.last[line.run] = line
        if line.request and line.decision == "launched":
            self.launched[line.request] = line
        if line.request and line.decision == "finished":
            self.finished.add(line.request)

    def changed(self, line: AuditLine) -> bool:
        """Whether ``line`` says something the run's last line did not."""
        last = self.last.get(line.run)
        return last is None or (last.decision, last.reason, last.cause) != (
            line.decision,
            line.reason,
            line.cause,
        )

    def new_episode(self, run: str, cause: str | None) -> bool:
        """The run comes up for a resume for the first time, or again after it finished,
        or for another cause: a ``considered`` line is due."""
        last = self.last.get(run)
        return last is None or last.decision == "finished" or last.cause != cause

    def spent_since(self, start: float) -> float:
        """Dollars of the launches made since ``start``: what each cost once finished (its
        forecast's high end when its cost is unknown), else its forecast's high end."""
        total = 0.0
        for request, line in self.launched.items():
            if line.at < start:
                continue
            done = next(
                (item for item in self.lines
                 if item.request == request and item.decision == "finished"),
                None,
            )  # fmt: skip
            cost = done.cost_usd if done is not None else None
            if cost is None:
                forecast = line.forecast_usd
                cost = forecast.high if forecast is not None and forecast.high else 0.0
            total += cost
        return total
