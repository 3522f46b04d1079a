"""``wftop supervise``'s command line: its options, their checks, the settings they make
and the options a host's supervisor is given."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from wftop.cli.options import add_host_options
from wftop.core.supervise.decide import Settings
from wftop.core.supervise.rules import ATTEMPTS_DEFAULT, BACKOFF_DEFAULT


def _amount(kind: str, *, whole: bool = False, least: float = 0.0) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < least or (whole and value != int(value)):
            words = "a whole number" if whole else "a number"
            msg = f"expected {words} of {kind} of at least {least:g}, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "supervise", help="resume dead runs by themselves, under caps you set"
    )
    scope = parser.add_argument_group("scope (without one: the runs marked auto in the TUI)")
    scope.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RUN",
        dest="runs",
        help="a run to supervise (its id); repeatable",
    )
    scope.add_argument(
        "--project",
        action="append",
        default=[],
        metavar="NAME",
        dest="projects",
        help="every run of a project (its folder name or full path); repeatable",
    )
    scope.add_argument(
        "--all",
        action="store_true",
        dest="everything",
        help="every run of the roots read (--root picks them)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--once", action="store_true", help="one pass: decide, act, wait for what it launched, exit"
    )
    mode.add_argument(
        "--dry-run", action="store_true", help="say what it would do now and when; launch nothing"
    )
    mode.add_argument(
        "--status", action="store_true", help="what is supervised, and what waits for what"
    )
    mode.add_argument("--log", action="store_true", help="print the audit log")
    mode.add_argument(
        "--off", action="store_true", help="stop the supervisor and take every auto mark off"
    )
    parser.add_argument("--json", action="store_true", help="JSON lines instead of text")
    parser.add_argument(
        "--max-usd",
        type=_amount("dollars"),
        metavar="N",
        help="launch only a resume whose forecast's high end is at most N",
    )
    parser.add_argument(
        "--daily-usd",
        type=_amount("dollars"),
        metavar="N",
        help="launch only while the day's launches stay within N",
    )
    parser.add_argument(
        "--backoff",
        type=_amount("seconds"),
        metavar="SECONDS",
        help=f"first wait after a passing API error (default "
        f"{BACKOFF_DEFAULT:g}), doubling, up to 30 minutes",
    )
    parser.add_argument(
        "--attempts",
        type=_amount("resumes", whole=True, least=1),
        metavar="N",
        help=f"resumes per run and failure (default {ATTEMPTS_DEFAULT})",
    )
    parser.add_argument(
        "--fallback",
        choices=["fresh"],
        help="relaunch the script fresh when a run cannot be resumed",
    )
    parser.add_argument("--claude", metavar="PATH", help="the claude binary to run")
    add_host_options(parser, command=True)


def settings_of(args: argparse.Namespace, config: Any) -> Settings:
    table = config.supervise
    return Settings(
        max_usd=args.max_usd if args.max_usd is not None else table.max_usd,
        daily_usd=args.daily_usd if args.daily_usd is not None else table.daily_usd,
        backoff=args.backoff if args.backoff is not None else table.backoff,
        attempts=int(args.attempts if args.attempts is not None else table.attempts),
        fallback_fresh=args.fallback == "fresh",
    )


def remote_args(args: argparse.Namespace) -> list[str]:
    """This command line as the hosts' supervisors take it: every option but the roots,
    ``--claude`` and the hosts themselves (a host reads its own roots and config)."""
    out = [f"--run={run}" for run in args.runs] + [f"--project={p}" for p in args.projects]
    flags = {"everything": "--all", "once": "--once", "dry_run": "--dry-run",
             "status": "--status", "log": "--log", "off": "--off", "json": "--json"}  # fmt: skip
    out += [flag for name, flag in flags.items() if getattr(args, name)]
    values = {"max_usd": "--max-usd", "daily_usd": "--daily-usd", "backoff": "--backoff",
              "attempts": "--attempts", "fallback": "--fallback"}  # fmt: skip
    for name, flag in values.items():
        value = getattr(args, name)
        if value is not None:
            out.append(f"{flag}={value:g}" if isinstance(value, float) else f"{flag}={value}")
    return ["supervise", *out]
