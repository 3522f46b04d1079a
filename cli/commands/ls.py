"""``wftop ls``: every run, newest activity first, as a table or JSON.

Ages and statuses are read against one clock reading, `clock`: the time, unless the hidden
``WFTOP_NOW`` (seconds since the epoch) fixes it, as tests that run ``wftop ls`` as a process
do to compare two tables exactly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import TYPE_CHECKING, Any

import orjson

from wftop.cli.options import EXIT_OK, EXIT_USAGE, add_host_options, roots_or_exit
from wftop.cli.output import fail, write_json
from wftop.core.index.gcpause import paused_gc
from wftop.core.index.keptrows import KeptRows, RowScan, kept_rows
from wftop.core.index.projects import name_rows
from wftop.core.index.rowcache import RowCache, rows_cache_path
from wftop.core.index.rowfile import Naming
from wftop.core.read.problem import Problem
from wftop.core.text.gate import escape_json, gate, masked

if TYPE_CHECKING:
    from collections.abc import Callable

    from wftop.core.model import Run
    from wftop.core.text.redact import Redactor

# A listing whose every run the rows cache holds imports nothing that reads a run: the
# modules of reading, spends, the table and other hosts are imported where they are used.


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("ls", help="list every Workflow run, newest activity first")
    add_host_options(parser, command=True)
    parser.add_argument("--json", action="store_true", help="print one JSON array")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="read every run, neither using nor writing the rows cache (as with --read-only)",
    )
    parser.add_argument(
        "--watch",
        action="store_true",
        help="with --json: stream change sets as JSON lines until interrupted",
    )
    parser.set_defaults(command="ls")


HEADER = (
    f"{'STATUS':<12} {'NAME':<18} {'RUN':<16} {'PROJECT':<18} {'AGE':>4} {'S/R/F':<8} "
    f"{'COST':>7} OPEN/FAIL"
)
"""S/R/F: started and returned lines, failed calls (a call that failed with no ``failed``
line counts)."""

CALLS_WIDTH = 10
"""Characters of the last column (the line within 100): the calls in flight, then the failed
ones (``a6 ✗429``), cut with ``…``."""


def table_line(row: dict[str, Any], now: float) -> str:
    """One table line from a run's ``--json`` row (already masked; shown gated, on one line:
    a host's row or a name may hold anything)."""
    from wftop.core.cost.tokens import at_least, dollars
    from wftop.core.model import status_word
    from wftop.core.read.errors import cut, failure_tag
    from wftop.core.read.snapshot import parse_iso_time
    from wftop.tui.format import age, status_label

    status = gate(status_label(status_word(row["status"], len(row["failed_calls"]))))
    name = gate(row["name"] or "-")[:18]
    project = cut(gate(str(row["project_name"])), 18)
    parity = f"{row['started']}/{row['returned']}/{row['failed']}"
    named = [*row["in_flight"], *(failure_tag(f["label"], f["kind"]) for f in failures(row))]
    calls = gate(",".join(map(str, named)))
    if len(calls) > CALLS_WIDTH:
        calls = calls[: CALLS_WIDTH - 1] + "…"
    unreadable = row.get("unreadable_reason")
    if isinstance(unreadable, str):  # its calls are unknown: why, in their place
        parity, calls = "?", gate(unreadable.rsplit(": ", 1)[-1])
    when = parse_iso_time(row["last_activity"])
    cost = row.get("cost_usd")
    spent = dollars(cost) if isinstance(cost, int | float) else "$?"
    spent = at_least(spent, row.get("cost_is_lower_bound") is True).replace("≥ ", "≥")
    return (
        f"{status:<12} {name:<18} {gate(row['run_id']):<16} {project:<18} "
        f"{age(when, now):>4} {parity:<8} {spent:>7} {calls}"
    ).rstrip()


def failures(row: dict[str, Any]) -> list[dict[str, str]]:
    """A row's ``failures``; a row of an older wftop (a remote host's) has only their labels."""
    listed = row.get("failures")
    if isinstance(listed, list):
        return [f for f in listed if isinstance(f, dict) and isinstance(f.get("label"), str)]
    return [{"label": label, "kind": ""} for label in row["failed_calls"]]


def table(runs: list[Run], now: float) -> str:
    from wftop.core.text.redact import Redactor

    redactor = Redactor.for_json()
    rows = [orjson.loads(json_item(run, redactor)) for run in runs]
    name_rows(rows, redactor)
    return "\n".join([HEADER, *(table_line(row, now) for row in rows)])


def json_item(run: Run, redactor: Redactor) -> bytes:
    """One run of the ``--json`` array, indented as an item of it."""
    from wftop.core.row import RunRow

    return RunRow.of(run).printed(redactor)


