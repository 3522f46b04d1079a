"""The supervisor's audit log: every decision, one JSON line each, in the state dir.

``<state>/supervise/audit.jsonl`` (0600 in a 0700 dir) holds one line per decision about a
run: ``considered``, ``waiting`` (until when, for what), ``launched``, ``refused`` (why) and
``finished`` (what it cost against the forecast)::

    {"at", "run", "decision", "reason", "until", "forecast_usd": {"low", "high"},
     "cap_usd", "cost_usd", "cause", "request"}

``at`` and ``until`` are ISO-8601 UTC; ``cause`` is the stop cause the decision was made
for and ``request`` the resume request a launch made (both may be null). Lines are only
ever appended. A line wftop cannot read as one of these (a corrupt or foreign file), or a
file it cannot append to, is an `AuditError` naming the file, the line and what was
expected: the supervisor then launches nothing, and never rewrites the file.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import orjson

from wftop.core.cost.tokens import dollars
from wftop.core.model import iso_utc
from wftop.core.read.jsonl import read_all
from wftop.core.resume.lock import append_line
from wftop.core.supervise.decide import UsdRange
from wftop.core.system.statedir import ensure_private_dir, open_private

DECISIONS: Final = ("considered", "waiting", "launched", "refused", "finished")
"""The decisions an audit line records."""

EXPECTED: Final = (
    "expected an audit line: a JSON object with at, run, decision "
    f"({'|'.join(DECISIONS)}), reason, until, forecast_usd, cap_usd, cost_usd"
)


class AuditError(Exception):
    """The audit log (or the supervisor's state) cannot be used: one line says where and why."""


@dataclass(frozen=True)
class AuditLine:
    at: float
    run: str
    decision: str
    reason: str
    until: float | None = None
    forecast_usd: UsdRange | None = None
    cap_usd: float | None = None
    cost_usd: float | None = None
    cause: str | None = None
    request: str | None = None

    def to_json(self) -> dict[str, Any]:
        forecast = self.forecast_usd
        return {
            "at": iso_utc(self.at),
            "run": self.run,
            "decision": self.decision,
            "reason": self.reason,
            "until": iso_utc(self.until),
            "forecast_usd": None
            if forecast is None
            else {"low": round(forecast.low, 6), "high": _cents(forecast.high)},
            "cap_usd": self.cap_usd,
            "cost_usd": _cents(self.cost_usd),
            "cause": self.cause,
            "request": self.request,
        }

    def text(self) -> str:
        """The line for a person (not yet gated): when, run, decision, why, and its figures."""
        parts = [f"{iso_utc(self.at)}  {self.run}  {self.decision:<10}  {self.reason}"]
        if self.until is not None:
            parts.append(f"until {iso_utc(self.until)}")
        if self.forecast_usd is not None and self.decision != "finished":
            parts.append(f"forecast {self.forecast_usd.text()}")
        if self.cap_usd is not None and self.decision in ("launched", "refused"):
            parts.append(f"cap {dollars(self.cap_usd)}")
        return " · ".join(parts)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> AuditLine:
        """Check one parsed line.

        Raises:
            ValueError: It is not an audit line (the message says what is wrong).
        """
        decision = record.get("decision")
        if decision not in DECISIONS:
            msg = f"decision {decision!r} is not one of {', '.join(DECISIONS)}"
            raise ValueError(msg)
        run, reason = record.get("run"), record.get("reason")
        if not isinstance(run, str) or not run or not isinstance(reason, str):
            msg = "run and reason must be strings"
            raise ValueError(msg)
        forecast = record.get("forecast_usd")
        if forecast is not None:
            if not isinstance(forecast, dict):
                msg = "forecast_usd must be {low, high} or null"
                raise ValueError(msg)
            forecast = UsdRange(_number(forecast, "low", required=True) or 0.0,
                                _number(forecast, "high"))  # fmt: skip
        return cls(
            at=_time(record, "at", required=True) or 0.0,
            run=run,
            decision=decision,
            reason=reason,
            until=_time(record, "until"),
            forecast_usd=forecast,
            cap_usd=_number(record, "cap_usd"),
            cost_usd=_number(record, "cost_usd"),
            cause=_text(record, "cause"),
            request=_text(record, "request"),
        )


def _cents(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _number(record: dict[str, Any], name: str, *, required: bool = False) -> float | None:
    value = record.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        msg = f"{name} must be a number of dollars" + ("" if required else " or null")
        raise ValueError(msg)
    return float(value)


def _time(record: dict[str, Any], name: str, *, required: bool = False) -> float | None:
    value = record.get(name)
    if value is None and not required:
        return None
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            pass
    msg = f"{name} must be an ISO-8601 time" + ("" if required else " or null")
    raise ValueError(msg)


def _text(record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None or isinstance(value, str):
        return value
    msg = f"{name} must be a string or null"
    raise ValueError(msg)


def check_own_file(path: Path) -> None:
    """A state file wftop may write: absent, or a regular file of this user (not a link).

    Raises:
        AuditError: It is a link, not a regular file, or another user's.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        msg = f"{path}: cannot be read ({error.strerror})"
        raise AuditError(msg) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        msg = f"{path}: not a regular file: wftop leaves it as it is and launches nothing"
        raise AuditError(msg)
    if info.st_uid != os.geteuid():
        msg = f"{path}: belongs to uid {info.st_uid}, not to you: wftop launches nothing"
        raise AuditError(msg)


class AuditLog:
    """Reads and appends the audit log (see the module text)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def check_writable(self) -> None:
        """Make sure a line can be appended, before anything is launched.

        Raises:
            AuditError: The file (or its folder) is foreign or cannot be written.
        """
        try:
            ensure_private_dir(self.path.parent)
        except OSError as error:
            msg = f"{self.path.parent}: cannot be created or written ({error.strerror})"
            raise AuditError(msg) from None
        check_own_file(self.path)
        try:
            fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as error:
            msg = f"{self.path}: cannot be written ({error.strerror}): wftop launches nothing"
            raise AuditError(msg) from None
        os.close(fd)

    def read(self) -> list[AuditLine]:
        """Every line, in order; an empty list when there is no log yet.

        Raises:
            AuditError: A line is not an audit line (the first one, by number).
        """
        if not self.path.exists():
            return []
        check_own_file(self.path)
        batch = read_all(self.path)
        bad = [(problem.line, f"{problem}; {EXPECTED}") for problem in batch.problems]
        lines = []
        for number, record in batch.records:
            try:
                lines.append(AuditLine.from_record(record))
            except ValueError as error:
                bad.append((number, f"{self.path}:{number}: {error}; {EXPECTED}"))
                break
        if bad:
            raise AuditError(min(bad)[1])
        return lines

    def append(self, line: AuditLine) -> None:
        """Append one line (fsynced).

        Raises:
            AuditError: The file cannot be written.
        """
        try:
            ensure_private_dir(self.path.parent)
            append_line(self.path, orjson.dumps(line.to_json()) + b"\n")
        except OSError as error:
            msg = f"{self.path}: cannot be written ({error.strerror})"
            raise AuditError(msg) from None
