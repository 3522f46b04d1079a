"""``wftop resume``: plan, guard and relaunch a dead run, then watch it to the end."""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import Any

import orjson

from wftop.cli.options import EXIT_OK, EXIT_USAGE, add_root_option, roots_or_exit
from wftop.core.coldpass import scan_roots
from wftop.core.model import Run
from wftop.core.procs import default_table
from wftop.core.redact import redact, redact_value
from wftop.core.resume.driver import NO_CONVERSATION, Attempt, ResumeDriver, relocated_plan
from wftop.core.resume.errors import ResumeError, ResumeInProgress
from wftop.core.resume.launcher import Strategy, SubprocessLauncher
from wftop.core.resume.machine import ACTIVE_STATES, ResumeState
from wftop.core.resume.plan import Plan, make_plan, project_slug
from wftop.core.resume.store import ResumeStore

EXIT_FAILED, EXIT_REFUSED, EXIT_LAUNCH_FAILED, EXIT_WITH_FAILURES = 1, 3, 4, 5
OUTCOME_EXIT = {
    ResumeState.COMPLETED: EXIT_OK,
    ResumeState.COMPLETED_WITH_FAILURES: EXIT_WITH_FAILURES,
    ResumeState.BLOCKED: EXIT_REFUSED,
    ResumeState.LAUNCH_FAILED: EXIT_LAUNCH_FAILED,
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("resume", help="resume a dead run from its journal")
    parser.add_argument("run_id", metavar="RUN_ID")
    add_root_option(parser)
    parser.add_argument("--session", help="the session that holds the run, when several do")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, launch nothing")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument(
        "--strategy", choices=[s.value for s in Strategy], help="how to continue the run"
    )
    parser.add_argument("--force", action="store_true", help="resume although the guard refuses")
    parser.add_argument("--claude", metavar="PATH", help="the claude binary to run")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up watching after this long (the run goes on)",
    )
    parser.add_argument(
        "--stop-on-miss",
        action="store_true",
        help="stop the relaunched run when a call the forecast served from cache starts live",
    )


def find_run(args: argparse.Namespace, roots: list[str]) -> Run | str:
    runs = [
        run
        for run in scan_roots(roots).runs
        if run.run_id == args.run_id and (args.session is None or run.session_id == args.session)
    ]
    if not runs:
        return f"no run {args.run_id} under {', '.join(roots)}"
    if len(runs) > 1:
        live = [run for run in runs if run.status.value != "superseded"]
        if len(live) == 1:
            return live[0]
        sessions = ", ".join(run.session_id for run in runs)
        return f"run {args.run_id} exists in several sessions ({sessions}): pass --session"
    return runs[0]


def describe(plan: Plan) -> str:
    lines = [
        f"run        {plan.run.run_id} ({plan.run.name or 'unnamed'}) — {plan.run.shown_status}",
        f"strategy   {plan.strategy.value} (recommended: {plan.recommended.value})",
        f"session    {plan.session_id}"
        + (
            "" if plan.session_id == plan.run.session_id else f" (new; owner {plan.run.session_id})"
        ),
        f"cwd        {plan.cwd}",
        f"argv       {orjson.dumps(plan.argv).decode()}",
    ]
    if plan.env:
        lines.append(f"env        {orjson.dumps(plan.env).decode()}")
    for name, forecast in plan.forecasts.items():
        marker = "→" if name == plan.strategy.value else " "
        lines.append(f"forecast {marker} {name}: {forecast.summary()}")
        lines.append(
            f"             live: {', '.join(forecast.live) or '-'}"
            f"; cached: {', '.join(forecast.cached) or '-'}"
        )
    if plan.recommended is Strategy.SURGICAL:
        lines.append(
            "           surgical continues in a new session; the owner session's "
            "conversation does not receive the result"
        )
    for hazard in plan.hazards:
        lines.append(f"hazard     {hazard.code}: {hazard.message}")
    lines.append(f"guard      {plan.verdict.reason}")
    return redact("\n".join(lines))


def emit(args: argparse.Namespace, event: dict[str, Any], text: str) -> None:
    """One event, as a JSON line or a line of text; secrets (in labels, reasons) masked."""
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(redact_value(event)) + b"\n")
        sys.stdout.flush()
    else:
        print(redact(text), flush=True)


