"""The ``wftop`` command line: parse, then hand over to one module of ``wftop.cli.commands``.

Each command module is a `Command` (``add_parser(subparsers)``, ``run(args) -> int``) and
imports only `wftop.cli.options` from this layer. `command` imports the one module a command
line names and no other, and only the TUI itself imports Textual, so ``wftop ls`` and friends
start fast. Without a command, ``wftop`` opens the TUI.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from wftop.cli.options import (
    EXIT_USAGE,
    VALUED_TOP_OPTIONS,
    Command,
    DescribedCommands,
    add_global_options,
    merge_global_options,
    run_command,
    top_parser,
)
from wftop.cli.output import fail, gated_output
from wftop.core.index.gcpause import paused_gc

if TYPE_CHECKING:
    from wftop.core.config import Config

COMMANDS = [
    "ls", "resume", "supervise", "demo", "drill", "status", "ack", "watch", "completion", "scan",
    "export", "stats",
]  # fmt: skip
"""Modules of ``wftop.cli.commands``, in the order ``--help`` lists them."""

WRITING_COMMANDS = {
    "resume": "it launches claude and writes its state",
    "drill": "it launches claude (in a temporary dir)",
    "ack": "it writes the runs marked seen to the state dir",
    "supervise": "it launches claude and writes its state",
}
"""Commands ``--read-only`` refuses, and why. ``demo`` falls back to its browse-only trees."""


def command(name: str) -> Command:
    """The module of command ``name``, imported on first use: a status-bar call such as
    ``wftop status`` would spend most of its time importing every command."""
    match name:
        case "ls":
            from wftop.cli.commands import ls

            return ls
        case "resume":
            from wftop.cli.commands import resume

            return resume
        case "supervise":
            from wftop.cli.commands import supervise

            return supervise
        case "demo":
            from wftop.cli.commands import demo

            return demo
        case "drill":
            from wftop.cli.commands import drill

            return drill
        case "status":
            from wftop.cli.commands import status

            return status
        case "ack":
            from wftop.cli.commands import ack

            return ack
        case "watch":
            from wftop.cli.commands import watch

            return watch
        case "completion":
            return CompletionCommand()
        case "scan":
            from wftop.cli.commands import scan

            return scan
        case "export":
            from wftop.cli.commands import export

            return export
        case "stats":
            from wftop.cli.commands import stats

            return stats
    raise KeyError(name)


class CompletionCommand:
    """``wftop completion``, handed the whole parser it writes scripts from (built here)."""

    def add_parser(self, subparsers: Any) -> None:
        from wftop.cli.commands import completion

        completion.add_parser(subparsers)

    def run(self, args: argparse.Namespace) -> int:
        from wftop.cli.commands import completion

        return completion.run(args, build_parser())


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


def options_alone(argv: list[str]) -> bool:
    """``argv`` holds top-level long options and their values alone, none that may ask for
    the help (which lists every command): a word, ``-``, ``-5`` or ``--`` would be read
    as a command (`parse`)."""
    value = False
    for token in argv:
        if value:
            value = False
            continue
        if not token.startswith("--") or token == "--" or "--help".startswith(token.split("=")[0]):
            return False
        value = token in VALUED_TOP_OPTIONS
    return True


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (``only``) one with just that command ("": none, the TUI's)."""
    parser = top_parser()
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else [only] if only else []:
        command(name).add_parser(DescribedCommands(subparsers))
        add_global_options(subparsers.choices[name], command=True)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line read: global options count the same before or after the command.
    A line of top-level options alone (the TUI's) is read without any command's parser:
    making them imports every command's module, 0.16 s of CPU before the TUI could start
    its engine; such a line reads, and fails, the same either way."""
    only = "" if options_alone(argv) else command_in(argv)
    with paused_gc(aged=True):  # the command's modules imported: no collection walks them
        return merge_global_options(build_parser(only).parse_args(argv))


def main(argv: list[str] | None = None) -> int:
    """``wftop``: what it prints as text passes the gate (`wftop.cli.output.gated_output`)."""
    with gated_output():
        return dispatch(sys.argv[1:] if argv is None else argv)


def dispatch(argv: list[str]) -> int:
    if argv[:1] == ["__complete-runs"]:  # shell completion asks for run ids: no parser, no scan
        from wftop.cli.commands.completion import complete_runs

        return complete_runs(argv[1:])
    if argv[:1] == ["__fetch"]:  # another machine's wftop browses a run of this one
        from wftop.cli.commands.fetch import fetch

        return fetch(argv[1:])
    args = parse(argv)
    if os.environ.get("WFTOP_READ_ONLY", "") not in ("", "0"):
        args.read_only = True
    if args.command is None:
        return run_tui(args)
    dry = any(getattr(args, name, False) for name in ("dry_run", "status", "log"))
    if args.read_only and args.command in WRITING_COMMANDS and not dry:
        reason = WRITING_COMMANDS[args.command]
        fail(f"{args.command} is switched off by --read-only ({reason})")
        return EXIT_USAGE
    return run_command(command(args.command).run, args)


def pick_roots(args: argparse.Namespace, config: Config) -> list[str]:
    """Config roots and ``--root`` dirs, plus the default root unless switched off. The
    default root missing is kept when it is the only root (a first run: the TUI says where it
    looked and watches for it) and dropped beside others.

    Raises:
        RootError: an explicitly named root cannot be read.
    """
    from wftop.core.read.roots import NoDefaultRoot, RootError, check_root, resolve_roots

    extra = list(config.roots) + list(args.root)
    include_default = config.default_root and not args.no_default_root
    explicit = resolve_roots(extra, include_default=False)
    usable = []
    for root in resolve_roots(extra, include_default=include_default):
        try:
            check_root(root, default=root not in explicit)
        except NoDefaultRoot:
            if explicit:
                continue
        except RootError:
            if root in explicit or not explicit:
                raise
            continue
        usable.append(root)
    return usable


def run_tui(args: argparse.Namespace) -> int:
    """``wftop`` without a command: read the config, pick the roots, build and run the app."""
    from dataclasses import replace

    from wftop.core.config import ConfigError, load_config
    from wftop.core.read.roots import RootError
    from wftop.tui.keys import check_keymap

    try:
        config = load_config()
        config = replace(config, keys=check_keymap(config))  # ids and collisions, by line
        roots = pick_roots(args, config)
    except (ConfigError, RootError) as error:
        fail(str(error))
        return EXIT_USAGE
    hosts = [*config.hosts, *args.host]
    remote = None
    if hosts:  # the links to other hosts, and what makes them, imported only for some
        from wftop.cli.remote import hub_for
        from wftop.core.remote.transport import HostError

        try:
            remote_command = args.remote_command or config.remote_command
            remote = hub_for(hosts, remote_command, config.ssh_command)
        except HostError as error:
            fail(str(error))
            return EXIT_USAGE
    if args.stall_window is not None:
        config = replace(config, stall_window=args.stall_window)
    from wftop.cli.exact import tui_rehearser
    from wftop.tui.start import make_app

    rehearse = tui_rehearser(config, read_only=args.read_only)
    app = make_app(roots, config=config, read_only=args.read_only, rehearse=rehearse, remote=remote)
    app.run(mouse=config.mouse and not args.no_mouse)
    return int(app.return_code or 0)
