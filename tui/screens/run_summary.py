"""What the run screen says above its calls: the summary, one fact per line, from the whole
run once read, or from its row until then."""

from __future__ import annotations

import orjson

from wftop.core.forecast.launchinfo import LaunchInfo
from wftop.core.model import Run
from wftop.core.row import RunRow
from wftop.core.text.cuts import cut_start
from wftop.core.text.gate import gate
from wftop.core.text.redact import Redactor
from wftop.tui.calls import call_facts
from wftop.tui.format import display_path, one_line, status_label


def owner_text(run: Run) -> str:
    entry = run.owner.entry
    if entry is None:
        return "none (no live process holds the session)"
    return f"pid {entry.pid} ({run.owner.liveness.value})"


def snapshot_text(run: Run) -> str:
    if run.host is not None:  # read there: only whether it is current came over
        return f"on {run.host}, {'current' if run.snapshot_current else 'none current'}"
    if run.snapshot is None:
        return "none (the process never wrote an end-of-run snapshot)"
    status = run.snapshot.status or "?"
    if run.snapshot_current:
        return f"{status}, current"
    return f"{status}, stale (older than the journal: the run went on after it)"


def args_text(run: Run, launch: LaunchInfo | None = None) -> str:
    """The run's args: from the snapshot, else from the launching call once it is read."""
    if run.host is not None:
        return f"- (in the session transcript on {run.host})"
    if run.snapshot is not None and run.snapshot.has_args:
        args, where = run.snapshot.args, ""
    elif launch is None:
        return "… (reading the session transcript)" if run.snapshot is None else "-"
    elif not launch.has_args:
        return "-"
    else:
        args, where = launch.args, "  (from the session transcript)"
    return one_line(orjson.dumps(args, default=repr).decode(), 120) + where


def path_line(label: str, path: str | None, mask: Redactor, width: int) -> str:
    """``label`` and ``path``, masked and gated, then cut from its start to what ``width``
    leaves it (0: whole): the end, the file's or the project's name, is what is read."""
    shown = gate(mask(display_path(path)))
    return label + (cut_start(shown, max(16, width - len(label))) if width > 0 else shown)


def summary(
    run: Run,
    launch: LaunchInfo | None = None,
    cache: str | None = None,
    *,
    root: bool = False,
    facts: list[str] | None = None,
    spent: str | None = None,
    width: int = 0,
) -> str:
    """The block above the calls, one fact per line (``cache``: `cache_text`, once read;
    ``root``: name the run's root, which tells apart copies of one run under several roots;
    ``facts``: `call_facts`, when made already; ``spent``: `spent_line`, once read;
    ``width``: the block's, which a path's line keeps to by its start, `path_line`)."""
    mask = Redactor()
    head = f"{status_label(run.shown_status)}  {run.name or '(unnamed)'}  {run.run_id}"
    if run.superseded_by:
        head += f"  → continued in session {run.superseded_by}"
    lines = [
        head,
        *(call_facts(run) if facts is None else facts),
        *([f"spent    {spent}"] if spent else []),
        path_line("script   ", run.script_path, mask, width),
        f"args     {args_text(run, launch)}",
        f"session  {run.session_id}   owner: {owner_text(run)}",
        *([f"         {cache}"] if cache else []),  # the owner session's prompt cache
        path_line("cwd      ", run.cwd, mask, width),
        *([path_line("root     ", run.folder.root, mask, width)] if root else []),
        f"snapshot {snapshot_text(run)}",
    ]
    if run.problems:
        lines.append(f"unreadable: {len(run.problems)} line(s) — J shows them")
    return "\n".join(gate(mask(line)) for line in lines)


def rows_held(run: Run) -> bool:
    """The snapshot's agent rows, which the call rows join, are in memory (the first time
    they are read from the file, in the worker that makes the rows)."""
    return run.snapshot is None or run.snapshot.rows_held


BACKGROUND_CALLS = 2_000
"""A run with more calls than this has its rows and call counts made in a worker (50,000
calls take about a second); a smaller one has them made at once (a few milliseconds)."""


def row_summary(row: RunRow, width: int = 0) -> str:
    """The summary from the row alone, while the run is read."""
    head = f"{status_label(row.shown_status)}  {row.name or '(unnamed)'}  {row.run_id}"
    mask = Redactor()
    lines = [
        head,
        f"calls    {row.calls:,} (reading the run…)",
        path_line("script   ", row.script_path, mask, width),
        f"session  {row.session_id}",
        path_line("cwd      ", row.cwd, mask, width),
    ]
    return "\n".join(gate(mask(line)) for line in lines)
