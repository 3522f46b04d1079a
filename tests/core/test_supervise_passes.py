"""The supervisor pass by pass, over copies of real runs, with a fake launcher and clock.

What it reads (why a run stopped, the guard, the resume log), what it writes (the audit log,
only what is new), how it launches (through the resume policy, one launch per run), and how
it finds itself again after it died mid-launch.
"""

from __future__ import annotations

import json

import pytest

from tests.supervise_kit import DIED, NIGHT, FakePricer, Night, network_retry
from wftop.core.resume.machine import ResumeState
from wftop.core.supervise.audit import AuditError
from wftop.core.supervise.decide import Settings, UsdRange
from wftop.core.supervise.scope import Scope
from wftop.core.supervise.supervisor import Supervisor


def restarted(night: Night) -> Supervisor:
    """Another supervisor over the same state dir, as one started after the first died."""
    first = night.supervisor
    return Supervisor(
        roots=first.roots,
        scope=first.scope,
        settings=first.settings,
        store=night.store,
        policy=night.policy,
        pricer=first.pricer,
        notifier=night.notes,
        seams=first.seams,
    )


def decisions(night: Night, name: str) -> list[tuple[str, str]]:
    run = night.run_id(name)
    return [(line.decision, line.reason) for line in night.store.audit.read() if line.run == run]


def only(name: str) -> Scope:
    return Scope(runs=(NAMES[name],))


NAMES = {"storm": "wf_44b36b23-fcc", "usage": "wf_c4e8dc39-03f", "stubborn": "wf_6838482f-c9a"}


def test_a_decision_is_written_once_until_it_changes(tmp_path):
    night = Night(tmp_path, scope=only("usage"))
    for _ in range(5):
        night.supervisor.step()
        night.clock.now += 30
    assert [word for word, _ in decisions(night, "usage")] == ["considered", "waiting"]
    assert night.launcher.launches == []


def test_the_scope_keeps_the_supervisor_to_its_runs(tmp_path):
    night = Night(tmp_path, scope=Scope(projects=("storm",)))
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert set(night.supervisor.following) == {NAMES["storm"]}
    assert decisions(night, "usage") == [] and decisions(night, "stubborn") == []


def test_runs_marked_auto_are_in_scope(tmp_path):
    night = Night(tmp_path, scope=Scope())
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert night.launcher.launches == []
    night.store.toggle(NAMES["stubborn"], str(night.roots["stubborn"]))
    night.supervisor.step()
    assert set(night.supervisor.following) == {NAMES["stubborn"]}


def test_a_dry_run_decides_and_writes_nothing(tmp_path):
    night = Night(tmp_path)
    night.clock.now = NIGHT + 600
    night.supervisor.act = False
    night.supervisor.step()
    said = {run.run_id: decision.action.value for run, decision in night.supervisor.said}
    assert said == {
        NAMES["storm"]: "launched",
        NAMES["stubborn"]: "launched",
        NAMES["usage"]: "waiting",
    }
    assert not night.store.audit.path.exists() and night.launcher.launches == []


def test_a_network_stop_waits_for_a_tcp_connection_to_the_runs_api_host(tmp_path):
    night = Night(tmp_path, scope=only("usage"), usage_limit=False)
    (night.roots["usage"] / "settings.json").write_text(
        json.dumps({"env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/v1"}})
    )
    night.replace_last_error("usage", network_retry("s", DIED["usage"], 603))
    night.reachable = False
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert night.probed == [("127.0.0.1", 9)] and night.launcher.launches == []
    assert decisions(night, "usage")[-1] == (
        "waiting",
        "network: no TCP connection to 127.0.0.1:9 yet",
    )
    night.reachable = True
    night.clock.now += 60
    night.supervisor.step()
    assert len(night.launcher.launches) == 1
    assert decisions(night, "usage")[-1][1].startswith("stopped by network, 127.0.0.1:9 answers")


def test_the_last_retry_the_cli_scheduled_is_waited_for(tmp_path):
    night = Night(
        tmp_path, scope=only("usage"), usage_limit=False, settings=Settings(max_usd=1.0, backoff=0)
    )
    late = {
        **network_retry("s", DIED["usage"], 45 * 60 * 1000),
        "error": {"message": "overloaded", "formatted": "529 Overloaded", "status": 529},
    }
    night.replace_last_error("usage", late)
    night.supervisor.step()
    (waiting,) = [line for line in night.store.audit.read() if line.decision == "waiting"]
    assert waiting.cause == "api_overload" and waiting.until == DIED["usage"] + 45 * 60


