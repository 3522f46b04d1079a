"""``wftop resume --max-usd N``: a plan whose forecast may cost more than N dollars is refused
like the guard refuses (exit 3, a ``refusal`` naming the forecast and the budget), and
``--force`` does not launch it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.corpus import tree
from tests.e2e.test_rehearsal import place
from wftop.mockapi.scenario import age_tree

RUN_ID = json.loads((tree("costs") / "facts.json").read_text())["run_id"]


def resume(cli_home, tmp_path, *extra):
    env = {**os.environ, "WFTOP_STATE_DIR": str(tmp_path / "state")}
    argv = [sys.executable, "-m", "wftop.cli", "resume", RUN_ID, "--no-default-root"]
    argv += ["--root", str(cli_home.config_dir), "--claude", "/nonexistent/claude", *extra]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


def test_a_budget_refuses_an_open_forecast_and_force_does_not_override_it(cli_home, tmp_path):
    place("costs", cli_home)
    age_tree(cli_home.root, 600)
    plain = resume(cli_home, tmp_path, "--dry-run", "--json")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert json.loads(plain.stdout)["refusal"] is None
    for extra in ([], ["--force"]):
        done = resume(cli_home, tmp_path, "--dry-run", "--json", "--max-usd", "100", *extra)
        assert done.returncode == 3, done.stderr
        plan = json.loads(done.stdout)
        refusal = plan["refusal"]
        assert plan["max_usd"] == 100
        assert "forecast" in refusal["reason"] and "$100.00 (--max-usd)" in refusal["reason"]
        assert "open-ended" in refusal["reason"] and refusal["forceable"] is False
    launched = resume(cli_home, tmp_path, "--yes", "--force", "--max-usd", "100")
    assert launched.returncode == 3, launched.stdout + launched.stderr
    assert "--force cannot override this" in launched.stdout
    assert not (tmp_path / "state" / "resume").exists() or not any(
        "launching" in path.read_text() for path in (tmp_path / "state" / "resume").glob("*")
    )


def test_a_budget_must_be_a_number_of_dollars(cli_home, tmp_path):
    done = resume(cli_home, tmp_path, "--dry-run", "--max-usd", "lots")
    assert done.returncode == 2
    assert "--max-usd: expected a number of dollars ≥ 0, got 'lots'" in done.stderr
