"""The resume plan is a live view: pilot tests over a resumable tree, with the policy's fake
launcher (`tests.policy_kit`): no process starts, nothing reads this machine's processes."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.policy_kit import NOW, SESSION, make_world, policy_for
from tests.tui_kit import changed, finished, settle
from wftop.core.config import Config
from wftop.core.system.procs import FakeProcess, FakeProcessTable
from wftop.tui.screens.force import BudgetScreen, ForceScreen
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.start import make_app

SIZE = (110, 40)


@pytest.fixture
def world(tmp_path):
    return make_world(tmp_path)


def app_over(world, table=None, config=None):  # type: ignore[no-untyped-def]
    table = table if table is not None else FakeProcessTable()
    policy, launcher, _ = policy_for(world, table)
    app = make_app(
        [str(world.root)],
        config=config or Config(bell=False),
        processes=table,
        now=lambda: NOW,
        live=False,
        policy=lambda: policy,
    )
    return app, policy, launcher


def live_owner(world, table: FakeProcessTable) -> FakeProcessTable:  # type: ignore[no-untyped-def]
    """Pid 4242 runs the run's session (registered, and in the table)."""
    (world.root / "sessions").mkdir()
    entry = {"pid": 4242, "sessionId": SESSION, "procStart": "777"}
    (world.root / "sessions" / "4242.json").write_text(json.dumps(entry))
    table.processes[4242] = FakeProcess("777")
    return table


async def until(pilot, condition, tries: int = 1500) -> None:  # type: ignore[no-untyped-def]
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("never happened")


def verdict(screen: ResumePlanScreen) -> str:
    return str(screen.query_one("#verdict").render())


async def open_plan(pilot) -> ResumePlanScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("r")
    screen = pilot.app.screen
    assert isinstance(screen, ResumePlanScreen)
    await until(pilot, lambda: screen.plan is not None)
    await pilot.pause()
    return screen


async def test_enter_on_the_plan_of_a_finished_resume_launches_nothing(world):
    app, _policy, launcher = app_over(world)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert verdict(screen).startswith("guard  ok")
        await pilot.press("enter")
        await until(pilot, lambda: len(launcher.launches) == 1 and screen.following)
        assert "s stop the relaunch" in verdict(screen)
        await pilot.press("enter")  # while it runs: nothing more
        launcher.complete(str(world.journal))
        await until(pilot, lambda: screen.after is not None)
        text = verdict(screen)
        assert text.startswith("outcome  completed")
        assert "left     completed · nothing to resume" in text
        await pilot.press("enter")
        await pilot.pause(0.3)
        await finished(app)
        assert len(launcher.launches) == 1 and screen.launches == 1
        assert "nothing to resume" in screen.plan.verdict.reason  # type: ignore[union-attr]


def body(screen: ResumePlanScreen) -> str:
    return f"{screen.query_one('#plan').render()}\n{screen.query_one('#progress').render()}"


async def test_after_a_resume_the_plan_shows_what_was_forecast_then_what_happened(world):
    """The finished run planned again forecasts every call from cache: that is not what this
    resume was forecast to do, and it must not sit above what really ran as if it were."""
    app, _policy, launcher = app_over(world)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        forecast = screen.plan.forecast  # type: ignore[union-attr]
        assert forecast.live and "a5" in forecast.live
        await pilot.press("enter")
        await until(pilot, lambda: len(launcher.launches) == 1 and screen.following)
        launcher.complete(str(world.journal))
        await until(pilot, lambda: screen.after is not None)
        again = screen.after.forecast  # type: ignore[union-attr]
        assert list(again.live) == []  # what a plan made now would say
        changed(app, dataclasses.replace(screen.row, calls=screen.row.calls))  # plans again
        await pilot.pause(0.3)
        await finished(app)
        await pilot.pause(0.1)
        text = body(screen)
        assert text.startswith("forecast made before the launch (what happened is below it)")
        assert "0 live" not in text
        live = ", ".join(forecast.live)
        assert text.index(live) < text.index("\nwhat happened\n") < text.index("live: a5, a6")


async def test_enter_checks_the_run_again_and_a_run_finished_since_launches_nothing(world):
    app, policy, launcher = app_over(world)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert screen.plan is not None and screen.plan.verdict.ok
        # Another wftop resumed it to the end while this plan stayed open (no row change).
        other, other_launcher, _ = policy_for(world, FakeProcessTable())
        request, _ = other.start(screen.plan)
        other_launcher.complete(str(world.journal))
        list(other.follow(request))
        await pilot.press("enter")
        await until(pilot, lambda: not screen.busy and "nothing to resume" in verdict(screen))
        assert launcher.launches == [] and screen.request is None
        assert any("nothing to resume" in note.message for note in app.toasts)


