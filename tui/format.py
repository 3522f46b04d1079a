"""Pure presentation helpers: words, ages, sizes and the parity bar.

No Textual here and no I/O: every function takes plain values and returns plain
strings (or segments of a string with a style name), so the forensics CLI and the
tests can use them without an app. Everything that shows a state must stay
readable without colour: the glyph and the word carry the meaning, colour only
repeats it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from functools import reduce
from operator import add, attrgetter
from typing import TYPE_CHECKING

from wftop.core.cost.tokens import Spend, at_least, dollars
from wftop.core.row import RunRow, Tally
from wftop.core.status import NEEDS_YOU

if TYPE_CHECKING:  # a view lists rows: the run is read when a run is opened
    from wftop.core.model import Run

STATUS_ICONS: dict[str, str] = {
    "running": "▶",
    "stalled": "‖",
    "dead": "✖",
    "completed": "✔",
    "partial": "⚠",
    "failed": "!",
    "killed": "■",
    "superseded": "↷",
    "unreadable": "?",
}
"""One glyph per status; the word always follows it."""

STATUS_STYLES: dict[str, str] = {
    "running": "status-running",
    "stalled": "status-stalled",
    "dead": "status-dead",
    "completed": "status-completed",
    "partial": "status-partial",
    "failed": "status-failed",
    "killed": "status-killed",
    "superseded": "status-superseded",
    "unreadable": "status-unreadable",
}

ATTENTION_ORDER: dict[str, int] = {
    "dead": 0,
    "stalled": 1,
    "failed": 2,
    "partial": 3,
    "unreadable": 4,
    "running": 5,
    "killed": 6,
    "completed": 7,
    "superseded": 8,
}
"""Order of statuses when sorting or grouping by status: what needs you first."""

BAR_DONE = "█"
BAR_FAILED = "✗"
BAR_IN_FLIGHT = "░"
BAR_STOPPED = "·"
"""A call that never finished in a run that ended (killed, superseded)."""


def status_label(status: str) -> str:
    """``✖ dead``: icon and word, readable without colour."""
    return f"{STATUS_ICONS.get(status, '?')} {status}"


def age(timestamp: float | None, now: float) -> str:
    """``42s``, ``7m``, ``3h``, ``12d``; ``-`` when unknown."""
    if timestamp is None:
        return "-"
    delta = max(0, int(now - timestamp))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if delta >= size:
            return f"{delta // size}{unit}"
    return f"{delta}s"


def duration(ms: int | None) -> str:
    """``850ms``, ``12.4s``, ``3m05s``, ``1h02m``; empty when unknown."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def count(value: int | None) -> str:
    """``950``, ``12.3k``, ``4.1M``; empty when unknown."""
    if value is None:
        return ""
    if value < 1000:
        return str(value)
    if value < 1_000_000:
        return f"{value / 1000:.1f}k"
    return f"{value / 1_000_000:.1f}M"


def size(value: int) -> str:
    """Bytes as ``812 B``, ``81.9 kB``, ``12.0 MB``."""
    if value < 1000:
        return f"{value} B"
    if value < 1_000_000:
        return f"{value / 1000:.1f} kB"
    return f"{value / 1_000_000:.1f} MB"


