"""Regenerate the forecast fixtures under ``tests/data`` with the real CLI and the mock API.

    python -m tests.make_fixtures [--only NAME] [--workdir DIR] [--out tests/data]

For each fixture: run its workflow once (step 1) in ``DIR/NAME`` and export that config dir's
``projects/`` (without ``memory/`` dirs, nothing rewritten) to ``OUT/NAME/projects``.  Then, in
throwaway copies of the config dir, resume the session twice with ``claude -p --resume``: as is
(``live_default``) and after dropping the journal's ``failed`` lines (``live_healed``).  Which
sub-agents ran live is read from the mock's request log and written to ``OUT/NAME/facts.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.realcli import (
    CliHome,
    CliRun,
    cli_version,
    eight_agents,
    find_claude,
    journal_counts,
    load_script,
    resume_plain,
    run_workflow,
    six_agents,
)
from wftop.mockapi.server import MockAPI

DATA = Path(__file__).resolve().parent / "data"
FAILS_FOR_GOOD = {"errors": [429, 429, 429]}  # with CLAUDE_CODE_MAX_RETRIES=2: every try fails


@dataclass(frozen=True)
class Fixture:
    name: str
    about: str
    script: str
    agents: Callable[..., dict[str, Any]]
    failing: str
    env: dict[str, str] = field(default_factory=dict)


FIXTURES = (
    Fixture(
        "fanout-failure",
        "eight.js: b1..b8 in parallel (8 slots), then c1 (does not read them); b2 fails for good",
        "eight.js",
        eight_agents,
        "b2",
        {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "8", "CLAUDE_CODE_MAX_RETRIES": "2"},
    ),
    Fixture(
        "six-mid-failure",
        "six.js: a1, parallel(a2, a3, a4), a5 (embeds the fan results), a6; a3 fails for good",
        "six.js",
        six_agents,
        "a3",
        {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "2", "CLAUDE_CODE_MAX_RETRIES": "2"},
    ),
)


def drop_failed_lines(journal: Path) -> int:
    """Remove the ``"type": "failed"`` lines of a journal; the number removed."""
    kept, dropped = [], 0
    for raw in journal.read_text().splitlines(keepends=True):
        try:
            failed = json.loads(raw).get("type") == "failed"
        except ValueError:
            failed = False
        dropped += failed
        if not failed:
            kept.append(raw)
    journal.write_text("".join(kept))
    return dropped


def _skip_unwanted(directory: str, names: list[str]) -> list[str]:
    """copytree filter: no ``memory/`` dirs, no sockets or other special files."""
    base = Path(directory)
    return [n for n in names if n == "memory" or not ((base / n).is_file() or (base / n).is_dir())]


def _step_facts(run: CliRun, mock: MockAPI) -> dict[str, Any]:
    errors = Counter(r["agent"] for r in mock.find(kind="agent_error", since=run.first_seq))
    snapshot = run.snapshot_path
    status = (
        json.loads(snapshot.read_text()).get("status") if snapshot and snapshot.exists() else None
    )
    return {
        "rc": run.rc,
        "final_result": run.final_result,
        "live": run.live,
        "error_responses": dict(sorted(errors.items())),
        "journal": journal_counts(run.journal_path) if run.journal_path else None,
        "snapshot_status": status,
    }


def _measure_resume(
    claude: str, fx: Fixture, source: CliHome, run: CliRun, heal: bool, scratch: Path
) -> dict[str, Any]:
    """Resume a throwaway copy of ``source`` (healed or not); what ran live."""
    copy = CliHome.create(scratch / ("healed" if heal else "default"), cwd=source.cwd)
    shutil.copytree(source.config_dir, copy.config_dir, dirs_exist_ok=True, ignore=_skip_unwanted)
    assert run.run_dir and run.script_path and run.journal_path

    def relocate(path: Path) -> Path:
        return copy.config_dir / path.relative_to(source.config_dir)

    dropped = drop_failed_lines(relocate(run.journal_path)) if heal else 0
    with MockAPI({}, log_path=copy.root / "mock-requests.jsonl") as mock:
        resumed = resume_plain(
            claude,
            mock,
            copy,
            run.session_id,
            run.run_id,
            relocate(run.script_path),
            agents=fx.agents(),
            env_extra=fx.env,
        )
    if resumed.rc != 0:
        raise RuntimeError(f"{fx.name}: resume (heal={heal}) exited {resumed.rc}")
    return {
        "live": sorted(resumed.live),
        "failed_lines_dropped": dropped,
        "final_result": resumed.final_result,
        "journal_after": journal_counts(relocate(run.journal_path)),
    }


def make_fixture(claude: str, fx: Fixture, workdir: Path, out: Path) -> dict[str, Any]:
    work = workdir / fx.name
    shutil.rmtree(work, ignore_errors=True)
    home = CliHome.create(work)
    agents = fx.agents(**{fx.failing: FAILS_FOR_GOOD})
    with MockAPI({}, log_path=work / "mock-requests.jsonl") as mock:
        run = run_workflow(claude, mock, home, load_script(fx.script), agents, env_extra=fx.env)
        step1 = _step_facts(run, mock)
    if run.rc != 0 or not run.run_dir:
        raise RuntimeError(f"{fx.name}: step 1 exited {run.rc} without a run")
    target = out / fx.name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(home.projects, target / "projects", ignore=_skip_unwanted)
    with tempfile.TemporaryDirectory(prefix=f"{fx.name}-", dir=workdir) as scratch:
        default = _measure_resume(claude, fx, home, run, False, Path(scratch))
        healed = _measure_resume(claude, fx, home, run, True, Path(scratch))
    assert run.session_dir is not None
    facts = {
        "fixture": fx.name,
        "about": fx.about,
        "generated_by": "python -m tests.make_fixtures",
        "cli_version": cli_version(claude),
        "script": f"tests/scripts/{fx.script}",
        "env": fx.env,
        "failing_agent": fx.failing,
        "mock_agents": {fx.failing: FAILS_FOR_GOOD},
        "session_id": run.session_id,
        "run_id": run.run_id,
        "project_dir": run.session_dir.parent.name,
        "step1": step1,
        "live_default": default["live"],
        "live_healed": healed["live"],
        "resume_default": default,
        "resume_healed": healed,
    }
    (target / "facts.json").write_text(json.dumps(facts, indent=2) + "\n")
    return facts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.make_fixtures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--only", action="append", choices=[f.name for f in FIXTURES])
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "wftop-fixtures")
    ap.add_argument("--out", type=Path, default=DATA)
    a = ap.parse_args(argv)
    claude = find_claude()
    if claude is None:
        hint = "no claude CLI: run `npm ci --prefix tests/e2e/claude-code` or set WFTOP_CLAUDE"
        print(hint, file=sys.stderr)
        return 2
    a.workdir.mkdir(parents=True, exist_ok=True)
    for fx in FIXTURES:
        if a.only and fx.name not in a.only:
            continue
        facts = make_fixture(claude, fx, a.workdir.resolve(), a.out.resolve())
        summary = {k: facts[k] for k in ("fixture", "live_default", "live_healed")}
        print(json.dumps({**summary, "step1": facts["step1"]["journal"]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
