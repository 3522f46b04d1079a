"""The resume policy, request by request, with a fake launcher, process table and clock.

No test here starts a process, reads this machine's processes or runs a ``claude`` it did
not choose: the launcher is `tests.policy_kit.FakeLauncher`, the table is plain data.
"""

from __future__ import annotations

import json

import pytest

from tests.corpus import copy_tree
from tests.policy_kit import NOW, SESSION, make_world, policy_for
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.guard import NOTHING_TO_RESUME
from wftop.core.resume.launcher import Strategy
from wftop.core.resume.machine import ResumeState
from wftop.core.resume.request import what_is_left
from wftop.core.system.procs import FakeProcess, FakeProcessTable


def the_run(root, table=None):
    (run,) = scan_roots([str(root)], processes=table or FakeProcessTable(), now=lambda: NOW).runs
    return run


@pytest.fixture
def world(tmp_path):
    return make_world(tmp_path)


def kinds(events):
    return [event.kind for event in events]


def test_a_resume_runs_to_completion_and_leaves_nothing_to_resume(world):
    policy, launcher, asked = policy_for(world)
    plan = policy.plan(the_run(world.root))
    assert plan.verdict.ok and plan.strategy is Strategy.RESUME_OWNER
    request, events = policy.start(plan)
    assert events == [] and request.in_flight and len(launcher.launches) == 1
    assert launcher.argvs[0][:4] == [str(world.claude), "-p", "--resume", SESSION]
    launcher.complete(str(world.journal))
    done = list(policy.follow(request))
    assert [e.data.get("state") for e in done] == ["running", "completed", "completed"]
    assert done[-1].data["live"] == ["a5", "a6"]
    after = policy.after(request)
    assert after is not None and what_is_left(after) == "completed · nothing to resume"
    assert asked == [str(world.claude)]  # asked once, of the binary the policy was given


def test_resume_owner_without_a_conversation_falls_back_to_relocate(world):
    policy, launcher, _ = policy_for(world)
    request, _ = policy.start(policy.plan(the_run(world.root), Strategy.RESUME_OWNER))
    launcher.no_conversation(SESSION)
    events = policy.step(request)
    assert [e.data.get("state") for e in events] == ["launch_failed"]
    assert "No conversation found with session ID" in events[0].data["reason"]
    assert len(launcher.launches) == 2 and request.plan.strategy is Strategy.RELOCATE
    new_session = request.plan.session_id
    assert launcher.argvs[1][2:4] == ["--session-id", new_session] and new_session != SESSION
    copy = request.plan.target_journal
    assert copy is not None
    with open(copy, "rb") as handle:
        assert handle.read() == world.journal.read_bytes()
    launcher.complete(copy)
    done = list(policy.follow(request))
    assert request.state is ResumeState.COMPLETED
    assert done[-1].data["session_id"] == new_session


def test_the_fallback_is_capped_at_two_launches(world):
    policy, launcher, _ = policy_for(world)
    request, _ = policy.start(policy.plan(the_run(world.root), Strategy.RESUME_OWNER))
    launcher.no_conversation(SESSION)
    policy.step(request)
    launcher.no_conversation(request.plan.session_id)
    events = list(policy.follow(request))
    assert request.ended and request.state is ResumeState.LAUNCH_FAILED
    assert len(launcher.launches) == 2
    assert kinds(events) == ["state", "done"]


def test_a_launch_failure_of_another_kind_does_not_fall_back(world):
    policy, launcher, _ = policy_for(world)
    request, _ = policy.start(policy.plan(the_run(world.root), Strategy.RESUME_OWNER))
    launcher.last.log_path.write_bytes(b"Error: something else\n")
    from tests.policy_kit import end

    end(launcher.last, exit_code=2)
    list(policy.follow(request))
    assert request.state is ResumeState.LAUNCH_FAILED and len(launcher.launches) == 1