def run(args: argparse.Namespace) -> int:
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    found = find_run(args, roots)
    if isinstance(found, str):
        print(f"wftop: {found}", file=sys.stderr)
        return EXIT_USAGE
    from wftop.tui.config import ConfigError, load_config

    try:
        config = load_config()
    except ConfigError as error:
        print(f"wftop: {error}", file=sys.stderr)
        return EXIT_USAGE
    processes = default_table()
    plan = make_plan(
        found,
        processes=processes,
        now=time.time(),
        strategy=args.strategy,
        claude_bin=args.claude or config.claude,
        extra_flags=config.resume_flags,
    )
    if args.dry_run:
        if args.json:
            sys.stdout.buffer.write(
                orjson.dumps(redact_value(plan.to_json()), option=orjson.OPT_INDENT_2) + b"\n"
            )
        else:
            print(describe(plan))
        return EXIT_OK if plan.verdict.allows(args.force) else EXIT_REFUSED
    driver = ResumeDriver(ResumeStore(), SubprocessLauncher(processes), processes)
    active = driver.active(plan.run.run_id)
    if active is not None:
        emit(
            args,
            {"event": "reattached", "request": active.request},
            f"a resume of {plan.run.run_id} is already {active.state.value}: following it",
        )
        return follow(args, driver, plan, active.state, driver.attach(plan, active))
    if not args.json:
        print(describe(plan))
    if not plan.verdict.allows(args.force):
        emit(
            args,
            {"event": "refused", "guard": plan.verdict.reason},
            f"wftop: refused: {plan.verdict.reason}",
        )
        driver.start(plan)
        return EXIT_REFUSED
    if not args.yes:
        if not sys.stdin.isatty():
            print("wftop: not a terminal: pass --yes to resume without asking", file=sys.stderr)
            return EXIT_USAGE
        if input("resume? [y/N] ").strip().lower() not in ("y", "yes"):
            return EXIT_USAGE
    try:
        status, attempt = driver.start(plan, force=args.force)
    except ResumeInProgress as busy:
        attempt = driver.attach(plan, busy.status)
        emit(
            args,
            {"event": "reattached", "request": busy.status.request},
            f"a resume of {plan.run.run_id} is already {busy.status.state.value}: following it",
        )
        return follow(args, driver, plan, busy.status.state, attempt)
    except ResumeError as error:
        print(f"wftop: {error}", file=sys.stderr)
        return EXIT_REFUSED
    return follow(args, driver, plan, status.state, attempt)


def follow(
    args: argparse.Namespace,
    driver: ResumeDriver,
    plan: Plan,
    state: ResumeState,
    attempt: Attempt | None,
) -> int:
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    while attempt is not None:
        status, misses = driver.step(attempt)
        for label in misses:
            emit(
                args,
                {"event": "cache_miss", "label": label},
                f"⚠ cache miss: {label} is re-running although the forecast served it from cache",
            )
        if misses and args.stop_on_miss and (status is None or status.state in ACTIVE_STATES):
            status = driver.stop(attempt)
        if status is not None:
            state = status.state
            reason = status.transitions[-1].reason
            emit(
                args,
                {"event": "state", "state": state.value, "reason": reason},
                f"{state.value}: {reason}",
            )
            if (
                state is ResumeState.LAUNCH_FAILED
                and status.attempts < 2
                and (NO_CONVERSATION in reason or plan.strategy is Strategy.RESUME_OWNER)
            ):
                session = str(uuid.uuid4())
                project = project_slug(plan.cwd) if plan.cwd else plan.run.folder.project
                target = "/".join(
                    [
                        plan.run.folder.root,
                        "projects",
                        project,
                        session,
                        "subagents",
                        "workflows",
                        plan.run.run_id,
                        "journal.jsonl",
                    ]
                )
                plan = relocated_plan(plan, Strategy.RELOCATE, target, session)
                status, attempt = driver.fall_back(attempt, plan)
                state = status.state
                continue
            if state not in (ResumeState.LAUNCHING, ResumeState.RUNNING):
                break
        if deadline is not None and time.monotonic() > deadline:
            emit(args, {"event": "timeout"}, "wftop: stopped watching; the run goes on")
            return EXIT_FAILED
        time.sleep(0.2)
    if attempt is not None:
        progress = attempt.watch.progress
        emit(
            args,
            {
                "event": "done",
                "state": state.value,
                "live": progress.started,
                "cached": progress.cached,
                "misses": progress.misses,
                "run_id": progress.run_id or plan.run.run_id,
                "session_id": plan.session_id,
            },
            f"live calls: {', '.join(progress.started) or '-'}",
        )
    return OUTCOME_EXIT.get(state, EXIT_FAILED)
