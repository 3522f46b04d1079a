"""Make the trees of ``tests/data/shapes``: every shape a run leaves on disk besides the usual.

    python -m tests.make_shapes [--workdir DIR] [--out tests/data/shapes]

``script-threw`` is written by the real CLI (the pinned one, against the loopback mock): a
script whose first statement throws, before its first ``agent()``. The others are copies of
real trees (that one, and the corpus's) with files taken away, as another tool's tests lay
theirs out and as the CLI or a person leaves them: see ``tests/data/shapes/README.md``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from tests.corpus import CORPUS
from tests.realcli import CliHome, cli_version, find_claude, run_workflow
from wftop.mockapi.server import MockAPI

SHAPES = Path(__file__).resolve().parent / "data" / "shapes"

THREW = """export const meta = {
  name: 'ds-pipeline',
  description: 'Sweep the data sets in batches (it needs args: without them it throws)',
  phases: [{ title: 'Sweep' }],
}
phase('Sweep')
const batches = args.batches
return await parallel(batches.map(b => () => agent('[[agent:a1]] sweep ' + b, { label: b })))
"""
"""Throws at its first statement without ``args`` (the CLI's own message: ``undefined is not
an object (evaluating 'args.batches')``), as claude-code-log's ``wf_fail01`` fixture does."""


def _skip_memory(directory: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "memory"]


def copy(source: Path, target: Path) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source / "projects", target / "projects", ignore=_skip_memory)
    return target


def script_threw(claude: str, workdir: Path, out: Path) -> dict[str, str]:
    home = CliHome.create(workdir / "script-threw")
    with MockAPI({}) as mock:
        run = run_workflow(claude, mock, home, THREW, {"a1": {"result": "swept"}})
    if run.rc != 0 or run.run_dir is None:
        raise RuntimeError(f"script-threw: the CLI exited {run.rc} without a run")
    copy(home.config_dir, out / "script-threw")
    return {"run_id": run.run_id or "", "session_id": run.session_id or ""}


def derive(out: Path) -> None:
    """The shapes made by taking files away from real trees."""
    only = copy(out / "script-threw", out / "snapshot-only")
    for folder in only.glob("projects/*/*/subagents"):
        shutil.rmtree(folder)
    for name, source in (("no-journal", "api-errors-429"), ("no-journal-dead", "killed")):
        tree = copy(CORPUS / source, out / name)
        for journal in tree.glob("projects/*/*/subagents/workflows/*/journal.jsonl"):
            journal.unlink()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.make_shapes", description=__doc__)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "wftop-shapes")
    ap.add_argument("--out", type=Path, default=SHAPES)
    args = ap.parse_args(argv)
    claude = find_claude()
    if claude is None:
        print("no claude CLI: run `npm ci --prefix tests/e2e/claude-code`", file=sys.stderr)
        return 2
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    made = script_threw(claude, args.workdir.resolve(), args.out)
    derive(args.out)
    print(json.dumps({**made, "cli_version": cli_version(claude)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
