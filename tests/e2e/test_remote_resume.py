"""End to end: ``r`` then ``enter`` on a dead run of another host resumes it there.

The "host" is a loopback SSH server (asyncssh) reached by the system ssh; its HOME holds a
run the real CLI made against the mock and was killed in. The plan is the host's, the resume
runs there with the real CLI against the mock, its events come back into the open plan, and
``enter`` again on the finished run launches nothing. A second test drops the connection
while the resume runs: the resume goes on there to the end.

The host's resume is a detached runner and the ``claude`` it starts, which outlive the SSH
session and the test's app: each test waits for them to end while the mock is still up (the
CLI's last turn comes after the run's journal says completed; with the mock gone it would
retry for a minute and more), and stops them if it fails before.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_resume_e2e import damaged_run
from tests.leftovers_kit import gone
from tests.realcli import six_agents
from tests.tui.test_tui_remote import hub_for, remote_runs
from tests.tui_kit import SIZE, settle, table
from wftop.core.config import Config
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import Status
from wftop.core.resume.launcher import Launch
from wftop.core.system.procs import default_table
from wftop.mockapi.cliproc import cli_env
from wftop.tui.screens.remote_plan import RemotePlanScreen
from wftop.tui.start import make_app

pytestmark = pytest.mark.realcli

HOST_KEYS = (
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_TMPDIR",
    "DISABLE_AUTOUPDATER",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_TELEMETRY",
    "IS_SANDBOX",
)
"""What of the real CLI's test environment the host passes on to the CLI it starts."""


async def until(pilot, condition, seconds: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


def launches_there(state: Path, run_id: str) -> list[Launch]:
    """The launches of ``run_id``'s resumes that the host's wftop made (state dir ``state``)."""
    folder = state / "launches" / run_id
    return [
        Launch.attach(status, status.with_name(status.name.replace(".status.json", ".log")))
        for status in sorted(folder.glob("*.status.json"))
    ]


def the_launch_ends(state: Path, run_id: str, seconds: float) -> None:
    """The host's one launch of ``run_id`` records its command's exit, 0, and its runner is gone."""
    (launch,) = launches_there(state, run_id)
    ended = launch.wait(default_table(), seconds)
    assert ended.state == "exited", ended
    assert ended.exit_code == 0, (ended, launch.log_path.read_text(errors="replace")[-2000:])
    deadline = time.monotonic() + 30
    while launch.pid is not None and not gone(launch.pid):
        assert time.monotonic() < deadline, f"the runner {launch.pid} outlived its command"
        time.sleep(0.05)


@contextmanager
def launches_stopped(state: Path, run_id: str) -> Iterator[None]:
    """Whatever the test ends by, no launch of ``run_id`` there runs on after it."""
    try:
        yield
    finally:
        for launch in launches_there(state, run_id):
            launch.stop(default_table(), grace=2.0)


def host_with_a_killed_run(claude_bin, mock_api, cli_home, ssh_hosts, a5_seconds: float):  # type: ignore[no-untyped-def]
    agents = six_agents(a5={"delay_s": [120.0, a5_seconds]})
    killed = damaged_run(claude_bin, mock_api, cli_home, "six.js", agents, kill=("a5", 1))
    env = cli_env(cli_home, mock_api.url)
    extra = {key: env[key] for key in HOST_KEYS} | {"WFTOP_CLAUDE": claude_bin}
    ssh_hosts.add("gamma", home=cli_home.home, extra=extra)
    return killed


async def launch_from_the_plan(app, pilot, run_id: str, mock_api) -> tuple[RemotePlanScreen, int]:  # type: ignore[no-untyped-def]
    """``r`` on the host's run, then ``enter``: the plan, and the mock's mark before it."""
    await settle(pilot)
    await until(pilot, lambda: remote_runs(app, "gamma"), 60, "gamma's rows")
    (run,) = [run for run in remote_runs(app, "gamma") if run.run_id == run_id]
    assert run.status is Status.DEAD
    await until(pilot, lambda: run.ident in table(app).item_keys, 60, "its row drawn")
    table(app).move_to_key(run.ident)
    assert table(app).cursor_key() == run.ident
    await pilot.press("r")
    screen = app.screen
    assert isinstance(screen, RemotePlanScreen)
    await until(pilot, lambda: screen.reply is not None, 60, "the host's plan")
    assert screen.launchable(), screen.reply
    mark = mock_api.mark()
    await pilot.press("enter")
    return screen, mark


def app_for(ssh_hosts):  # type: ignore[no-untyped-def]
    from tests.corpus import tree

    return make_app(
        [str(tree("clean"))],
        config=Config(bell=False),
        processes=default_table(),
        live=False,
        remote=hub_for(ssh_hosts, "gamma"),
    )


async def test_enter_resumes_a_dead_run_on_its_host_and_again_launches_nothing(
    claude_bin, mock_api, cli_home, ssh_hosts
):
    killed = host_with_a_killed_run(claude_bin, mock_api, cli_home, ssh_hosts, 0.1)
    state = ssh_hosts.hosts["gamma"].state
    app = app_for(ssh_hosts)
    with launches_stopped(state, killed.run_id):
        async with app.run_test(size=SIZE) as pilot:
            screen, mark = await launch_from_the_plan(app, pilot, killed.run_id, mock_api)
            await until(pilot, lambda: screen.outcome is not None, 180, "the resume's end")
            assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
            assert screen.outcome.startswith("completed"), (screen.outcome, screen.progress)
            assert screen.progress, "no event came back while the resume ran"
            await until(pilot, lambda: not screen.launchable(), 60, "the host's plan again")
            body = str(screen.query_one("#remote-plan-body").render())
            assert "nothing to resume" in body, body
            after = mock_api.mark()
            await pilot.press("enter")
            await pilot.pause(2.0)
            assert mock_api.mark() == after, "the mock got a request after the second enter"
            assert any("does not allow" in note.message for note in app.toasts)
        the_launch_ends(state, killed.run_id, 60)


async def test_the_resume_goes_on_on_its_host_when_the_connection_drops(
    claude_bin, mock_api, cli_home, ssh_hosts
):
    killed = host_with_a_killed_run(claude_bin, mock_api, cli_home, ssh_hosts, 3.0)
    state = ssh_hosts.hosts["gamma"].state
    app = app_for(ssh_hosts)
    with launches_stopped(state, killed.run_id):
        async with app.run_test(size=SIZE) as pilot:
            screen, mark = await launch_from_the_plan(app, pilot, killed.run_id, mock_api)
            await until(pilot, lambda: mock_api.live_agents(since=mark), 120, "a live call there")
            ssh_hosts.kill("gamma")  # the SSH server and every session it serves
            await until(pilot, lambda: screen.outcome is not None, 60, "the reading's end")
        deadline = time.monotonic() + 180
        while True:
            runs = scan_roots([str(cli_home.config_dir)], processes=default_table()).runs
            (run,) = [run for run in runs if run.run_id == killed.run_id]
            if run.status is Status.COMPLETED or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert run.status is Status.COMPLETED, run.status
        assert sorted(mock_api.live_agents(since=mark)) == ["a5", "a6"]
        the_launch_ends(state, killed.run_id, 120)  # its last turn, while the mock is up
