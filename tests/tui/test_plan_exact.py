"""The TUI's resume plan: the estimate at once, then the exact forecast from a rehearsal run in
a worker (the command line's rehearsal is passed in; a fake one here)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import wftop.tui.app
from tests.corpus import copy_tree
from tests.policy_kit import NOW, SESSION, make_world, policy_for
from tests.tui.test_cache_warm_tui import warm_owner
from tests.tui.test_plan_live import SIZE, open_plan, until
from tests.tui_kit import finished
from wftop.cli.main import main
from wftop.core.config import Config
from wftop.core.forecast.exact import RehearsalFailed, Seen, exact_forecast
from wftop.core.forecast.fates import Forecast
from wftop.core.resume.plan import Plan
from wftop.core.resume.rehearse import Rehearse
from wftop.core.system.procs import FakeProcessTable
from wftop.tui.screens.plan import ResumePlanScreen
from wftop.tui.start import make_app


@pytest.mark.parametrize(
    ("config", "flags", "rehearses"),
    [("", [], True), ("", ["--read-only"], False), ("exact_forecast = false\n", [], False)],
)
def test_wftop_hands_the_tui_a_rehearsal_unless_it_is_switched_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_root: Path, config, flags, rehearses
) -> None:
    (tmp_path / "config.toml").write_text(config)
    monkeypatch.setenv("WFTOP_CONFIG", str(tmp_path / "config.toml"))
    seen = {}

    def fake_run(self, **kwargs):  # type: ignore[no-untyped-def]
        seen["rehearse"] = self.services.rehearse
        if self.pause is not None:
            self.pause.end()  # as the app's end does: the collector back on

    monkeypatch.setattr(wftop.tui.app.WftopApp, "run", fake_run)
    assert main(["--no-default-root", "--root", str(tui_root), *flags]) == 0
    assert (seen["rehearse"] is not None) is rehearses


def served_a1_only(plan: Plan, /) -> Forecast:
    fold = plan.run.fold
    agent = next(c.result_agent_id for c in fold.ordered_calls() if c.label == "a1")
    return exact_forecast(fold, plan.strategy.value, Seen(frozenset({agent}), 6, True, "2.1.332"))


class Held:
    """A rehearsal that waits until the test lets it answer (in the plan's worker thread)."""

    def __init__(self, answer: Rehearse) -> None:
        self.answer = answer
        self.go = threading.Event()
        self.asked: list[str] = []

    def __call__(self, plan: Plan, /) -> Forecast:
        self.asked.append(plan.strategy.value)
        assert self.go.wait(10)
        return self.answer(plan)


def app_with(world, rehearse: Rehearse | None):  # type: ignore[no-untyped-def]
    table = FakeProcessTable()
    policy, launcher, _ = policy_for(world, table)
    app = make_app(
        [str(world.root)],
        config=Config(bell=False),
        processes=table,
        now=lambda: NOW,
        live=False,
        rehearse=rehearse,
        policy=lambda: policy,
    )
    return app, launcher


def body(screen: ResumePlanScreen) -> list[str]:
    return str(screen.query_one("#plan").render()).split("\n")


async def test_the_plan_shows_the_estimate_then_the_rehearsed_forecast_and_launches_with_it(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    held = Held(served_a1_only)
    app, launcher = app_with(world, held)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        await until(pilot, lambda: bool(held.asked))
        await pilot.pause()
        assert "forecast  resume-owner: estimate · rehearsing with claude…" in body(screen)
        await pilot.press("j")  # the loop answers while the rehearsal runs
        assert screen.plan is not None and not screen.plan.forecast.exact
        held.go.set()
        await until(pilot, lambda: screen.plan is not None and screen.plan.forecast.exact)
        await pilot.pause()
        assert "forecast  resume-owner: exact, rehearsed with claude 2.1.332" in body(screen)
        assert screen.plan.forecast.cached == ["a1"]
        await pilot.press("enter")
        await until(pilot, lambda: screen.following)
        assert screen.request is not None and screen.request.plan.forecast.exact
        assert screen.request.watched == {"a1"}  # the tripwire follows it
        assert held.asked == ["resume-owner"]  # rehearsed once; not again at the launch
        assert len(launcher.launches) == 1


async def test_a_rehearsal_that_fails_says_why_and_the_estimate_stays(tmp_path: Path) -> None:
    def fails(plan: Plan, /) -> Forecast:
        raise RehearsalFailed("the rehearsal did not finish within 120 s (claude 2.1.332)")

    app, _ = app_with(make_world(tmp_path), fails)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        await finished(app)
        await pilot.pause()
        assert (
            "forecast  resume-owner: estimate · no exact forecast: the rehearsal did not finish"
            " within 120 s"
            " (claude 2.1.332)"
        ) in body(screen)
        assert screen.plan is not None and not screen.plan.forecast.exact


async def test_without_a_rehearsal_the_plan_says_estimate_and_the_owner_cache(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    app, _ = app_with(world, None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        await finished(app)
        lines = body(screen)
        assert "forecast  resume-owner: estimate" in lines
        session = next(n for n, line in enumerate(lines) if line.startswith("session   "))
        # the mock cached nothing; what writing the conversation again costs, beside it
        cold = "owner's cache cold (writing it again adds < $0.0001)"
        assert lines[session + 1] == f"          {cold}"


async def test_the_plan_says_how_long_the_owner_cache_stays_warm(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    warm_owner(world.root, SESSION, sent=NOW - 19 * 60, five=0, hour=4_000)
    app, _ = app_with(world, None)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        assert screen.plan is not None and screen.plan.cache_warm_until == NOW - 19 * 60 + 3600
        lines = body(screen)
        session = next(n for n, line in enumerate(lines) if line.startswith("session   "))
        assert lines[session + 1] == "          owner's cache warm for 41 min"


async def test_a_plan_nothing_can_launch_is_not_rehearsed(tmp_path: Path) -> None:
    """clean: completed with no failed call, nothing to resume (not even forced)."""
    root = copy_tree("clean", tmp_path)
    held = Held(served_a1_only)
    held.go.set()
    app = make_app(
        [str(root)], config=Config(bell=False), processes=FakeProcessTable(), live=False,
        rehearse=held,
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot)
        await finished(app)
        assert screen.plan is not None and not screen.plan.verdict.forceable
        assert held.asked == []
        assert "forecast  resume-owner: estimate" in body(screen)
