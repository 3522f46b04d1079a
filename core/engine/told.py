"""What the engine has told its views besides rows, kept for a view that joins later: the
recent problems of the runs it read, a failure that stopped its reading, and the watch's
notice (`wftop.core.engine.engine.Engine.subscribe` sends them before the rows held)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from wftop.core.engine import lines as wire

PROBLEMS_KEPT = 200
"""Problems told again to a view that joins (the newest)."""


class Told:
    """Each line told, made as it is told, and those a joining view gets again (`again`)."""

    def __init__(self) -> None:
        self.problems: deque[str] = deque(maxlen=PROBLEMS_KEPT)
        self.failure: str | None = None
        """Why the engine stopped reading (a fatal ``problem``), if it did."""
        self.notice: str | None = None
        """What the watch told the user (a watch the kernel refused)."""

    def problem_lines(self, problems: Iterable[str]) -> list[bytes]:
        """The lines that tell ``problems``, each kept for the views that join later."""
        lines = []
        for text in problems:
            self.problems.append(text)
            lines.append(wire.problem_line(text))
        return lines

    def failure_line(self, failure: str) -> bytes:
        self.failure = failure
        return wire.problem_line(failure, fatal=True)

    def notice_line(self, notice: str) -> bytes:
        self.notice = notice
        return wire.problem_line(notice, notice=True)

    def again(self) -> list[bytes]:
        """What a view that joins now is told first: the problems kept, then the failure and
        the notice, if any."""
        lines = [wire.problem_line(text) for text in self.problems]
        if self.failure is not None:
            lines.append(wire.problem_line(self.failure, fatal=True))
        if self.notice is not None:
            lines.append(wire.problem_line(self.notice, notice=True))
        return lines
