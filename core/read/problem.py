"""What could not be read, and where: one type every reader reports with, kept apart from
the readers so that what only walks folders (`wftop.core.read.discovery`, a listing whose
every row the rows cache holds) imports no reader."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One line (or file) that could not be read, with where and why."""

    path: str
    line: int
    """1-based line number; 0 when the problem is about the whole file."""
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"
