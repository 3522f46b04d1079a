"""The exact forecast is what the real CLI then does, on every dead or failed tree of the corpus.

Each tree is copied into the CLI's config dir, as if it were the user's own (its paths moved
to the copy's), and aged past the guard's quiet window. A rehearsal (`rehearse`) predicts the
resume; then ``wftop resume --yes`` runs the real one against the mock. The calls the
rehearsal served from cache are exactly the ones the real resume served; the instant forecast
called none of the re-run calls cached; and the rehearsal wrote nothing in the user's tree.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.corpus import own_session_ids, tree
from tests.procfs import ProcFs
from wftop.core.forecast.fates import Forecast
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Run
from wftop.core.read.snapshot import read_snapshot
from wftop.core.resume.plan import make_plan
from wftop.core.resume.where import project_slug
from wftop.core.system.procs import FakeProcessTable
from wftop.mockapi.cliproc import CliHome, cli_env
from wftop.mockapi.rehearsal import rehearse
from wftop.mockapi.scenario import age_tree
from wftop.mockapi.server import MockAPI

pytestmark = pytest.mark.realcli

TREES = [
    "killed",
    "killed-in-parallel",
    "api-errors-429",
    "mid-failure",
    "2.1.146-killed",
    "2.1.146-mid-failure",
    "2.1.207-killed",
    "2.1.207-mid-failure",
    "2.1.246-mid-failure",
    "2.1.265-killed",
    "2.1.265-mid-failure",
]
"""Every dead or failed tree of the corpus (``clean`` completed; the ``-resumed`` trees are the
real CLI's resumes of these)."""
STRATEGIES = ["resume-owner", "surgical"]


def place(name: str, home: CliHome) -> None:
    """Copy a corpus tree into ``home``: its projects under the config dir, every path that
    named the tree's own home and working dir rewritten to ``home``'s, its sessions given
    ids of their own."""
    source = tree(name)
    (run,) = scan_roots([str(source)], processes=FakeProcessTable()).runs
    assert run.cwd is not None
    old_root, new_root = os.path.dirname(run.cwd), str(home.root)
    old_slug, new_slug = project_slug(run.cwd), project_slug(str(home.cwd))
    for path in sorted((source / "projects").rglob("*")):
        parts = list(path.relative_to(source / "projects").parts)
        parts[0] = new_slug if parts[0] == old_slug else parts[0]
        target = home.projects.joinpath(*parts)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes().replace(old_root.encode(), new_root.encode()))
    own_session_ids(home.config_dir)  # a claude resumes it: under ids no other copy has
    age_tree(home.root, 300.0)


def digest(root: Path) -> str:
    """Every file under ``root``: its path, bytes and modification time."""
    sha = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        sha.update(f"{path.relative_to(root)}\0{path.stat().st_mtime_ns}\0".encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()


@dataclass(frozen=True)
class Proof:
    run: Run
    instant: Forecast
    rehearsed: Forecast
    served: set[str]
    """Labels of the journal's calls the real resume served from cache."""
    seconds: float
    """How long the rehearsal took."""


def wftop(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "wftop.cli", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


def rehearse_then_resume(
    claude: str,
    mock: MockAPI,
    home: CliHome,
    work: Path,
    strategy: str,
    env_extra: dict[str, str] | None = None,
) -> Proof:
    """Rehearse the resume of the one run under ``home``, then run the real one (both in an
    environment with ``env_extra`` set)."""
    (run,) = scan_roots([str(home.config_dir)], processes=ProcFs()).runs
    plan = make_plan(run, processes=ProcFs(), now=time.time(), strategy=strategy, claude_bin=claude)
    assert plan.verdict.ok, plan.verdict.reason
    before = digest(home.root)
    work.mkdir(exist_ok=True)
    environ = {**os.environ, **(env_extra or {})}
    rehearsal = rehearse(plan, claude, workdir=str(work), environ=environ)
    assert digest(home.root) == before, "the rehearsal wrote in the user's tree"
    env = {**cli_env(home, mock.url, env_extra), "WFTOP_STATE_DIR": str(work / "state")}
    root = str(home.config_dir)
    args = ["--yes", "--json", "--no-default-root", "--root", root, "--strategy", strategy]
    done = wftop(env, "resume", run.run_id, *args, "--claude", claude)
    assert done.returncode == 0, done.stdout + done.stderr
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["state"] == "completed"
    resumed = home.projects / project_slug(str(home.cwd)) / last["session_id"] / "workflows"
    snapshot, _ = read_snapshot(str(resumed / f"{run.run_id}.json"))
    assert snapshot is not None
    agents = {row.agent_id for row in snapshot.rows if row.cached}
    served = {call.label for call in run.fold.ordered_calls() if call.result_agent_id in agents}
    return Proof(run, plan.forecast, rehearsal.forecast, served, rehearsal.seconds)


def check(proof: Proof, case: str) -> None:
    print(f"rehearsal {case}: {proof.seconds:.2f} s, cached {sorted(proof.rehearsed.cached)}")
    assert proof.rehearsed.exact and proof.rehearsed.at_risk == []
    assert set(proof.rehearsed.cached) == proof.served
    assert set(proof.instant.cached) <= proof.served, "the instant forecast was optimistic"
    assert proof.served <= set(proof.instant.cached) | set(proof.instant.at_risk)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", TREES)
def test_the_rehearsal_serves_from_cache_what_the_real_resume_does(
    claude_bin, mock_api, cli_home, tmp_path, name, strategy
):
    place(name, cli_home)
    proof = rehearse_then_resume(claude_bin, mock_api, cli_home, tmp_path / "work", strategy)
    check(proof, f"{name} {strategy}")
