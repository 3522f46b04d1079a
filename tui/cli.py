"""The ``wftop`` command line: subcommands dispatch to modules in ``tui.commands``.

Each command module has ``add_parser(subparsers)`` and ``run(args) -> int``. Only
the TUI itself imports Textual, so ``wftop ls`` and friends start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

COMMANDS = ["ls", "resume", "demo", "scan", "export", "stats"]
"""Modules of ``tui.commands``, in the order ``--help`` lists them."""

EXIT_USAGE = 2


def package_version() -> str:
    try:
        return version("wftop")
    except PackageNotFoundError:
        return "0+unknown"


def add_root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="an extra Claude config dir (holding projects/) to read; repeatable",
    )
    parser.add_argument(
        "--no-default-root",
        action="store_true",
        help="read only the --root dirs, not $CLAUDE_CONFIG_DIR or ~/.claude",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wftop",
        description="Watch Claude Code Workflow runs, find the dead ones, resume them. "
        "Without a command, opens the TUI.",
    )
    parser.add_argument("--version", action="version", version=f"wftop {package_version()}")
    add_root_option(parser)
    parser.add_argument(
        "--no-mouse",
        action="store_true",
        help="leave the mouse to the terminal (native text selection)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="open the TUI with resume and relaunch switched off",
    )
    parser.add_argument(
        "--stall-window",
        type=float,
        default=None,
        metavar="SECONDS",
        help="quiet time before a live run reads as stalled (default 600, or the config file)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"tui.commands.{name}")
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from tui.main import run_tui

        return run_tui(args)
    module = importlib.import_module(f"tui.commands.{args.command}")
    try:
        code: int = module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    return code
