"""The real CLI (2.1.332) resumes a relocated copy of a failed run's journal, plain
(``relocate``) or healed (``surgical``), against the loopback mock Messages API: the run ends,
exactly the calls each scenario names run live, and the source journal is left as it was."""

from __future__ import annotations

import pytest

from tests.relocate_kit import sha
from wftop.core.resume.relocate import relocate_journal

FAILS_FOR_GOOD = {"errors": [429, 429, 429]}
SCENARIOS = {
    # script, agents, env, live when resumed from a plain copy / from a healed copy
    "fanout": (
        "eight.js",
        "eight",
        "b2",
        {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "8"},
        ["b2", "b3", "b4", "b5", "b6", "b7", "b8", "c1"],
        ["b2"],
    ),
    "six-mid-failure": (
        "six.js",
        "six",
        "a3",
        {"CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS": "2"},
        ["a3", "a4", "a5", "a6"],
        ["a3", "a5", "a6"],
    ),
}


@pytest.mark.realcli
@pytest.mark.parametrize("heal", [False, True], ids=["relocate", "surgical"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_real_cli_resumes_a_relocated_copy(
    claude_bin, mock_api, cli_home, tmp_path, scenario, heal
):
    import uuid

    from tests import realcli
    from tests.procfs import ProcFs
    from wftop.core.resume.launcher import SubprocessLauncher, build_argv, build_prompt

    script, agents, failing, env, live_plain, live_healed = SCENARIOS[scenario]
    env = {**env, "CLAUDE_CODE_MAX_RETRIES": "2"}
    make_agents = realcli.eight_agents if agents == "eight" else realcli.six_agents
    run = realcli.run_workflow(
        claude_bin,
        mock_api,
        cli_home,
        realcli.load_script(script),
        make_agents(**{failing: FAILS_FOR_GOOD}),
        env_extra=env,
    )
    assert run.rc == 0 and run.journal_path is not None and run.script_path is not None
    source = run.journal_path
    source_sha = sha(source)
    mock_api.configure(agents=make_agents())  # the failed agent now answers

    new_sid = str(uuid.uuid4())
    done = relocate_journal(source, run.session_dir.parent / new_sid, run.run_id, heal=heal)
    assert [d.label for d in done.dropped] == ([failing] if heal else [])
    strategy = "surgical" if heal else "relocate"
    argv = build_argv(strategy, claude_bin, new_sid, build_prompt(run.run_id, run.script_path))
    since = mock_api.mark()
    launch = SubprocessLauncher(ProcFs()).launch(
        argv,
        cwd=cli_home.cwd,
        log_path=tmp_path / "resume.log",
        status_path=tmp_path / "resume.status.json",
        env=realcli.cli_env(cli_home, mock_api.url, env),
    )
    try:
        result = launch.wait(ProcFs(), 180)
    finally:
        launch.stop(ProcFs(), grace=1)
    assert (result.state, result.exit_code) == ("exited", 0), (tmp_path / "resume.log").read_text()
    assert sorted(mock_api.live_agents(since=since)) == (live_healed if heal else live_plain)
    assert sha(source) == source_sha
    resumed = realcli.journal_counts(done.target)
    assert resumed["result"] > realcli.journal_counts(source)["result"]
