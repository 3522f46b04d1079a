"""``wftop demo``: watch wftop resume a real Workflow run that was killed mid-flight.

With the real ``claude`` CLI (``$WFTOP_CLAUDE`` or PATH): the built-in mock Messages API
starts on 127.0.0.1, the CLI runs a Workflow with a ``parallel()`` fan-out against it in a
temporary config dir, is killed with SIGKILL while an agent is in flight, and the TUI opens on
that dir with a banner; ``r`` then ``enter`` resumes it for real (see ``wftop.mockapi.livedemo``).

Without the CLI (or with ``--bundled``, or under ``--read-only``): browse real trees bundled
with wftop, read-only. Without a terminal: print the run table of the bundled trees and exit,
unless ``--no-tui`` asks for the live demo printed as text.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wftop.cli.options import EXIT_OK, merge_global_options, run_command, top_parser
from wftop.cli.output import fail
from wftop.core.text.gate import shown
from wftop.mockapi import BUNDLED

if TYPE_CHECKING:
    from wftop.tui.app import WftopApp


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo", help="kill a real run against a built-in mock API and resume it (offline)"
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="run the live demo headless: print the run table and the resume plan",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --no-tui: also resume the run (as `wftop resume --yes`) and print the outcome",
    )
    parser.add_argument(
        "--bundled", action="store_true", help="browse the bundled trees only (no claude needed)"
    )
    parser.set_defaults(command="demo")


def find_cli() -> str | None:
    from wftop.mockapi.cliproc import find_claude

    return find_claude()


def say(text: str) -> None:
    print(f"wftop demo: {shown(text)}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    claude = None if args.bundled or args.read_only else find_cli()
    live = claude is not None and (args.no_tui or sys.stdout.isatty())
    if not live:
        return bundled(args)
    assert claude is not None
    from wftop.mockapi.cliproc import RealCliError
    from wftop.mockapi.livedemo import live_demo

    try:
        with live_demo(claude, say) as demo:
            say(f"a dead run on disk after {demo.seconds:.1f} s")
            if args.no_tui:
                return headless(demo, resume=args.resume)
            return interactive(demo, args)
    except RealCliError as error:
        first = (str(error).splitlines() or [""])[0]
        fail(f"demo: the claude CLI did not behave as expected: {first}")
        fail("run `wftop drill` to check the installed CLI against wftop")
        return 1


def headless(demo: Any, *, resume: bool) -> int:
    from wftop.cli.commands.ls import table
    from wftop.cli.commands.resume import describe
    from wftop.core.index.coldpass import scan_roots
    from wftop.mockapi.livedemo import environment, headless_plan

    print(table(scan_roots([demo.root]).runs, time.time()))
    plan = headless_plan(demo)
    if plan is None:
        fail("demo: the killed run is not on disk")
        return 1
    if not resume:
        print(describe(plan))
        return EXIT_OK
    from wftop.cli.commands import resume as resume_command

    with environment(demo.env):
        code = run_command(resume_command.run, resume_args(demo))
    live = ", ".join(demo.live_since_kill()) or "-"
    print(f"mock: sub-agents run live by the resume: {shown(live)}")
    print(table(scan_roots([demo.root]).runs, time.time()))
    return code


def resume_args(demo: Any) -> argparse.Namespace:
    """``wftop resume <the killed run> --no-default-root --root <demo root> --yes``, parsed."""
    from wftop.cli.commands import resume as resume_command

    parser = top_parser()
    resume_command.add_parser(parser.add_subparsers(dest="command"))
    run_id = demo.killed.run_id
    argv = ["resume", run_id, "--no-default-root", "--root", demo.root, "--yes"]
    return merge_global_options(parser.parse_args(argv))


def banner(demo: Any) -> str:
    return (
        f"A real claude {demo.version} ran the Workflow mock-six against a mock API on "
        f"{demo.mock.url}. While a5 was in flight the CLI was killed (SIGKILL of its "
        "process group): a1–a4 had finished, a5 never returned, a6 never started. "
        "File times were moved back 5 min, past the resume guard's 60 s window.\n"
        "Press r on the dead run, then enter: the CLI replays a1–a4 from its journal and "
        "runs only a5 and a6 live. q quits and removes the demo dir."
    )


def interactive(demo: Any, args: argparse.Namespace) -> int:
    from wftop.mockapi.livedemo import environment

    with environment(demo.env):
        app = demo_app(demo.root, banner(demo))
        app.run(mouse=not args.no_mouse)
    live = demo.live_since_kill()
    if live:
        ran = shown(", ".join(live))
        print(f"wftop demo: the resume ran live: {ran} (a1–a4 came from the journal)")
    return int(app.return_code or 0)


def demo_app(root: str, message: str) -> WftopApp:
    """The wftop app over ``root``, which shows ``message`` once it is up."""
    from wftop.core.config import Config
    from wftop.tui.start import make_app

    return make_app([root], config=Config(), banner=("wftop demo: what just happened", message))


def why_read_only(args: argparse.Namespace) -> tuple[str, str]:
    """(the banner, what r says) of the bundled demo: why nothing can be resumed, said
    first (a toast shows two lines of its text)."""
    shown = "real runs bundled with wftop, written by the real claude CLI against its mock API."
    if args.read_only:
        return f"Read-only (--read-only): {shown}", "The demo was started with --read-only."
    if args.bundled:
        return f"Read-only (--bundled only browses them): {shown}", (
            "wftop demo --bundled only browses the bundled runs."
        )
    return (
        "Read-only: no claude CLI to resume with. Full demo: npm install -g "
        f"@anthropic-ai/claude-code (or WFTOP_CLAUDE). These are {shown}",
        "The demo has no claude CLI to resume with (it browses runs bundled with wftop); "
        "install Claude Code for the full demo.",
    )


def bundled(args: argparse.Namespace) -> int:
    """Browse the bundled real trees, copied to a temporary dir removed on exit."""
    from wftop.mockapi.scenario import age_tree

    with tempfile.TemporaryDirectory(prefix="wftop-demo-") as temp:
        roots = []
        for tree in sorted(BUNDLED.iterdir()):
            if (tree / "projects").is_dir():
                target = Path(temp) / tree.name
                shutil.copytree(tree, target)
                age_tree(target, 3600)
                roots.append(str(target))
        banner, reason = why_read_only(args)
        if args.no_tui or not sys.stdout.isatty():
            from wftop.cli.commands.ls import table
            from wftop.core.index.coldpass import scan_roots

            print(table(scan_roots(roots).runs, time.time()))
            return 0
        from wftop.tui.start import make_app

        app = make_app(
            roots,
            read_only=True,
            banner=("wftop demo: read-only", banner),
            read_only_reason=reason,
        )
        app.run(mouse=not args.no_mouse)
        return int(app.return_code or 0)