async def test_a_row_change_plans_again(world):
    table = FakeProcessTable()
    app, policy, launcher = app_over(world, table)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert screen.plan is not None and screen.plan.verdict.ok
        live_owner(world, table)
        changed(app, dataclasses.replace(screen.row, owner_pid=4242))
        await until(pilot, lambda: "live owner: pid 4242" in verdict(screen))
        text = verdict(screen)
        assert "kill 4242" in text and "f force…" in text and "enter resume" not in text
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert launcher.launches == []


async def test_f_forces_past_a_forceable_refusal_after_its_own_confirmation(world):
    table = live_owner(world, FakeProcessTable())
    app, _policy, launcher = app_over(world, table)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert "live owner" in verdict(screen)
        await pilot.press("f")
        assert isinstance(app.screen, ForceScreen)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.screen is screen and launcher.launches == []
        await pilot.press("f", "y")
        await until(pilot, lambda: len(launcher.launches) == 1)
        log = (world.state / "resume" / "wf_c4e8dc39-03f.jsonl").read_text()
        assert "forced past: live owner: pid 4242" in log
        launcher.complete(str(world.journal))
        await until(pilot, lambda: screen.after is not None)


async def test_a_resume_in_flight_elsewhere_shows_its_progress_and_enter_launches_nothing(world):
    table = FakeProcessTable()
    app, policy, launcher = app_over(world, table)
    other, other_launcher, _ = policy_for(world, table)
    from tests.core.test_resume_policy import the_run

    request, _ = other.start(other.plan(the_run(world.root, table)))
    other_launcher.started()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, ResumePlanScreen)
        await until(pilot, lambda: screen.following)
        assert "s stop the relaunch" in verdict(screen)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert launcher.launches == [] and len(other_launcher.launches) == 1
        other_launcher.complete(str(world.journal))
        await until(pilot, lambda: screen.after is not None)
        assert "completed · nothing to resume" in verdict(screen)


async def test_a_refused_plan_checks_again_on_its_own(world, monkeypatch):
    import wftop.tui.screens.plan as plan_screen

    monkeypatch.setattr(plan_screen, "RECHECK_SECONDS", 0.1)
    table = live_owner(world, FakeProcessTable())
    app, _policy, launcher = app_over(world, table)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert "live owner" in verdict(screen)
        del table.processes[4242]  # the owner ends; no file changes, no row changes
        await until(pilot, lambda: verdict(screen).startswith("guard  ok"))
        assert launcher.launches == []


async def test_a_budget_in_the_config_asks_before_a_resume_that_may_cost_more(world):
    """max_usd = 0.0001: the forecast (≥ $0.0004, calls after a5 unknown) may cost more, so
    enter asks first; n keeps the plan, y resumes; the outcome and its toast say what it
    spent beside the forecast."""
    app, _policy, launcher = app_over(world, config=Config(bell=False, max_usd=0.0001))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert verdict(screen).startswith("guard  ok")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BudgetScreen))
        asked = str(app.screen.query_one("#budget").render())
        assert "the resume-owner forecast is open-ended (≥ $0.0004, calls after a5 unknown): " in (
            asked
        )
        assert "it may exceed the budget of $0.0001 (max_usd in the config)" in asked
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.screen is screen and launcher.launches == []
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BudgetScreen))
        await pilot.press("y")
        await until(pilot, lambda: len(launcher.launches) == 1)
        launcher.complete(str(world.journal))
        await until(pilot, lambda: screen.after is not None)
        spent = "(forecast ≥ $0.0004, calls after a5 unknown)"
        assert [line for line in verdict(screen).splitlines() if line.startswith("spent    ")]
        assert spent in verdict(screen)
        said = [toast.message for toast in app.toasts if toast.title == "Resume"]
        assert any(line.startswith("wf_c4e8dc39-03f: completed · spent ") for line in said)
        assert any(spent in line for line in said)


async def test_without_a_budget_enter_resumes_at_once(world):
    app, _policy, launcher = app_over(world)
    async with app.run_test(size=SIZE) as pilot:
        await open_plan(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: len(launcher.launches) == 1)
        assert not isinstance(app.screen, BudgetScreen)
