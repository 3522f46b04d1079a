"""``wftop status``: one line for a status bar, empty when nothing needs attention.

``⚠ 2 dead · 1 stalled · 1 partial · 1 running``. Stalled runs need attention, and dead,
failed and partial runs (completed with failed calls) last active within the config's
``attention_window``, unless marked seen (``wftop ack``, ``a`` in the TUI) in the state they
are in (`wftop.core.notify.acks`), and unreadable runs (counted as such, never as dead);
running ones are counted alongside them.
``--format tmux`` colours the line with tmux style tags, ``json`` always prints the counts.
It asks the engine serving the roots when one runs (`wftop.core.engine.ask`: it never starts
one); otherwise it reads the runs once (no watcher, no Textual import), runs that cannot
change on their own from a cache (``wftop.core.index.statuscount``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING, Any

from wftop.cli.options import (
    EXIT_OK,
    EXIT_USAGE,
    add_host_options,
    config_or_exit,
    roots_or_exit,
)
from wftop.cli.output import fail, print_json
from wftop.cli.remote import argvs_or_exit, ask_hosts
from wftop.core.model import NEEDS_YOU, PARTIAL
from wftop.core.notify.acks import Acks, needs_you

if TYPE_CHECKING:
    from wftop.core.config import Config
    from wftop.core.notify.acks import RunState

UNREACHABLE = "unreachable"
"""Counts the ``--host``s that could not be asked; it needs someone too."""
ATTENTION = (*NEEDS_YOU, UNREACHABLE)
"""Shown statuses that need someone, in the order the line shows them."""
TMUX_STYLE = {
    "dead": "#[fg=red,bold]",
    "stalled": "#[fg=yellow]",
    "failed": "#[fg=magenta]",
    PARTIAL: "#[fg=yellow]",
    "unreadable": "#[fg=yellow]",
    UNREACHABLE: "#[fg=yellow]",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "status", help="one-line summary for a status bar (empty when all is well)"
    )
    add_host_options(parser, command=True)
    parser.add_argument(
        "--format",
        choices=["plain", "tmux", "json"],
        default="plain",
        help="plain text, tmux style tags, or a JSON object (default plain)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="read every run in full (the cache of ended runs is not used or written)",
    )
    parser.set_defaults(command="status")


def summary(counts: Counter[str], fmt: str) -> str:
    """The status line for ``counts`` (runs per status); empty when none needs attention."""
    if not any(counts[name] for name in ATTENTION):
        return ""
    parts = []
    for name in (*ATTENTION, "running"):
        if counts[name]:
            text = f"{counts[name]} {name}"
            if fmt == "tmux" and name in TMUX_STYLE:
                text = f"{TMUX_STYLE[name]}{text}#[default]"
            parts.append(text)
    return "⚠ " + " · ".join(parts)


def host_counts(text: bytes) -> tuple[Counter[str], Counter[str]] | None:
    """The ``counts`` and ``needs_you`` of a host's ``status --format json`` (None: not such
    a reply; a reply without ``needs_you``, from an older wftop, needs you for every run in a
    status that may)."""
    from wftop.core.read.jsonline import UnreadableLine, parse_line

    try:
        payload = parse_line(text.strip())  # any depth, as journals are read
    except UnreadableLine:
        return None
    found = payload.get("counts") if isinstance(payload, dict) else None
    if not isinstance(found, dict):
        return None
    counts = _whole(found)
    needs = payload.get("needs_you")
    if not isinstance(needs, dict):
        needs = {name: counts[name] for name in NEEDS_YOU}
    return counts, _whole(needs)


def _whole(found: dict[Any, Any]) -> Counter[str]:
    return Counter(
        {str(key): value for key, value in found.items() if type(value) is int and value >= 0}
    )


def needing(runs: list[RunState], *, now: float, window: float, seen: Acks) -> Counter[str]:
    """The runs that need you now, per shown status."""
    return Counter(
        run.shown
        for run in runs
        if needs_you(run.shown, run.last_activity, now, window) and not seen.seen(run)
    )


def read_runs(
    args: argparse.Namespace, now: float, *, engine: bool = False, first_run: bool = False
) -> tuple[Config, list[str], Counter[str], list[RunState]] | None:
    """The config, the roots, the runs per shown status, and the runs that may need you
    (every run, when they were read here; ``ack`` marks the same runs). ``engine``: ask a
    running engine first (`wftop.core.engine.ask`: it never starts one). ``first_run``: no
    default root is no runs, not an error. None after printing why the config or a root
    cannot be used."""
    from wftop.core.index.statuscount import cache_path, read_statuses
    from wftop.core.model import DEFAULT_STALL_WINDOW

    config = config_or_exit()
    roots = roots_or_exit(args, first_run=first_run) if config is not None else None
    if config is None or roots is None:
        return None
    if not roots:
        return config, roots, Counter(), []
    stall = DEFAULT_STALL_WINDOW if args.stall_window is None else args.stall_window
    if engine:
        from wftop.core.engine.ask import running_counts

        asked = running_counts(roots, stall)
        if asked is not None:
            return config, roots, Counter(asked.counts), list(asked.needy)
    no_cache = args.read_only or getattr(args, "no_cache", False)
    runs = read_statuses(
        roots, now=now, stall_window=stall, cache=None if no_cache else cache_path()
    )
    return config, roots, Counter(run.shown for run in runs), runs


def run(args: argparse.Namespace) -> int:
    import time

    from wftop.core.resume.store import state_dir

    now = time.time()
    found = read_runs(args, now, engine=True, first_run=True)
    if found is None:
        return EXIT_USAGE
    config, _roots, counts, runs = found
    argvs = argvs_or_exit(args, ["status", "--format", "json"])
    if argvs is None:
        return EXIT_USAGE
    needs = needing(runs, now=now, window=config.attention_window, seen=Acks(state_dir()).load())
    for host, reply in ask_hosts(argvs, timeout=20.0).items():
        remote = host_counts(reply.stdout) if reply.failure is None else None
        if remote is None:
            counts[UNREACHABLE] += 1
            needs[UNREACHABLE] += 1
            why = reply.failure.describe(host) if reply.failure else f"{host}: not a status reply"
            fail(why)
        else:
            counts.update(remote[0])
            needs.update(remote[1])
    shown = needs + Counter({"running": counts["running"]})
    if args.format == "json":
        payload = {
            "attention": sum(needs[name] for name in ATTENTION),
            "counts": dict(sorted(counts.items())),
            "needs_you": {name: needs[name] for name in ATTENTION},
            "line": summary(shown, "plain"),
        }
        print_json(payload, indent=False)
        return EXIT_OK
    line = summary(shown, args.format)
    if line:
        print(line)
    return EXIT_OK
