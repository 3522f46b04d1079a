"""Regenerate the runs bundled with wftop (``mockapi/bundled/``) with the real CLI and the mock.

    python -m tests.make_bundled [--only NAME] [--workdir DIR]

The demo without ``claude`` browses these trees. Each is one real run of ``six.js`` (a1, then
a2 a3 a4 in ``parallel()``, then a5 and a6) by the pinned CLI against the loopback mock,
named after what happened to it (the script's ``meta.name``) and launched from a working
directory of that name (the run's project), so the list says which scenario each row is:

* ``clean``: ``clean-run`` runs to its end;
* ``killed``: ``killed-mid-run``, its process group killed (SIGKILL) while a5 is in flight;
* ``killed-in-parallel``: ``killed-in-parallel``, killed while a3 hangs inside the fan-out,
  after a2 and a4 returned;
* ``mid-failure``: ``failed-agent``, a3 fails for good (429 three times, two retries); the
  run completes with that call failed (``partial``).

Only the config dir's ``projects/`` is kept (no ``memory/`` dirs), nothing rewritten. Session,
run and agent ids change on every regeneration; the statuses and the dead calls do not.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.make_fixtures import FAILS_FOR_GOOD, _skip_unwanted
from tests.realcli import CliHome, find_claude, run_workflow, six_agents
from wftop.mockapi import BUNDLED, load_script
from wftop.mockapi.server import MockAPI

HANGS = {"delay_s": 120}
"""An agent that is still in flight when the run is killed."""


@dataclass(frozen=True)
class Scenario:
    folder: str
    name: str
    agents: dict[str, Any]
    kill: tuple[str, int] | None = None
    kill_after_s: float = 0.0
    env: dict[str, str] = field(default_factory=dict)


SCENARIOS = (
    Scenario("clean", "clean-run", six_agents()),
    Scenario("killed", "killed-mid-run", six_agents(a5=HANGS), ("a5", 1), 0.5),
    Scenario("killed-in-parallel", "killed-in-parallel", six_agents(a3=HANGS), ("a3", 1), 1.5),
    Scenario(
        "mid-failure",
        "failed-agent",
        six_agents(a3=FAILS_FOR_GOOD),
        env={"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "2", "CLAUDE_CODE_MAX_RETRIES": "2"},
    ),
)


def script_named(name: str) -> str:
    text = load_script()
    assert "name: 'mock-six'" in text
    return text.replace("name: 'mock-six'", f"name: '{name}'", 1)


def make(claude: str, scenario: Scenario, workdir: Path, out: Path) -> str:
    work = workdir / "cli" / scenario.folder
    shutil.rmtree(work, ignore_errors=True)
    home = CliHome.create(work, cwd=workdir / scenario.folder)
    with MockAPI({}, log_path=work / "mock-requests.jsonl") as mock:
        run = run_workflow(
            claude,
            mock,
            home,
            script_named(scenario.name),
            scenario.agents,
            kill_when_agent=scenario.kill,
            kill_after_s=scenario.kill_after_s,
            env_extra=scenario.env,
        )
    target = out / scenario.folder / "projects"
    shutil.rmtree(target.parent, ignore_errors=True)
    shutil.copytree(home.projects, target, ignore=_skip_unwanted)
    return f"{scenario.folder}: {scenario.name} {run.run_id} rc={run.rc} killed={run.killed}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=[s.folder for s in SCENARIOS])
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "wftop-demo")
    parser.add_argument("--out", type=Path, default=BUNDLED)
    args = parser.parse_args(argv)
    claude = find_claude()
    if claude is None:
        print("no claude CLI: npm ci --prefix tests/e2e/claude-code", file=sys.stderr)
        return 2
    for scenario in SCENARIOS:
        if args.only in (None, scenario.folder):
            print(make(claude, scenario, args.workdir, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
