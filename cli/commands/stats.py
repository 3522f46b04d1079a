"""``wftop stats``: per run, calls started vs returned, the gaps, causes seen, and
resumes that re-ran calls which had already returned."""

from __future__ import annotations

import argparse
from typing import Any

from wftop.cli.options import EXIT_OK, EXIT_USAGE, roots_or_exit
from wftop.cli.output import fail, print_json
from wftop.core.cost.tokens import at_least, dollars, missing_note
from wftop.core.forensics.limits import cut
from wftop.core.forensics.masking import redaction_json, redaction_line
from wftop.core.forensics.stats import compute_stats
from wftop.core.model import status_word
from wftop.core.read.errors import cause_words
from wftop.core.text.gate import gate_each
from wftop.core.text.redact import Redactor, redact_tree

RETURNED, NOT_RETURNED = "●", "○"
DOTS = 40


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stats", help="started vs returned per run, gaps, causes, re-run completed calls"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(command="stats")


def dots(attempts: list[dict[str, Any]], width: int = DOTS) -> str:
    """One dot per attempt: filled when it returned."""
    marks = "".join(RETURNED if a["returned"] else NOT_RETURNED for a in attempts)
    return marks if len(marks) <= width else marks[: width - 1] + "…"


def tokens_text(tokens: dict[str, int]) -> str:
    """``1,200 in · 340 out · 15,000 cache read · 2,000 + 15,000 cache written (5 min + 1 h)``."""
    return (
        f"{tokens['input']:,} in · {tokens['output']:,} out · {tokens['cache_read']:,} cache read"
        f" · {tokens['cache_write_5m']:,} + {tokens['cache_write_1h']:,} cache written"
        " (5 min + 1 h)"
    )


def stats_text(data: dict[str, Any]) -> str:
    lines = [
        f"{'RUN':<16} {'NAME':<16} {'STATUS':<10} {'S/R':>7} {'GAPS':>4} {'RERAN':>5} "
        f"{'COST':>8} {'CAUSE':<16} ATTEMPTS ({RETURNED} returned, {NOT_RETURNED} not)"
    ]
    for run in data["per_run"]:
        parity = f"{run['started']}/{run['returned']}"
        status = status_word(run["status"], len(run["failed_calls"]))
        lines.append(
            f"{run['run_id']:<16} {cut(run['name'] or '-', 16):<16} {status:<10} "
            f"{parity:>7} {run['gaps']:>4} {run['reran_completed']:>5} "
            f"{at_least(dollars(run['cost_usd']), run['cost_is_lower_bound']):>8} "
            f"{cause_words(run['cause']):<16} {dots(run['attempts'])}"
        )
    total = data["runs"]
    twice = dollars(data["rerun_cost_usd"])
    missing, lower = data["missing_transcripts"], data["cost_is_lower_bound"]
    lines += [
        "",
        f"runs: {total}; with gaps: {data['runs_with_gaps']} of {total}",
        f"calls started: {data['started']}; returned: {data['returned']}",
        f"spent: {at_least(dollars(data['cost_usd'], data['unpriced_models']), lower)} "
        f"by the runs' calls ({tokens_text(data['tokens'])}{missing_note(missing)}); "
        f"{dollars(data['session_cost_usd'])} by their sessions' own turns",
        f"resumes that re-ran completed calls: {data['runs_that_reran_completed_calls']} runs, "
        f"{data['reran_completed_calls']} calls, {data['rerun_tokens']} tokens spent twice "
        f"({twice})",
    ]
    causes = ", ".join(f"{cause_words(cause)} ×{n}" for cause, n in data["causes"].items())
    lines.append(f"causes (runs, by their failures or else their session): {causes or '-'}")
    return gate_each(lines)


def run(args: argparse.Namespace) -> int:
    roots = roots_or_exit(args)
    if roots is None:
        return EXIT_USAGE
    stats = compute_stats(roots)
    redactor = Redactor.for_json() if args.json else Redactor()  # JSON keeps the real paths
    data = redact_tree(stats.to_json(), redactor)
    if args.json:
        data["redaction"] = redaction_json(redactor)
        print_json(data)
    else:
        print(stats_text(data))
        print(redaction_line(redactor))
    for problem in stats.problems:
        fail(redactor(str(problem)))
    return EXIT_OK
