"""``wftop status``: one line for a status bar, empty when nothing needs attention.

``⚠ 2 dead · 1 stalled · 1 partial · 1 running``. Dead, stalled, failed and partial runs
(completed with failed calls) need attention; running ones are counted alongside them.
``--format tmux`` colours the line with tmux style tags, ``json`` always prints the counts.
It asks the engine serving the roots when one runs (`wftop.core.engine.ask`: it never starts
one); otherwise it reads the runs once (no watcher, no TUI import), runs that cannot change
on their own from a cache (``wftop.core.index.statuscount``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

import orjson

from wftop.cli.options import EXIT_OK, EXIT_USAGE, add_host_options, roots_or_exit
from wftop.cli.output import fail, print_json
from wftop.cli.remote import argvs_or_exit, ask_hosts
from wftop.core.model import NEEDS_YOU, PARTIAL

UNREACHABLE = "unreachable"
"""Counts the ``--host``s that could not be asked; it needs someone too."""
ATTENTION = (*NEEDS_YOU, UNREACHABLE)
"""Shown statuses that need someone, in the order the line shows them."""
TMUX_STYLE = {
    "dead": "#[fg=red,bold]",
    "stalled": "#[fg=yellow]",
    "failed": "#[fg=magenta]",
    PARTIAL: "#[fg=yellow]",
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


def host_counts(text: bytes) -> Counter[str] | None:
    """The ``counts`` of a host's ``status --format json`` (None: not such a reply)."""
    try:
        payload = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    found = payload.get("counts") if isinstance(payload, dict) else None
    if not isinstance(found, dict):
        return None
    return Counter(
        {str(key): value for key, value in found.items() if type(value) is int and value >= 0}
    )


def run(args: argparse.Namespace) -> int:
    import time

    from wftop.core.engine.ask import running_counts
    from wftop.core.index.statuscount import cache_path, count_statuses
    from wftop.core.model import DEFAULT_STALL_WINDOW

    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    argvs = argvs_or_exit(args, ["status", "--format", "json"])
    if argvs is None:
        return EXIT_USAGE
    stall = DEFAULT_STALL_WINDOW if args.stall_window is None else args.stall_window
    asked = running_counts(roots, stall)
    if asked is not None:
        counts = Counter(asked)
    else:
        counts = count_statuses(
            roots,
            now=time.time(),
            stall_window=stall,
            cache=None if args.read_only or args.no_cache else cache_path(),
        )
    for host, reply in ask_hosts(argvs, timeout=20.0).items():
        remote = host_counts(reply.stdout) if reply.failure is None else None
        if remote is None:
            counts[UNREACHABLE] += 1
            why = reply.failure.describe(host) if reply.failure else f"{host}: not a status reply"
            fail(why)
        else:
            counts.update(remote)
    if args.format == "json":
        payload = {
            "attention": sum(counts[name] for name in ATTENTION),
            "counts": dict(sorted(counts.items())),
            "line": summary(counts, "plain"),
        }
        print_json(payload, indent=False)
        return EXIT_OK
    line = summary(counts, args.format)
    if line:
        print(line)
    return EXIT_OK