def json_array(items: list[bytes]) -> bytes:
    """The items joined into the array ``orjson`` would print with ``OPT_INDENT_2`` (escaped
    for a terminal once more: a row from the rows cache is bytes read from a file)."""
    return escape_json(b"[\n" + b",\n".join(items) + b"\n]") if items else b"[]"


WRITE_ROWS = 256
"""Rows joined into one write (about 400 KB): the whole array joined (32 MB at 20,000
runs) cost the memory's first touch, 10-15 ms, and its copy."""


def write_array(items: list[bytes]) -> None:
    """`json_array` of the items and a newline, printed `WRITE_ROWS` rows at a time: the
    brackets and the commas between rows need no escape, and a row is escaped as it is
    in the whole (a character never spans two rows)."""
    out = sys.stdout.buffer
    if not items:
        out.write(b"[]\n")
        return
    out.write(b"[\n")
    for at in range(0, len(items), WRITE_ROWS):
        if at:
            out.write(b",\n")
        out.write(escape_json(b",\n".join(items[at : at + WRITE_ROWS])))
    out.write(b"\n]\n")


def clock() -> float:
    """Now, or the moment ``$WFTOP_NOW`` names."""
    fixed = os.environ.get("WFTOP_NOW")
    return float(fixed) if fixed else time.time()


def run(args: argparse.Namespace) -> int:
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    if args.watch and args.host:
        fail("ls --watch streams this machine's runs (the TUI follows --host)")
        return EXIT_USAGE
    if args.watch:
        from wftop.cli.stream import stream

        return stream(args, roots)
    now = clock()
    no_cache = args.no_cache or getattr(args, "read_only", False)
    with paused_gc(aged=True):  # thousands of rows, no cycle among them: 0.1 s at 20,000
        # runs; then moved to the oldest generation (the next collections would walk them)
        cache = RowCache.open(roots, None if no_cache else rows_cache_path())
        # A cache holding no row answers for no run: every run is read, with modules
        # imported while the walkers walk (about 40 ms of CPU that was the walk's tail).
        meanwhile = None if cache.held else lambda: import_reading(roots)
        kept = kept_rows(roots, cache, meanwhile=meanwhile)
        if kept.unread:
            items = read_rows(args, roots, kept, cache, now)
        else:  # every run's row is kept
            items = kept.scan()
            cache.save()
    report(items.problems)
    if args.json and not args.host:  # a kept row is printed as kept, unless renamed
        rename(items, masked)
        write_array(items.rows)
        return EXIT_OK
    rows: list[dict[str, Any]] = [orjson.loads(item) for item in items.rows]
    if args.host:
        return merged(args, rows, now)
    name_rows(rows, masked)  # the table shows none of the paths the rows keep
    print(rooted_table(rows, now))
    return EXIT_OK


def rename(items: RowScan[bytes], mask: Callable[[str], str]) -> None:
    """Give each row the name its listing gives its project (`name_rows`), printing again
    the rows whose name changed. A name depends on a row's `Naming` alone (and on every
    project listed): the rows the cache kept with one naming are named once for all."""
    named: list[dict[str, Any]] = []
    slot: dict[Naming, int] = {}
    at_row: list[int] = []
    for item, naming in zip(items.rows, items.namings, strict=True):
        if naming is None:  # read just now: its naming is in the row
            at_row.append(len(named))
            named.append(orjson.loads(item))
            continue
        at = slot.get(naming)
        if at is None:
            at = slot[naming] = len(named)
            cwd, project, name = naming
            named.append({"cwd": cwd, "project": project, "project_name": name})
        at_row.append(at)
    changed = set(name_rows(named, mask))
    if not changed:
        return
    for index, at in enumerate(at_row):
        if at in changed:  # the listing's name: printed again
            row = orjson.loads(items.rows[index])
            row["project_name"] = named[at]["project_name"]
            items.rows[index] = json_row(row)


READING = (
    "wftop.core.cost.spendbook",
    "wftop.core.cost.usage",
    "wftop.core.index.coldpass",
    "wftop.core.index.countrow",
    "wftop.core.index.fanout",
    "wftop.core.system.statedir",
    "wftop.core.text.redact",
)
"""The modules `read_rows` reads runs with (a listing the cache answers imports none)."""


def import_reading(roots: list[str]) -> None:
    """`READING` imported, ahead of `read_rows`, and the price data where the runs under
    ``roots`` will need it (`wftop.core.cost.ahead`): once, before the readers are forked."""
    for name in READING:
        importlib.import_module(name)
    from wftop.core.cost.ahead import price_ahead
    from wftop.core.cost.spendbook import spends_folder

    price_ahead(roots, spends_folder(roots))


