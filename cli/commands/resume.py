"""``wftop resume``: plan, guard and relaunch a dead run, then watch it to the end."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import orjson

from wftop.cli.exact import EXIT_NO_EXACT, Rehearsed, add_exact_options, rehearse_plan, rehearser
from wftop.cli.options import (
    EXIT_OK,
    EXIT_USAGE,
    FILE_VALUES,
    add_root_option,
    add_run_id,
    completes,
    config_or_exit,
    roots_or_exit,
    seconds,
)
from wftop.cli.output import fail, print_json, write_json
from wftop.core.cost.spendbook import book_for
from wftop.core.forecast.cachewarm import cache_text
from wftop.core.index.coldpass import paused_gc, scan_roots
from wftop.core.index.gcpause import held_to_exit
from wftop.core.model import Run, Status
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.request import Event, Request, what_is_left
from wftop.core.resume.store import ResumeStore, state_dir
from wftop.core.resume.table import HEADINGS, cold_cache_words, fates_line, strategy_rows
from wftop.core.system.procs import default_table
from wftop.core.text.gate import shown, shown_each
from wftop.core.text.jsonout import dumps_masked
from wftop.core.text.redact import Redactor, redact_value

EXIT_FAILED, EXIT_REFUSED, EXIT_LAUNCH_FAILED, EXIT_WITH_FAILURES = 1, 3, 4, 5
OUTCOME_EXIT = {
    ResumeState.COMPLETED: EXIT_OK,
    ResumeState.COMPLETED_WITH_FAILURES: EXIT_WITH_FAILURES,
    ResumeState.BLOCKED: EXIT_REFUSED,
    ResumeState.LAUNCH_FAILED: EXIT_LAUNCH_FAILED,
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("resume", help="resume a dead run from its journal")
    add_run_id(parser)
    add_root_option(parser)
    parser.add_argument("--session", help="the session that holds the run, when several do")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, launch nothing")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--strategy", choices=[s.value for s in Strategy], help="how to continue the run"
    )
    parser.add_argument("--force", action="store_true", help="resume although the guard refuses")
    parser.add_argument(
        "--max-usd",
        type=budget,
        default=None,
        metavar="N",
        help="refuse when the forecast may cost more than N dollars (--force does not override)",
    )
    claude = parser.add_argument("--claude", metavar="PATH", help="the claude binary to run")
    completes(claude, FILE_VALUES)
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="give up watching after this long (the run goes on)",
    )
    parser.add_argument(
        "--stop-on-miss",
        action="store_true",
        help="stop the relaunched run when a call the forecast served from cache starts live",
    )
    add_exact_options(parser)


def budget(text: str) -> float:
    """``--max-usd``'s value: a number of dollars, at least 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of dollars ≥ 0, got {text!r}")
    return value


def search_roots(args: argparse.Namespace, roots: list[str]) -> list[str]:
    """``--root DIR`` picks the roots to look for the run in; without it, every root."""
    if not args.root:
        return roots
    picked = {os.path.realpath(os.path.expanduser(root)) for root in args.root}
    return [root for root in roots if os.path.realpath(root) in picked] or roots


def find_run(args: argparse.Namespace, roots: list[str]) -> Run | str:
    """The one run the user means, or why there is none (or more than one).

    A superseded copy (continued in another session) is not a candidate when its
    continuation is; any other repeat of the id, across sessions or roots, is ambiguous.
    ``--dry-run`` reads it with its results as parsed (`JournalFold.packs`: the process ends
    after its plan); a resume, which follows the run it launched for as long as it runs,
    keeps them packed.
    """
    roots = search_roots(args, roots)
    packed = not args.dry_run
    runs = [
        run
        for run in scan_roots(roots, run_id=args.run_id, packed=packed).runs
        if args.session is None or run.session_id == args.session
    ]
    if not runs:
        return f"no run {args.run_id} under {', '.join(roots)}"
    candidates = [run for run in runs if run.status is not Status.SUPERSEDED] or runs
    if len(candidates) > 1:
        listed = "; ".join(f"root {run.folder.root} session {run.session_id}" for run in candidates)
        return (
            f"run {args.run_id} is ambiguous, {len(candidates)} candidates ({listed}): "
            "pick one with --root DIR and --session ID"
        )
    return candidates[0]