def test_stop_on_miss_stops_the_relaunch_at_the_first_cache_miss(world):
    policy, launcher, _ = policy_for(world)
    plan = policy.plan(the_run(world.root))
    assert "a2" in plan.forecast.cached
    request, _ = policy.start(plan)
    launcher.started()
    with open(world.journal, "a") as handle:
        handle.write('{"type":"started","key":"v2:x","agentId":"ax0000000000001","label":"a2"}\n')
    events = policy.step(request, stop_on_miss=True)
    assert events[0].data == {"event": "cache_miss", "label": "a2"}
    assert request.state is ResumeState.STOPPED and request.ended
    assert kinds(events) == ["cache_miss", "state", "done"]


def test_a_miss_without_stop_on_miss_is_reported_and_the_run_goes_on(world):
    policy, launcher, _ = policy_for(world)
    request, _ = policy.start(policy.plan(the_run(world.root)))
    launcher.started()
    with open(world.journal, "a") as handle:
        handle.write('{"type":"started","key":"v2:x","agentId":"ax0000000000001","label":"a2"}\n')
    events = policy.step(request)
    assert {"event": "cache_miss", "label": "a2"} in [e.data for e in events]
    assert request.in_flight and request.misses == ["a2"]


def test_a_completed_run_has_nothing_to_resume_even_forced(tmp_path):
    root = copy_tree("clean", tmp_path)
    world = make_world(tmp_path / "w")
    policy, launcher, _ = policy_for(world)
    run = the_run(root)
    plan = policy.plan(run)
    assert plan.verdict.reason == NOTHING_TO_RESUME
    assert not plan.verdict.allows(force=True)
    assert what_is_left(plan) == "completed · nothing to resume"
    request, events = policy.start(plan, force=True)
    assert request.state is ResumeState.BLOCKED and kinds(events) == ["refused"]
    assert launcher.launches == []
    fresh = policy.plan(run, Strategy.FRESH)
    assert fresh.verdict.reason != NOTHING_TO_RESUME


def test_the_guard_runs_again_at_launch_a_live_owner_since_the_plan_launches_nothing(world):
    table = FakeProcessTable()
    policy, launcher, _ = policy_for(world, table)
    plan = policy.plan(the_run(world.root, table))
    assert plan.verdict.ok
    (world.root / "sessions").mkdir()
    entry = {"pid": 4242, "sessionId": SESSION, "procStart": "777"}
    (world.root / "sessions" / "4242.json").write_text(json.dumps(entry))
    table.processes[4242] = FakeProcess("777")
    request, events = policy.start(plan)
    assert launcher.launches == []
    assert request.state is ResumeState.BLOCKED
    assert events[0].data == {"event": "refused", "guard": request.reason}
    assert "live owner: pid 4242" in request.reason
    assert "kill 4242" in request.plan.verdict.fix


def test_the_guard_runs_again_at_launch_a_run_finished_since_the_plan_launches_nothing(world):
    policy, launcher, _ = policy_for(world)
    plan = policy.plan(the_run(world.root))
    first, _ = policy.start(plan)
    launcher.complete(str(world.journal))
    list(policy.follow(first))
    again, events = policy.start(plan)  # the stale plan, confirmed again
    assert len(launcher.launches) == 1
    assert again.state is ResumeState.BLOCKED and again.reason == NOTHING_TO_RESUME


def test_a_request_in_flight_is_followed_never_launched_twice(world):
    policy, launcher, _ = policy_for(world)
    plan = policy.plan(the_run(world.root))
    first, _ = policy.start(plan)
    other, other_launcher, _ = policy_for(world, launcher.table)  # another wftop, same state dir
    second, events = other.start(plan)
    assert kinds(events) == ["reattached"] and second.reattached and second.in_flight
    assert len(launcher.launches) == 1 and other_launcher.launches == []
    launcher.complete(str(world.journal))
    list(other.follow(second))
    list(policy.follow(first))  # the first follower finds the outcome already recorded
    assert first.state is second.state is ResumeState.COMPLETED


