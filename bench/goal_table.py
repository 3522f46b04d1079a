"""What `bench/goals.py` and `bench/tui_goals.py` share: one row of the goals table (`Goal`),
the table (`table`), and a wait for a process to go quiet (`settle`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from idle_cpu import cpu_seconds


@dataclass
class Goal:
    """One line of the goals table."""

    goal: str
    """What is measured, and where (``at 5,000 runs``)."""
    target: str
    """The threshold, as the issue states it."""
    measured: str
    floor: str
    """What the figure is compared with, measured in the same run (or ``—``)."""
    met: bool | None
    """None: not measured here (the row says why)."""


def ratio_goal(what: str, runs: int, value: float, floor: float, most: float, unit: str) -> Goal:
    times = value / floor
    return Goal(
        f"{what} at {runs:,} runs",
        f"≤ {most:g}× the floor",
        f"{value:.2f} s{unit} ({times:.2f}×)",
        f"{floor:.2f} s{unit}",
        times <= most,
    )


def verdict(met: bool | None) -> str:
    if met is None:
        return "—"
    return "met" if met else "**missed**"


def table(goals: list[Goal]) -> list[str]:
    lines = [
        "| goal | target | measured | floor (same run) | verdict |",
        "| --- | --- | --- | --- | --- |",
    ]
    for goal in goals:
        cells = (goal.goal, goal.target, goal.measured, goal.floor, verdict(goal.met))
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return lines


def settle(pid: int, most: float = 120.0, share: float = 0.05) -> float:
    """Wait until the process and its descendants use under ``share`` of a core over a
    second (an engine has built its live index), at most ``most`` seconds; the seconds
    waited."""
    began = time.monotonic()
    while time.monotonic() - began < most:
        before = cpu_seconds(pid)
        time.sleep(1.0)
        if cpu_seconds(pid) - before < share:
            break
    return round(time.monotonic() - began, 1)
