"""The app over other hosts (SSH "hosts" on loopback, tests/ssh_kit.py): their runs join
the list with a HOST column, a host that drops keeps its rows stale and says so, and the
rows come back live when it does."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from tests.conftest import TUI_NOW
from tests.corpus import tree
from tests.tui_kit import SIZE, changed, settle, table
from wftop.core.config import Config
from wftop.core.remote.link import WATCH_ARGS, RemoteHub
from wftop.core.remote.transport import remote_argv, ssh_prefix
from wftop.tui.app import WftopApp
from wftop.tui.screens.remote_plan import RemotePlanScreen
from wftop.tui.start import make_app

WAIT = 60.0


def hub_for(ssh_hosts, *hosts: str) -> RemoteHub:  # type: ignore[no-untyped-def]
    prefix = ssh_prefix(None, ssh_hosts.env)
    return RemoteHub(
        {host: remote_argv(prefix, host, WATCH_ARGS) for host in hosts},
        backoff=(0.1,),
        command=lambda host, args: remote_argv(prefix, host, args),
    )


def app_over(ssh_hosts, *hosts: str) -> WftopApp:  # type: ignore[no-untyped-def]
    """The app over the ``clean`` tree here and ``hosts`` over SSH."""
    return make_app(
        [str(tree("clean"))],
        config=Config(bell=False),
        now=lambda: TUI_NOW,
        live=False,
        remote=hub_for(ssh_hosts, *hosts),
    )


async def until(pilot, check, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


def remote_runs(app, host: str) -> list:  # type: ignore[no-untyped-def]
    return [run for run in app.store.rows.values() if run.host == host]


async def test_hosts_rows_join_with_a_host_column_and_a_dropped_host_turns_stale(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    ssh_hosts.add("beta", "mid-failure")
    app = app_over(ssh_hosts, "alpha", "beta")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: remote_runs(app, "alpha") and remote_runs(app, "beta"), "rows")
        runs = table(app)
        await until(pilot, lambda: len(runs.item_keys) == 3, "the table to list every run")
        assert "host" in runs.visible_columns
        (alpha,) = remote_runs(app, "alpha")
        assert runs.cell_text(alpha.ident, "host") == "alpha"
        assert runs.cell_text(alpha.ident, "status") == "✖ dead"
        local = next(run for run in app.store.rows.values() if run.host is None)
        assert runs.cell_text(local.ident, "host") == "local"
        assert len(app.store.rows) == 3

        ssh_hosts.kill("alpha")
        await until(pilot, lambda: app.store.hosts["alpha"].failure is not None, "alpha to drop")
        await until(pilot, lambda: remote_runs(app, "alpha")[0].stale, "alpha's run stale")
        await until(pilot, lambda: runs.cell_text(alpha.ident, "host") == "alpha ?", "drawn")
        (stale,) = remote_runs(app, "alpha")
        assert stale.stale and stale.status is alpha.status
        assert runs.cell_text(stale.ident, "host") == "alpha ?"
        header = app.screen.query_one("#runs-header")
        await until(pilot, lambda: "unreachable: alpha" in str(header.render()), "the header")
        await until(
            pilot, lambda: any("alpha: unreachable" in n.message for n in app.toasts), "toast"
        )

        ssh_hosts.start("alpha")
        await until(pilot, lambda: not remote_runs(app, "alpha")[0].stale, "alpha to come back")
        await until(pilot, lambda: runs.cell_text(alpha.ident, "host") == "alpha", "drawn again")
        assert len(app.store.rows) == 3 and len(runs.item_keys) == 3


async def test_the_host_filter_shows_one_hosts_runs(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await until(pilot, lambda: remote_runs(app, "alpha"), "alpha's rows")
        screen = app.screen
        titles = [command.title for command in screen.palette_commands()]
        assert "Show runs of host alpha" in titles and "Show runs of this machine" in titles
        screen.view.host = "alpha"
        screen.refresh_rows()
        await pilot.pause()
        assert [app.store.rows[key].host for key in table(app).item_keys] == ["alpha"]
        await pilot.press("escape")
        await pilot.pause()
        assert len(table(app).item_keys) == 2


async def select_alphas_run(app, pilot):  # type: ignore[no-untyped-def]
    """Wait for the one run of host alpha and put the cursor on it."""
    await settle(pilot)
    await until(pilot, lambda: remote_runs(app, "alpha"), "alpha's rows")
    await pilot.pause()
    (alpha,) = remote_runs(app, "alpha")
    await until(pilot, lambda: alpha.ident in table(app).item_keys, "its row drawn")
    table(app).move_to_key(alpha.ident)
    assert table(app).cursor_key() == alpha.ident
    return alpha


async def test_r_on_a_remote_run_shows_the_plan_the_host_made(ssh_hosts):
    ssh_hosts.add("alpha", "killed")
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        await select_alphas_run(app, pilot)
        await pilot.press("r")
        screen = app.screen
        assert isinstance(screen, RemotePlanScreen)
        await until(pilot, lambda: screen.reply is not None, "the host's plan")
        await pilot.pause()
        body = str(screen.query_one("#remote-plan-body").render())
        assert "from cache a1, a2, a3, a4" in body and "run again  a5" in body
        assert str(ssh_hosts.hosts["alpha"].root) in str(screen.reply.stdout)  # made there
        await pilot.press("escape")


def test_the_filter_has_a_host_field_and_local_names_this_machine():
    import orjson

    from wftop.core.remote.feed import HostFeed
    from wftop.tui.query import hay, matches, parse

    row = {"run_id": "wf_a", "session_id": "s1", "project": "-p", "status": "dead"}
    feed = HostFeed("build-01")
    feed.apply(orjson.dumps({"added": [row]}))
    assert feed.delta is not None
    (remote,) = feed.delta.added  # the row the TUI holds
    local = dataclasses.replace(remote, host=None)
    assert matches(parse("host:build"), hay(remote)) and not matches(
        parse("host:build"), hay(local)
    )
    assert matches(parse("host:local"), hay(local)) and not matches(
        parse("host:local"), hay(remote)
    )
    assert matches(parse("build-01"), hay(remote))


def test_a_narrow_pane_keeps_the_host_over_the_age_and_the_run_id():
    from wftop.tui.widgets.columns import fit
    from wftop.tui.widgets.run_table import HOST_COLUMNS

    assert [spec.key for spec, _ in fit(HOST_COLUMNS, 60)] == [
        "status", "name", "host", "parity", "dead"
    ]  # fmt: skip
    assert "run" in [spec.key for spec, _ in fit(HOST_COLUMNS, 80)]


def test_the_run_screen_says_what_of_a_remote_run_is_on_its_host():
    import orjson

    from wftop.core.remote.feed import HostFeed
    from wftop.tui.screens.run_summary import args_text, snapshot_text

    row = {"run_id": "wf_a", "session_id": "s1", "project": "-p", "status": "completed"}
    (run,) = HostFeed("build-01").apply(orjson.dumps({"added": [row]})).added
    assert snapshot_text(run) == "on build-01, none current"
    assert "build-01" in args_text(run)


async def test_j_on_a_remote_run_fetches_its_journal_masked_and_shows_it(ssh_hosts):
    from wftop.tui.screens.journal import JournalScreen

    host = ssh_hosts.add("alpha", "killed")
    (journal,) = host.root.glob("projects/*/*/subagents/workflows/*/journal.jsonl")
    secret = "sk-ant-" + "k" * 30
    planted = f'{{"type":"started","key":"v2:zz","agentId":"azz","label":"{secret}"}}\n'
    with open(journal, "a") as handle:
        handle.write(planted)
    before = journal.read_bytes()
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        await select_alphas_run(app, pilot)
        await pilot.press("J")
        await until(pilot, lambda: isinstance(app.screen, JournalScreen), "the journal")
        screen = app.screen
        await until(pilot, lambda: screen.indexed and screen.view.text(0) is not None, "lines")
        assert screen.view.count == before.count(b"\n")
        assert screen.path != str(journal) and screen.run.host == "alpha"
        assert "fetched from alpha into " in str(screen.header())
        copy = Path(screen.path).read_bytes()
        assert secret.encode() not in copy and b"[masked:anthropic_key]" in copy
        assert copy.count(b"\n") == before.count(b"\n")
    assert journal.read_bytes() == before  # nothing written on the host


async def test_enter_on_a_call_of_a_remote_run_fetches_its_transcript(ssh_hosts):
    from wftop.tui.screens.agent import AgentScreen
    from wftop.tui.screens.run import RunScreen
    from wftop.tui.widgets.call_table import CallTable

    ssh_hosts.add("alpha", "killed")
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        await select_alphas_run(app, pilot)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunScreen)
        calls = screen.query_one(CallTable)

        def agents() -> list[str]:
            return [getattr(row, "agent_id", "") for row in calls._items]

        await until(pilot, lambda: any(agents()), "the calls fetched with their agents")
        first = next(index for index, agent in enumerate(agents()) if agent)
        calls.move_cursor(row=first)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AgentScreen), "the transcript")
        agent = app.screen
        await until(pilot, lambda: agent.indexed and agent.view.count > 0, "its rows")
        assert agent.run.host == "alpha" and agent.agent_id == agents()[first]
        assert "fetched from alpha into " in str(agent.header())
        assert not agent.path.startswith(str(ssh_hosts.hosts["alpha"].root))  # a copy here


async def test_a_remote_runs_journal_fetched_again_reuses_its_folder(ssh_hosts):
    import dataclasses

    from wftop.tui.screens.run import RunScreen

    ssh_hosts.add("alpha", "killed")
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        alpha = await select_alphas_run(app, pilot)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunScreen)
        await until(pilot, lambda: screen.run is not None, "the journal fetched")
        first, fetched = screen._copy, screen.run
        assert first is not None and fetched.folder.path == first
        # the row changed: the journal is fetched again, into the same folder
        changed(app, dataclasses.replace(alpha, last_activity=(alpha.last_activity or 0) + 1))
        await until(pilot, lambda: screen.run is not fetched, "fetched again")
        assert screen.run is not None and screen.run.folder.path == first


async def test_a_failed_fetch_of_a_remote_runs_calls_is_asked_again(ssh_hosts):
    from wftop.tui.screens.run import RunScreen

    ssh_hosts.add("alpha", "killed")
    app = app_over(ssh_hosts, "alpha")
    async with app.run_test(size=SIZE) as pilot:
        await select_alphas_run(app, pilot)
        ssh_hosts.kill("alpha")  # the row stays (stale); the fetch of its journal fails
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RunScreen)
        failed = "Couldn't fetch the run's calls"
        await until(pilot, lambda: any(n.title == failed for n in app.toasts), "toast")
        await pilot.pause()
        assert not screen.jobs.busy("details")  # the next change of its row asks again
