"""End to end: the TUI's plan resumes a killed run with the real CLI against the mock, to the
end; `enter` pressed again on the still-open plan sends the mock nothing and starts nothing."""

from __future__ import annotations

import json
import time

import pytest

from tests.e2e.test_resume_e2e import damaged_run
from tests.realcli import cli_env, six_agents
from tests.tui_kit import finished, settle
from wftop.core.config import Config
from wftop.core.resume.policy import ResumePolicy
from wftop.core.resume.store import ResumeStore
from wftop.core.system.procs import default_table
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.start import make_app

pytestmark = pytest.mark.realcli


async def until(pilot, condition, seconds: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        await pilot.pause(0.05)


async def open_plan(pilot) -> ResumePlanScreen:  # type: ignore[no-untyped-def]
    """``r`` on the first run, once the list is settled; the plan screen once it has a plan."""
    await settle(pilot)
    await pilot.press("r")
    screen = pilot.app.screen
    assert isinstance(screen, ResumePlanScreen)
    await until(pilot, lambda: screen.plan is not None, 60)
    return screen


async def test_enter_on_the_plan_of_a_finished_real_resume_sends_nothing(
    claude_bin, mock_api, cli_home, tmp_path
):
    agents = six_agents(a5={"delay_s": [120.0, 0.1]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    state = tmp_path / "state"
    table = default_table()
    policy = ResumePolicy(
        processes=table,
        clock=time.time,
        store=ResumeStore(state),
        claude_bin=claude_bin,
        environ=cli_env(cli_home, mock_api.url),
    )
    app = make_app(
        [str(cli_home.config_dir)],
        config=Config(bell=False),
        processes=table,
        live=False,
        policy=lambda: policy,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_plan(pilot)
        assert screen.plan is not None and screen.plan.verdict.ok, screen.plan.verdict
        mark = mock_api.mark()
        await pilot.press("enter")
        await until(pilot, lambda: screen.after is not None, 180)
        assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
        verdict = str(screen.query_one("#verdict").render())
        assert verdict.startswith("outcome  completed"), verdict
        assert "completed · nothing to resume" in verdict
        # what was forecast (a5 and a6 live), then what happened: never a forecast made again
        # of the finished run (0 live, every call from cache) as if it were the forecast
        body = str(screen.query_one("#plan").render())
        happened = str(screen.query_one("#progress").render())
        assert body.startswith("forecast made before the launch"), body
        assert "0 live" not in body
        assert happened.lstrip().startswith("what happened") and "live: a5, a6" in happened
        log = (state / "resume" / f"{killed.run_id}.jsonl").read_text().splitlines()
        spawned = [line for line in log if json.loads(line).get("event") == "spawned"]
        launches = sorted((state / "launches").rglob("*.status.json"))
        after = mock_api.mark()
        await pilot.press("enter")
        await pilot.pause(3.0)
        await finished(app)
        assert mock_api.mark() == after, "the mock got a request after the second enter"
        assert sorted((state / "launches").rglob("*.status.json")) == launches
        log_again = (state / "resume" / f"{killed.run_id}.jsonl").read_text().splitlines()
        assert [line for line in log_again if '"spawned"' in line] == spawned
        assert len(spawned) == 1
