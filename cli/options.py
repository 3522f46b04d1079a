"""What every ``wftop`` command shares: the top-level parser, the root options, exit codes.

It sits below ``wftop.cli.main`` and the modules of ``wftop.cli.commands``: they import it,
it imports neither. Each command module is a `Command`: ``add_parser(subparsers)`` puts its
subcommand on the parser, ``run(args)`` carries it out and returns the exit code.
Nothing here imports more than argparse until it is called, so ``wftop status`` stays fast.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from wftop.core.config import Config

from wftop.core.version import package_version

EXIT_OK = 0
EXIT_USAGE = 2
"""A bad command line, or a root, config or name that cannot be used."""
EXIT_INTERRUPTED = 130
"""Ctrl-C, as a shell reports a process killed by SIGINT."""


class Command(Protocol):
    """A module of ``wftop.cli.commands``."""

    def add_parser(self, subparsers: Any) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked (that import is slow),
    and the version of the price data dollars come from."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from wftop.core.cost.prices import price_data_line

        print(f"wftop {package_version()}")
        print(price_data_line())
        parser.exit()


def seconds(text: str) -> float:
    """An option's number of seconds: finite, above 0, at most a year (an argparse type)."""
    from wftop.core.config import seconds_problem

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    problem = seconds_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"expected {problem}, got {text!r}")
    return value


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def number(text: str) -> int:
        from wftop.core.config import count_problem

        try:
            value: object = int(text) if len(text) <= 30 else text
        except ValueError:
            value = text
        problem = count_problem(value, low, high)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"expected {problem}, got {text!r}")
        assert isinstance(value, int)
        return value

    return number


class HostOption(argparse.Action):
    """``--host NAME``, checked when it is read (`wftop.core.remote.transport.check_host`):
    a name wftop does not pass to ssh ends the command with one line, exit 2."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, *_: Any
    ) -> None:
        from wftop.core.remote.transport import HostError, check_host

        # ``--host=--`` reaches here as no value: argparse takes "--" for its separator.
        name = values if isinstance(values, str) else "--"
        try:
            check_host(name)
        except HostError as error:
            parser.exit(EXIT_USAGE, f"wftop: {error}\n")
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), name])


def add_global_options(parser: argparse.ArgumentParser, *, command: bool) -> None:
    """The options wftop takes before or after a command: ``--root``, ``--no-default-root``,
    ``--no-mouse``, ``--read-only`` and ``--stall-window``.

    On the top parser (``command`` false) they carry their defaults. On a command's parser
    they default to ``argparse.SUPPRESS``: argparse copies every attribute a command's parser
    sets over the top parser's, so a default there would wipe out the same option given
    before the command. ``--root`` after the command is kept apart (``roots_after``) and
    `merge_global_options` appends it to the roots given before. An option the parser
    declares already is left as it is.
    """

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if command else value

    specs: list[tuple[str, dict[str, Any]]] = [
        (
            "--root",
            {
                "action": "append",
                "dest": "roots_after" if command else "root",
                "default": default([]),
                "metavar": "DIR",
                "help": "an extra Claude config dir (holding projects/) to read; repeatable",
            },
        ),
        (
            "--no-default-root",
            {
                "action": "store_true",
                "default": default(False),
                "help": "read only the --root dirs, not $CLAUDE_CONFIG_DIR or ~/.claude",
            },
        ),
        (
            "--no-mouse",
            {
                "action": "store_true",
                "default": default(False),
                "help": "leave the mouse to the terminal (native text selection)",
            },
        ),
        (
            "--read-only",
            {
                "action": "store_true",
                "default": default(False),
                "help": "switch off everything that launches or writes: resume and relaunch in "
                "the TUI, `wftop resume`, `wftop drill`; `demo` browses bundled trees only",
            },
        ),
        (
            "--stall-window",
            {
                "type": seconds,
                "default": default(None),
                "metavar": "SECONDS",
                "help": "quiet time before a live run reads as stalled "
                "(default 600, or the config file)",
            },
        ),
    ]
    for flag, options in specs:
        try:
            action = parser.add_argument(flag, **options)
        except argparse.ArgumentError:  # declared already: left as it is
            continue
        if flag == "--root":
            completes(action, DIR_VALUES)


def add_root_option(parser: argparse.ArgumentParser) -> None:
    """A command's copy of the global options (`add_global_options`), for a command module
    that declares them itself; `wftop.cli.main` gives every command its copy anyway."""
    add_global_options(parser, command=True)


def merge_global_options(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with the roots (and hosts) given after the command appended to those given
    before (once: the ones after are taken out)."""
    after = vars(args).pop("roots_after", [])
    args.root = [*args.root, *after]
    args.host = [*getattr(args, "host", []), *vars(args).pop("hosts_after", [])]
    return args