def describe(plan: Plan, now: float | None = None) -> str:
    now = time.time() if now is None else now
    cache = cache_text(plan.cache_warm_until, now) + cold_cache_words(plan)
    lines = [
        f"run        {plan.run.run_id} ({plan.run.name or 'unnamed'}) — {plan.run.shown_status}",
        f"strategy   {plan.strategy.value} (recommended: {plan.recommended.value})",
        f"session    {plan.session_id}"
        + ("" if plan.session_id == plan.run.session_id else f" (new; owner {plan.run.session_id})")
        + f" · owner's {cache}",
        f"cwd        {plan.cwd}",
        f"argv       {orjson.dumps(plan.argv).decode()}",
    ]
    if plan.env:
        lines.append(f"env        {orjson.dumps(plan.env).decode()}")
    lines.extend(cost_table(plan))
    if plan.recommended is Strategy.SURGICAL:
        lines.append(
            "           surgical continues in a new session; the owner session's "
            "conversation does not receive the result"
        )
    for hazard in plan.hazards:
        lines.append(f"hazard     {hazard.code}: {hazard.message}")
    cause = plan.stop_cause
    if cause is not None:
        lines.append(f"stopped    {cause.line()}")
        if cause.warning:
            lines.append(f"⚠ warning  {cause.warning}")
    lines.append(f"guard      {plan.verdict.reason}")
    lines.extend(f"           {line}" for line in plan.verdict.advice())
    left = what_is_left(plan)
    if left:
        lines.append(f"left       {left}")
    return shown_each(lines)


COLUMNS = ("<14", ">5", ">5", ">4", ">13", "<8")
"""How the table's columns but the last (dollars) are aligned and how wide."""


def table_line(cells: Sequence[str]) -> str:
    *aligned, last = cells
    return (
        " ".join(f"{cell:{how}}" for cell, how in zip(aligned, COLUMNS, strict=True)) + f" {last}"
    )


def cost_table(plan: Plan) -> list[str]:
    """One row per strategy (``→`` the selected one, ``*`` the recommended one) and the plain
    line under it: what the selected strategy does, its calls by fate."""
    lines = [f"forecast   {table_line(HEADINGS)}"]
    for row in strategy_rows(plan):
        lines.append(f"         {'→' if row.selected else ' '} {table_line(row.cells)}")
    lines.append(f"           {fates_line(plan.forecast)}")
    if plan.recommended.value in plan.forecasts:
        lines.append("           (* recommended)")
    return lines


def exact(
    args: argparse.Namespace, plan: Plan, claude: str | None
) -> tuple[Plan, Rehearsed | None]:
    """``--exact``: the plan with its forecast rehearsed, or as it was (and one line why)."""
    if not args.exact:
        return plan, None
    rehearsed = rehearse_plan(plan, rehearser(args.claude or claude, args.exact_timeout))
    line = rehearsed.error_line()
    if line is not None:
        print(shown(line), file=sys.stderr)
    return rehearsed.plan, rehearsed