@pytest.mark.parametrize("stop_on_miss", [False, True], ids=["plain", "stop-on-miss"])
def test_a_launch_that_ended_unfollowed_is_judged_by_the_forecast_it_was_launched_with(
    world, stop_on_miss
):
    policy, launcher, _ = policy_for(world)
    first, _ = policy.start(policy.plan(the_run(world.root)))
    assert first.in_flight
    launcher.started()
    launcher.complete(str(world.journal))  # the first wftop is gone; the CLI finished alone
    other, other_launcher, _ = policy_for(world, launcher.table)
    plan = other.plan(the_run(world.root))
    assert {"a5", "a6"} <= set(plan.forecast.cached)  # the run as it reads now: completed
    request, events = other.start(plan)
    assert kinds(events) == ["reattached"]
    done = list(other.follow(request, stop_on_miss=stop_on_miss))
    assert "cache_miss" not in kinds(done)
    assert request.state is ResumeState.COMPLETED
    assert done[-1].data["live"] == ["a5", "a6"] and done[-1].data["misses"] == []
    assert len(launcher.launches) == 1 and other_launcher.launches == []


def test_stopping_a_launch_that_already_exited_records_how_it_ended(world):
    policy, launcher, _ = policy_for(world)
    request, _ = policy.start(policy.plan(the_run(world.root)))
    launcher.started()
    launcher.complete(str(world.journal))
    events = policy.stop(request)
    assert request.state is ResumeState.COMPLETED
    assert [e.data.get("state") for e in events] == ["completed", "completed"]


def test_the_recommended_strategy_is_the_one_selected(tmp_path):
    root = copy_tree("mid-failure", tmp_path)
    world = make_world(tmp_path / "w")
    policy, _, _ = policy_for(world)
    plan = policy.plan(the_run(root))
    assert plan.recommended is Strategy.SURGICAL
    assert plan.strategy is plan.recommended
    assert "failed calls: a3" in what_is_left(plan) and "surgical runs a3" in what_is_left(plan)


USAGE_LIMIT = (
    "tests/data/forensics/usage-limit/projects/-home-dev-work-usage-limit-proj/"
    "4d7f989c-3705-466a-85b5-c31fc289d372.jsonl"
)


def hit_usage_limit(world, resets_at):
    """The session's last turn ended on the CLI's own usage-limit record."""
    from datetime import UTC, datetime

    from tests.faults_kit import TOP

    line = next(raw for raw in (TOP / USAGE_LIMIT).read_text().splitlines() if "resetsAt" in raw)
    record = json.loads(line)
    record["apiErrorParams"]["rate_limit_info"]["resetsAt"] = int(resets_at)
    record["timestamp"] = datetime.fromtimestamp(NOW - 700, UTC).isoformat()
    transcript = world.journal.parents[3].with_suffix(".jsonl")
    with open(transcript, "a") as handle:
        handle.write(json.dumps(record) + "\n")


def test_the_plan_says_why_the_run_stopped_and_warns_while_the_usage_limit_holds(world):
    hit_usage_limit(world, NOW + 3600)
    policy, _, _ = policy_for(world)
    cause = policy.plan(the_run(world.root)).stop_cause
    assert cause is not None and cause.cause == "usage_limit"
    assert cause.resets_at == NOW + 3600
    assert cause.warning is not None and "60 min from now" in cause.warning
    shape = cause.to_json()
    assert shape["still_there"] is True and shape["resets_at"].startswith("2096-")


def test_a_usage_limit_whose_reset_has_passed_is_no_warning(world):
    hit_usage_limit(world, NOW - 60)
    policy, _, _ = policy_for(world)
    cause = policy.plan(the_run(world.root)).stop_cause
    assert cause is not None and cause.cause == "usage_limit" and cause.warning is None


def test_a_killed_run_without_a_recorded_error_was_killed(world):
    policy, _, _ = policy_for(world)
    plan = policy.plan(the_run(world.root))
    assert plan.stop_cause is not None and plan.stop_cause.cause == "clean_or_unknown"
    assert "killed or crashed" in (plan.stop_cause.evidence or "")
    assert plan.to_json()["stop_cause"]["warning"] is None