def add_host_options(parser: argparse.ArgumentParser, *, command: bool) -> None:
    """``--host`` (repeatable) and ``--remote-command``: for the TUI, ``ls`` and ``status``,
    before or after the command, as `add_global_options` takes its options (``--host`` after
    the command is kept apart as ``hosts_after`` and added by `merge_global_options`)."""
    parser.add_argument(
        "--host",
        action=HostOption,
        dest="hosts_after" if command else "host",
        default=argparse.SUPPRESS if command else [],
        metavar="NAME",
        help="also read the runs of this SSH host ([user@]host or an ssh_config alias); repeatable",
    )
    parser.add_argument(
        "--remote-command",
        default=argparse.SUPPRESS if command else None,
        metavar="COMMAND",
        help="how wftop starts on the hosts (default: wftop), e.g. '~/.local/bin/wftop'",
    )


RUN_ID_VALUES: Final = {"bash": "_wftop_run_ids", "zsh": "_wftop_run_ids"}
"""How a shell completes a run id: the shell function `wftop.cli.commands.completion`
writes, set as ``complete`` on a run id argument (`add_run_id`), as shtab reads it."""
DIR_VALUES: Final = {"bash": "_shtab_compgen_dirs", "zsh": "_files -/"}
"""How a shell completes a directory (what ``shtab.DIRECTORY`` says; a test holds them equal:
importing shtab here would slow every command down)."""
FILE_VALUES: Final = {"bash": "_shtab_compgen_files", "zsh": "_files"}
"""How a shell completes a file (``shtab.FILE``)."""


def completes(action: argparse.Action, values: dict[str, str]) -> argparse.Action:
    """``action``, its value completed by a shell as ``values`` say (`wftop completion`)."""
    action.complete = values  # type: ignore[attr-defined]
    return action


def add_run_id(parser: argparse.ArgumentParser) -> None:
    """The ``RUN_ID`` argument, completed from the rows cache."""
    completes(parser.add_argument("run_id", metavar="RUN_ID"), RUN_ID_VALUES)


VALUED_TOP_OPTIONS = frozenset({"--root", "--stall-window", "--host", "--remote-command"})
"""Top-level options that take a value (the token after them is not a command)."""


class DescribedCommands:
    """What a command module adds its parser to (``add_subparsers()``'s result, wrapped):
    each command's ``--help`` opens with the line ``wftop --help`` lists it by."""

    def __init__(self, subparsers: Any) -> None:
        self.subparsers = subparsers

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        line = kwargs.get("help")
        if line and "description" not in kwargs:
            kwargs["description"] = line[:1].upper() + line[1:].rstrip(".") + "."
        kwargs.setdefault("formatter_class", Formatter)
        parser: argparse.ArgumentParser = self.subparsers.add_parser(name, **kwargs)
        return parser


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as argparse makes it (`terminal_columns` less 2),
    measured without `shutil`: argparse makes a formatter for every option added, and the
    first imports `shutil` and with it bz2, lzma and zlib (2 ms of every command's start)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def terminal_columns() -> int:
    """`shutil.get_terminal_size`'s columns: ``$COLUMNS`` when it is a positive number, else
    the width of the terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    stream = sys.__stdout__
    if columns <= 0 and stream is not None:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):  # not a terminal, or no descriptor
            columns = 0
    return columns if columns > 0 else 80


def top_parser() -> argparse.ArgumentParser:
    """The ``wftop`` parser with its top-level options and no command yet."""
    parser = argparse.ArgumentParser(
        formatter_class=Formatter,
        prog="wftop",
        description="Watch Claude Code Workflow runs, find the dead ones, resume them. "
        "Without a command, opens the TUI. Global options go before or after the command.",
    )
    parser.add_argument("--version", action=VersionAction, nargs=0, help="print the version")
    add_global_options(parser, command=False)
    add_host_options(parser, command=False)
    return parser


def run_command(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, with Ctrl-C as exit 130 and a closed stdout (``| head``) as no error."""
    try:
        return run(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_OK


def config_or_exit() -> Config | None:
    """The config file's settings, or None after printing why it cannot be used."""
    from wftop.core.config import ConfigError, load_config

    try:
        return load_config()
    except ConfigError as error:
        from wftop.cli.output import fail

        fail(str(error))
        return None


def roots_or_exit(args: argparse.Namespace, *, first_run: bool = False) -> list[str] | None:
    """The roots to read, or None after printing why one cannot be used.

    Every ``--root`` must be readable. The default root may be missing when
    ``--root`` dirs are given (a machine that never ran Claude Code itself). ``first_run``:
    the default root alone and missing is no roots, not an error (a status bar).
    """
    from wftop.core.read.roots import NoDefaultRoot, RootError, check_root, resolve_roots

    merge_global_options(args)  # a command line parsed without `wftop.cli.main.parse`
    explicit = resolve_roots(args.root, include_default=False)
    roots = resolve_roots(args.root, include_default=not args.no_default_root)
    usable = []
    for root in roots:
        try:
            check_root(root, default=root not in explicit)
        except NoDefaultRoot as error:
            if explicit:
                continue
            if first_run:
                return []
            from wftop.cli.output import fail

            fail(str(error))
            return None
        except RootError as error:
            if root in explicit or not explicit:
                from wftop.cli.output import fail

                fail(str(error))
                return None
            continue
        usable.append(root)
    return usable
