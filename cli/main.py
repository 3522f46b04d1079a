"""The ``wftop`` command line: subcommands dispatch to modules in ``wftop.cli.commands``.

Each command module has ``add_parser(subparsers)`` and ``run(args) -> int``. Only
the TUI itself imports Textual, so ``wftop ls`` and friends start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wftop.tui.config import Config

COMMANDS = ["ls", "resume", "demo", "drill", "status", "completion", "scan", "export", "stats"]
"""Modules of ``wftop.cli.commands``, in the order ``--help`` lists them."""

EXIT_USAGE = 2
WRITING_COMMANDS = {
    "resume": "it launches claude and writes its state",
    "drill": "it launches claude (in a temporary dir)",
}
"""Commands ``--read-only`` refuses, and why. ``demo`` falls back to its browse-only trees."""


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

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


class VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked (that import is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(f"wftop {package_version()}")
        parser.exit()


VALUED_TOP_OPTIONS = frozenset({"--root", "--stall-window"})


def command_in(argv: list[str]) -> str | None:
    """The command named in ``argv`` (skipping top-level options and their values), if any."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token in VALUED_TOP_OPTIONS:
            skip = True
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (``only``) one with just that command: importing every command
    module costs a status-bar call like ``wftop status`` most of its time."""
    parser = argparse.ArgumentParser(
        prog="wftop",
        description="Watch Claude Code Workflow runs, find the dead ones, resume them. "
        "Without a command, opens the TUI.",
    )
    parser.add_argument("--version", action=VersionAction, nargs=0, help="print the version")
    add_root_option(parser)
    parser.add_argument(
        "--no-mouse",
        action="store_true",
        help="leave the mouse to the terminal (native text selection)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="switch off everything that launches or writes: resume and relaunch in the TUI, "
        "`wftop resume`, `wftop drill`; `demo` browses bundled trees only",
    )
    parser.add_argument(
        "--stall-window",
        type=float,
        default=None,
        metavar="SECONDS",
        help="quiet time before a live run reads as stalled (default 600, or the config file)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else [only]:
        module = importlib.import_module(f"wftop.cli.commands.{name}")
        module.add_parser(subparsers)
        if name in WRITING_COMMANDS:  # `wftop resume --read-only …` reads as it should, too
            subparsers.choices[name].add_argument(
                "--read-only", action="store_true", default=argparse.SUPPRESS, help="refuse"
            )
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(command_in(argv))
    args = parser.parse_args(argv)
    if os.environ.get("WFTOP_READ_ONLY", "") not in ("", "0"):
        args.read_only = True
    if args.command is None:
        return run_tui(args)
    dry = getattr(args, "dry_run", False)
    if args.read_only and args.command in WRITING_COMMANDS and not dry:
        reason = WRITING_COMMANDS[args.command]
        print(f"wftop: {args.command} is switched off by --read-only ({reason})", file=sys.stderr)
        return EXIT_USAGE
    module = importlib.import_module(f"wftop.cli.commands.{args.command}")
    try:
        code: int = module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    return code


def pick_roots(args: argparse.Namespace, config: Config) -> list[str]:
    """Config roots and ``--root`` dirs, plus the default root unless switched off.

    Raises:
        RootError: an explicitly named root cannot be read.
    """
    from wftop.core.discovery import RootError, check_root, resolve_roots

    extra = list(config.roots) + list(args.root)
    include_default = config.default_root and not args.no_default_root
    explicit = resolve_roots(extra, include_default=False)
    usable = []
    for root in resolve_roots(extra, include_default=include_default):
        try:
            check_root(root)
        except RootError:
            if root in explicit or not explicit:
                raise
            continue
        usable.append(root)
    return usable


def run_tui(args: argparse.Namespace) -> int:
    """``wftop`` without a command: read the config, pick the roots, build and run the app."""
    from wftop.core.discovery import RootError
    from wftop.tui.config import ConfigError, load_config

    try:
        config = load_config()
        roots = pick_roots(args, config)
    except (ConfigError, RootError) as error:
        print(f"wftop: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.stall_window is not None:
        from dataclasses import replace

        config = replace(config, stall_window=args.stall_window)
    from wftop.tui.start import make_app

    app = make_app(roots, config=config, read_only=args.read_only)
    app.run(mouse=config.mouse and not args.no_mouse)
    return int(app.return_code or 0)