def print_plan(
    args: argparse.Namespace,
    plan: Plan,
    rehearsed: Rehearsed | None,
    held: tuple[object, ...] = (),
) -> int:
    """``--dry-run``: the plan as JSON or text; the exit code says whether it may launch,
    then whether ``--exact`` could rehearse. The plan, its JSON and what made them (``held``:
    the run, the policy) are held until the process ends (`held_to_exit`: it ends after the
    plan, and need not free them)."""
    data = None
    if args.json:
        data = plan.json_fields()
        if rehearsed is not None:
            data["rehearsal"] = rehearsed.to_json()
        # Each label is in it five times: the secret test reads each distinct string once.
        masked = dumps_masked(data, Redactor.for_json(), indent=True, distinct=True)
        write_json(masked)
    else:
        print(describe(plan))
    held_to_exit(*held, plan, rehearsed, data)
    if not plan.verdict.allows(args.force):
        return EXIT_REFUSED
    return EXIT_NO_EXACT if rehearsed is not None and rehearsed.error else EXIT_OK


def emit(args: argparse.Namespace, event: dict[str, Any], text: str) -> None:
    """One event, as a JSON line or a line of text; secrets (in labels, reasons) masked."""
    if args.json:
        print_json(redact_value(event, Redactor.for_json()), indent=False)
        sys.stdout.flush()
    else:
        print(shown(text), flush=True)


def make_policy(
    args: argparse.Namespace, claude: str | None, flags: Sequence[str], roots: Sequence[str] = ()
) -> ResumePolicy:
    """The resume policy over this machine: its processes, clock, state dir (and the spend
    book in it, read only under ``--read-only``) and claude."""
    book = book_for(state_dir(), roots, writable=not getattr(args, "read_only", False))
    return ResumePolicy(
        processes=default_table(),
        clock=time.time,
        store=ResumeStore(),
        claude_bin=args.claude or claude,
        extra_flags=flags,
        max_usd=args.max_usd,
        spend_book=book,
    )


def run(args: argparse.Namespace) -> int:
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    gc.disable()  # the run read: objects for each call, none in a cycle
    try:
        found = find_run(args, roots)
    finally:
        gc.freeze()  # the run lives as long as the command: no collection ever walks it
        gc.enable()
    if isinstance(found, str):
        fail(found)
        return EXIT_USAGE
    config = config_or_exit()
    if config is None:
        return EXIT_USAGE
    policy = make_policy(args, config.claude, config.resume_flags, roots)
    plan = policy.plan(found, args.strategy)
    plan, rehearsed = exact(args, plan, config.claude)
    if args.dry_run:
        # Its JSON: a dict for each call. The command ends after it: what it built is frozen,
        # walked by no collection (the interpreter's last one at its exit included).
        with paused_gc(freeze=True):
            return print_plan(args, plan, rehearsed, held=(found, policy))
    active = policy.in_flight(plan.run.run_id)
    if active is not None:
        request, events = policy.follow_existing(plan, active)
        return follow(args, policy, request, events)
    if not args.json:
        print(describe(plan))
    if plan.verdict.allows(args.force) and not args.yes:
        if not sys.stdin.isatty():
            fail("not a terminal: pass --yes to resume without asking")
            return EXIT_USAGE
        if input("resume? [y/N] ").strip().lower() not in ("y", "yes"):
            return EXIT_USAGE
    request, events = policy.start(plan, force=args.force)
    if request.state is None or request.state is ResumeState.BLOCKED:
        for event in events:
            if event.kind == "error":
                print(shown(event.text), file=sys.stderr)
            else:
                emit(args, event.data, event.text)
        return EXIT_REFUSED
    return follow(args, policy, request, events)


def follow(
    args: argparse.Namespace, policy: ResumePolicy, request: Request, events: list[Event]
) -> int:
    """Print the request's events until it ends (or ``--timeout`` passes: the run goes on)."""
    deadline = None if args.timeout is None else time.monotonic() + args.timeout

    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    for event in events:
        emit(args, event.data, event.text)
    for event in policy.follow(request, stop_on_miss=args.stop_on_miss, give_up=late):
        emit(args, event.data, event.text)
    if request.in_flight:
        emit(args, {"event": "timeout"}, "wftop: stopped watching; the run goes on")
        return EXIT_FAILED
    return OUTCOME_EXIT.get(request.state, EXIT_FAILED) if request.state else EXIT_FAILED
