"""Make ``tests/data/costs`` again: a run of ``six.js`` by the real CLI against the mock, with
a different usage per agent, killed while ``a5`` is in flight.

    python -m tests.make_costs [--workdir DIR] [--out tests/data]

What each agent's answer reports (`USAGE`) is written to ``costs/facts.json`` beside the
tree; the tests fold the transcripts the CLI wrote and compare with sums written by hand.
``a2`` answers with a text block before its ``StructuredOutput``: one message the CLI writes
over two lines. ``a4`` answers as a model no price list knows.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.make_fixtures import _skip_unwanted
from tests.realcli import CliHome, cli_version, find_claude, load_script, run_workflow, six_agents
from wftop.mockapi.server import MockAPI

DATA = Path(__file__).resolve().parent / "data"
UNKNOWN_MODEL = "claude-unreleased-0"


def usage(
    input_tokens: int, output: int, read: int = 0, five: int = 0, hour: int = 0
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": five + hour,
        "cache_creation": {"ephemeral_5m_input_tokens": five, "ephemeral_1h_input_tokens": hour},
    }


USAGE = {
    "a1": usage(1200, 340, read=0, five=0, hour=15000),
    "a2": usage(800, 95, read=15000, five=2000),
    "a3": usage(50, 7, read=9000),
    "a4": usage(300, 60),
    "a5": usage(999, 99, hour=999),
}


def make(claude: str, workdir: Path, out: Path) -> dict[str, Any]:
    work = workdir / "costs"
    shutil.rmtree(work, ignore_errors=True)
    home = CliHome.create(work)
    extra: dict[str, dict[str, Any]] = {
        "a2": {"text": "Here is what I found."},
        "a4": {"model": UNKNOWN_MODEL},
        "a5": {"hang_attempts": [1]},
    }
    agents = six_agents(
        **{name: {"usage": spent, **extra.get(name, {})} for name, spent in USAGE.items()}
    )
    with MockAPI({}, log_path=work / "mock-requests.jsonl") as mock:
        run = run_workflow(
            claude,
            mock,
            home,
            load_script("six.js"),
            agents,
            kill_when_agent=("a5", 1),
            kill_after_s=1.5,
        )
    if not run.run_dir:
        raise RuntimeError(f"costs: no run (exit {run.rc})")
    target = out / "costs"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(home.projects, target / "projects", ignore=_skip_unwanted)
    facts = {
        "generated_by": "python -m tests.make_costs",
        "cli_version": cli_version(claude),
        "script": "tests/scripts/six.js",
        "killed_while": "a5",
        "usage": USAGE,
        "text_before_result": ["a2"],
        "unknown_model": {"a4": UNKNOWN_MODEL},
        "run_id": run.run_id,
        "session_id": run.session_id,
    }
    (target / "facts.json").write_text(json.dumps(facts, indent=2) + "\n")
    return facts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.make_costs", description=__doc__)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "wftop-costs")
    ap.add_argument("--out", type=Path, default=DATA)
    a = ap.parse_args(argv)
    claude = find_claude()
    if claude is None:
        print("no claude CLI: run `npm ci --prefix tests/e2e/claude-code`", file=sys.stderr)
        return 2
    a.workdir.mkdir(parents=True, exist_ok=True)
    print(json.dumps(make(claude, a.workdir, a.out), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
