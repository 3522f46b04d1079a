"""``wftop drill [--json]``: check the installed claude CLI against what wftop relies on.

Runs offline against the built-in loopback mock (see ``wftop.mockapi.drill``). Prints PASS/FAIL per
check with the CLI version; exits 1 when any check fails, 2 when there is no CLI.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from wftop.cli.options import FILE_VALUES, completes
from wftop.cli.output import fail, print_json
from wftop.core.text.gate import shown


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "drill", help="check the installed claude CLI keeps the contract wftop relies on"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object (for CI)")
    claude = parser.add_argument("--claude", metavar="PATH", help="the claude binary to check")
    completes(claude, FILE_VALUES)
    parser.set_defaults(command="drill")


def run(args: argparse.Namespace) -> int:
    from wftop.mockapi.cliproc import find_claude
    from wftop.mockapi.drill import drill

    claude = find_claude() if args.claude is None else args.claude
    if claude is None:
        fail("drill: no claude CLI found (install Claude Code or set WFTOP_CLAUDE)")
        return 2

    def note(text: str) -> None:
        if not args.json:
            print(f"… {shown(text)}", file=sys.stderr, flush=True)

    report = drill(claude, note)
    if args.json:
        print_json(report.to_json())
    else:
        print(shown(f"claude {report.version} ({report.cli})"))
        for check in report.checks:
            print(shown(f"{'PASS' if check.ok else 'FAIL'}  {check.name}: {check.detail}"))
        print("all checks passed" if report.ok else "some checks FAILED")
    return 0 if report.ok else 1