def test_without_a_cap_it_launches_nothing_and_says_what_the_forecast_is(tmp_path):
    night = Night(tmp_path, scope=only("storm"), settings=Settings())
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert night.launcher.launches == []
    (note,) = night.notes.notes
    assert note.decision == "refused" and "no cap" in note.text and "$0.0125–$0.0375" in note.text


def test_a_forecast_over_the_cap_is_refused_with_the_budgets_words(tmp_path):
    night = Night(tmp_path, scope=only("storm"), pricer=FakePricer(UsdRange(0.5, 2.0)))
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert night.launcher.launches == []
    assert decisions(night, "storm")[-1] == (
        "refused",
        "forecast $0.5000–$2.00 above the budget of $1.00",
    )


def test_the_days_cap_counts_what_the_days_launches_cost(tmp_path):
    night = Night(tmp_path, settings=Settings(max_usd=1.0, daily_usd=0.05))
    night.clock.now = NIGHT + 600
    night.supervisor.step()  # storm and stubborn: 0.0375 each, forecast high
    assert len(night.launcher.launches) == 1
    waiting = [line for line in night.store.audit.read() if line.decision == "waiting"]
    over = [line for line in waiting if "over --daily-usd $0.0500" in line.reason]
    assert [line.until for line in over] == [NIGHT + 2 * 3600]  # midnight UTC


def test_an_owner_alive_is_left_alone(tmp_path):
    from wftop.core.system.procs import FakeProcess

    night = Night(tmp_path, scope=only("storm"))
    session = night.session_transcript("storm").stem
    sessions = night.roots["storm"] / "sessions"
    sessions.mkdir()
    (sessions / "4242.json").write_text(
        json.dumps({"pid": 4242, "sessionId": session, "procStart": "777"})
    )
    night.table.processes[4242] = FakeProcess("777")
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    assert night.launcher.launches == []
    assert decisions(night, "storm")[-1][0] == "waiting"
    assert "live owner: pid 4242" in decisions(night, "storm")[-1][1]


def test_a_resume_launched_elsewhere_at_the_last_moment_is_not_launched_again(tmp_path):
    night = Night(tmp_path, scope=only("storm"))
    night.clock.now = NIGHT + 600
    supervisor = night.supervisor
    start = night.policy.start

    def someone_else_first(plan, **kwargs):  # r is pressed between the decision and the launch
        request, _events = start(plan)
        assert request.in_flight
        return start(plan, **kwargs)

    night.policy.start = someone_else_first  # type: ignore[method-assign]
    supervisor.step()
    assert len(night.launcher.launches) == 1
    assert supervisor.following == {}
    assert decisions(night, "storm")[-1][0] == "waiting"
    assert "not launched at the last check" in decisions(night, "storm")[-1][1]


def test_a_supervisor_killed_after_launching_finds_its_launch_and_never_launches_twice(tmp_path):
    night = Night(tmp_path, scope=only("storm"))
    night.clock.now = NIGHT + 600
    supervisor = night.supervisor
    append = night.store.audit.append

    def die_before_writing_launched(line):
        if line.decision == "launched":
            raise SystemExit("SIGKILL")
        append(line)

    night.store.audit.append = die_before_writing_launched  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        supervisor.step()
    assert len(night.launcher.launches) == 1
    night.store.audit.append = append  # type: ignore[method-assign]
    again = night.supervisor = restarted(night)
    again.step()
    assert set(again.following) == {NAMES["storm"]}
    night.answer("storm", fail=False)
    again.poll()
    again.step()
    assert len(night.launcher.launches) == 1
    words = decisions(night, "storm")
    assert [word for word, _ in words] == ["considered", "launched", "finished"]
    assert words[1][1] == "found in flight after a restart: following it"


def test_a_launch_that_ended_while_no_supervisor_ran_is_written_down_as_finished(tmp_path):
    night = Night(tmp_path, scope=only("storm"))
    night.clock.now = NIGHT + 600
    night.supervisor.step()
    night.answer("storm", fail=False)
    request = night.supervisor.following[NAMES["storm"]].request
    night.policy.step(request)
    night.policy.step(request)  # someone else followed it to its end
    assert request.state is ResumeState.COMPLETED
    again = restarted(night)
    again.step()
    assert [word for word, _ in decisions(night, "storm")] == ["considered", "launched", "finished"]
    assert len(night.launcher.launches) == 1


def test_a_corrupt_audit_log_stops_the_pass_before_anything_launches(tmp_path):
    night = Night(tmp_path)
    night.clock.now = NIGHT + 600
    night.store.folder.mkdir(parents=True)
    night.store.audit.path.write_text("garbage\n")
    with pytest.raises(AuditError, match="audit.jsonl:1:"):
        night.supervisor.step()
    assert night.launcher.launches == []
    assert night.store.audit.path.read_text() == "garbage\n"