def read_rows(
    args: argparse.Namespace, roots: list[str], kept: KeptRows, cache: RowCache, now: float
) -> RowScan[bytes]:
    """The listing: the rows ``kept`` holds and the runs it does not, read (what their
    transcripts spent kept in the spend book, unless the cache is not used; the rates the
    price data gives kept in its rate book either way)."""
    from wftop.core.cost.spendbook import book_for, rates_for
    from wftop.core.cost.usage import Spends
    from wftop.core.index.coldpass import FromFields, scan_rows
    from wftop.core.index.countrow import printed_named  # before the fork, not in each worker
    from wftop.core.system.statedir import state_dir
    from wftop.core.text.redact import Redactor

    kwargs = {} if args.stall_window is None else {"stall_window": args.stall_window}
    redactor = Redactor.for_json()
    book = None if cache.path is None else book_for(state_dir(), roots)
    rates = None
    if book is None:
        writable = not getattr(args, "read_only", False)
        rates = rates_for(state_dir(), roots, writable=writable)
    spends = Spends(book)
    items = scan_rows(
        roots,
        FromFields(lambda fields: printed_named(fields, redactor), spends),
        now=lambda: now,
        cache=cache,
        spend_book=book,
        kept=kept,
        **kwargs,
    )
    spends.keep()
    if rates is not None:
        rates.save()
    return items


def rooted_table(rows: list[dict[str, Any]], now: float) -> str:
    """The table; the root first when one run is listed under two roots (which copy is
    which), as the host is for other hosts' runs."""
    names = [(row["session_id"], row["run_id"]) for row in rows]
    if len(names) == len(set(names)):
        return "\n".join([HEADER, *(table_line(row, now) for row in rows)])
    width = max(len(gate(str(row["root"]))) for row in rows)
    lines = (f"{gate(str(row['root'])):<{width}} {table_line(row, now)}" for row in rows)
    return "\n".join([f"{'ROOT':<{width}} {HEADER}", *lines])


def merged(args: argparse.Namespace, rows: list[dict[str, Any]], now: float) -> int:
    """This machine's rows and every ``--host``'s (``host`` says whose), newest first, each
    project named as this listing names it."""
    from wftop.cli.remote import EXIT_UNREACHABLE, argvs_or_exit, ask_hosts
    from wftop.core.remote.transport import Unreachable

    remote = ["ls", "--json"]
    if args.stall_window is not None:
        remote += ["--stall-window", str(args.stall_window)]
    argvs = argvs_or_exit(args, remote)
    if argvs is None:
        return EXIT_USAGE
    code = EXIT_OK
    for host, reply in ask_hosts(argvs).items():
        found = host_rows(host, reply.stdout) if reply.failure is None else None
        if found is None:
            failure = reply.failure or Unreachable("bad reply", "not a JSON array of runs")
            fail(failure.describe(host))
            code = EXIT_UNREACHABLE
            continue
        rows += found
    rows.sort(key=lambda row: row.get("last_activity") or "", reverse=True)
    name_rows(rows, masked)
    if args.json:
        items = [json_row(row) for row in rows]
        write_json(json_array(items))
    else:
        width = max(len(row["host"] or "-") for row in rows) if rows else 4
        header = f"{'HOST':<{width}} {HEADER}"
        lines = (f"{gate(row['host'] or '-'):<{width}} {table_line(row, now)}" for row in rows)
        print("\n".join([header, *lines]))
    return code


def host_rows(host: str, text: bytes) -> list[dict[str, Any]] | None:
    """The rows a host printed, each checked (`RunRow.from_json`), with ``host`` set and
    masked again here (None: not a JSON array)."""
    from wftop.core.read.jsonline import UnreadableLine, parse_line
    from wftop.core.row import RowError, RunRow
    from wftop.core.text.redact import Redactor, redact_value

    try:
        found = parse_line(text)  # any depth: what nests too deep is kept as its text
    except UnreadableLine:
        return None
    if not isinstance(found, list):
        return None
    redactor = Redactor.for_json()
    rows = []
    for at, item in enumerate(found):
        try:
            row = RunRow.from_json(item, host=host)
        except RowError as error:
            fail(f"{host}: ls --json item {at}: not a run row ({error}); skipped")
            continue
        rows.append(redact_value(row.to_json(), redactor))
    return rows


def json_row(row: dict[str, Any]) -> bytes:
    from wftop.core.text.jsonout import dumps

    text = dumps(row, indent=True)
    return b"  " + text.replace(b"\n", b"\n  ")


def report(problems: list[Problem]) -> None:
    for problem in problems:
        fail(str(problem))