def one_line(text: str, limit: int = 200) -> str:
    """Collapse whitespace so a preview never wraps; cut at ``limit`` with ``…``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def display_path(path: str | None, home: str | None = None) -> str:
    """A path with the home folder written ``~``."""
    if not path:
        return "-"
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + "/")):
        return "~" + path[len(home.rstrip("/")) :]
    return path


# -- parity ------------------------------------------------------------------------------


def tally(run: Run | RunRow) -> Tally:
    """Count a run's calls by how their latest attempt stands (`Run.call_counts`; a row
    carries them counted: `RunRow.call_states`)."""
    if isinstance(run, RunRow):
        return run.call_states
    return Tally(*run.call_counts)


def _apportion(parts: list[int], width: int) -> list[int]:
    """Cells per part: proportional, largest remainder, every non-zero part gets one."""
    total = sum(parts)
    if total == 0:
        return [0] * len(parts)
    cells = [max(1, part * width // total) if part else 0 for part in parts]
    while sum(cells) > width:
        biggest = max(range(len(cells)), key=lambda i: cells[i])
        cells[biggest] -= 1
    remainders = sorted(
        range(len(parts)), key=lambda i: -(parts[i] * width / total - cells[i]) if parts[i] else 1
    )
    for i in remainders:
        if sum(cells) >= width:
            break
        if parts[i]:
            cells[i] += 1
    return cells


def parity_segments(
    started: int, returned: int, calls: Tally, width: int = 6
) -> list[tuple[str, str]]:
    """The parity cell as (text, style name) pieces: ``7/6 ▕██████▏``.

    ``started/returned`` are line counts from the journal. The bar is ``width``
    cells shared by the calls in proportion (every kind present gets at least one
    cell), by their state (`wftop.core.calls.State`): ``█`` returned (done or cached),
    ``✗`` failed, ``░`` running, ``·`` dead (open, and nothing will finish it).
    """
    pieces: list[tuple[str, str]] = [(f"{started}/{returned}".ljust(5) + " ", "")]
    bar_width = width
    parts = [calls.done + calls.cached, calls.failed, calls.running, calls.dead]
    cells = _apportion(parts, bar_width)
    pieces.append(("▕", "parity-frame"))
    for glyph, style, n in zip(
        (BAR_DONE, BAR_FAILED, BAR_IN_FLIGHT, BAR_STOPPED),
        ("parity-done", "parity-failed", "parity-in-flight", "parity-stopped"),
        cells,
        strict=True,
    ):
        if n:
            pieces.append((glyph * n, style))
    pieces.append((" " * (bar_width - sum(cells)), ""))
    pieces.append(("▏", "parity-frame"))
    return pieces


def parity_text(started: int, returned: int, calls: Tally, width: int = 6) -> str:
    return "".join(text for text, _ in parity_segments(started, returned, calls, width))


def status_counts(runs: Iterable[Run | RunRow]) -> dict[str, int]:
    """Runs per shown status (`RunRow.shown_status`: ``partial`` is not ``completed``)."""
    tally = Counter(run.shown_status for run in runs)
    return {word: tally.get(word, 0) for word in COUNT_WORDS}


COUNT_WORDS = (
    "running",
    "stalled",
    "dead",
    "completed",
    "failed",
    "partial",
    "killed",
    "superseded",
    "unreadable",
)
"""The counts line in order: the first five always, the others when there are any."""


def counts_line(counts: dict[str, int], width: int | None = None) -> str:
    """``2 running · 1 stalled · 3 dead · 5 completed · 1 failed`` (+ partial, killed,
    superseded, unreadable when there are any).

    When ``width`` is given and the line is longer, the zero counts are left out
    (``3 dead · 5 completed``), then only what needs you keeps its word (``▶2 · 3 dead ·
    ✔5``), and then only the icons are kept (``▶2 ‖1 ✖3 …``): the words are the words the
    rows show, never other ones.
    """
    shown = [*COUNT_WORDS[:5], *(word for word in COUNT_WORDS[5:] if counts.get(word))]
    full = " · ".join(f"{counts.get(word, 0)} {word}" for word in shown)
    if width is None or len(full) <= width:
        return full
    some = [word for word in shown if counts.get(word)]
    for line in (
        " · ".join(f"{counts[word]} {word}" for word in some),
        " · ".join(
            f"{counts[word]} {word}" if word in NEEDS_YOU else f"{STATUS_ICONS[word]}{counts[word]}"
            for word in some
        ),
    ):
        if line and len(line) <= width:
            return line
    return " ".join(f"{STATUS_ICONS[word]}{counts.get(word, 0)}" for word in shown)


# -- dollars -----------------------------------------------------------------------------


def cost_cell(cost_usd: float | None, lower_bound: bool = False) -> str:
    """A run's or a call's dollars in a table cell: ``$0.0181``, ``$12.40``, ``<$0.0001``,
    ``≥$0.0181`` (transcripts missing: at least that), ``$?`` (a model without a price)."""
    return at_least(dollars(cost_usd), lower_bound).replace(" ", "")


def row_cost_cell(row: RunRow) -> str:
    """A run's COST cell: empty before its first call, ``…`` while what it spent is still
    to be read (``cost_pending``: a large first read fills it in), else `cost_cell`."""
    if not row.calls:
        return ""
    if row.cost_pending:
        return "…"
    return cost_cell(row.cost_usd, row.cost_is_lower_bound)


def rows_cost_total(rows: Iterable[RunRow]) -> str:
    """`cost_total` of the runs listed; empty while any one's spend is still to be read.
    Each field read and summed in C (20,000 runs, a key typed in the filter): the same sum,
    in the same order, as `cost_total`'s (an addition of 0.0 to it changes nothing)."""
    listed = list(rows)
    return spend_total(list(map(_COST, listed)), map(_PENDING, listed), map(_LOWER_BOUND, listed))


def spend_total(
    costs: list[float | None], pending: Iterable[bool], lower_bounds: Iterable[bool]
) -> str:
    """`rows_cost_total` of runs given by their fields, one a run in their order: each
    run's ``cost_usd``, ``cost_pending`` and ``cost_is_lower_bound``."""
    if not costs or any(pending):
        return ""
    known = reduce(add, filter(None, costs), 0.0)
    return _spent(known, None in costs, any(lower_bounds))


def cost_total(costs: Iterable[tuple[float | None, bool]]) -> str:
    """What the runs listed spent, from each one's (``cost_usd``, lower bound): ``$1.23
    spent``, ``≥ $1.23 spent`` when transcripts are missing, ``$1.23 + $? spent`` when a
    model has no price; empty when nothing is listed."""
    known, unknown, lower, listed = 0.0, False, False, False
    for cost, bound in costs:
        listed = True
        lower = lower or bound
        if cost is None:
            unknown = True
        else:
            known += cost
    if not listed:
        return ""
    return _spent(known, unknown, lower)


def _spent(known: float, unknown: bool, lower: bool) -> str:
    text = dollars(known)
    if unknown:
        return f"{text} + $? spent"
    return f"{at_least(text, lower)} spent"


_PENDING = attrgetter("cost_pending")
_COST = attrgetter("cost_usd")
_LOWER_BOUND = attrgetter("cost_is_lower_bound")


def spent_line(calls: Spend, session: Spend | None) -> str:
    """What a run spent, for its summary: ``$0.0449 by its calls (16,540 tokens) · $0.0013
    by the session's own turns`` (``≥`` and how many transcripts are missing when some are)."""
    text = (
        f"{calls.dollars_text()} by its calls ({calls.tokens.total:,} tokens){calls.missing_note}"
    )
    if session is not None:
        text += f" · {session.dollars_text()} by the session's own turns"
    return text
