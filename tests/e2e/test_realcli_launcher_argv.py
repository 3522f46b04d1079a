"""The real CLI reads the launcher's argv as meant: ``--resume`` of a session it does not hold
fails with its own message, and a prompt that looks like options stays one prompt."""

from __future__ import annotations

import json

import pytest

from tests.core.test_launcher_argv import RUN, SCRIPT, SID
from tests.procfs import ProcFs
from wftop.core.resume.launcher import SubprocessLauncher, build_argv, build_prompt

pytestmark = pytest.mark.realcli


def test_the_real_cli_takes_our_argv_and_reports_a_missing_session(
    claude_bin, mock_api, cli_home, paths
):
    from tests.realcli import cli_env

    prompt = build_prompt(RUN, SCRIPT)
    argv = build_argv("resume-owner", claude_bin, SID, prompt, ["--add-dir", str(cli_home.cwd)])
    launch = SubprocessLauncher(ProcFs()).launch(
        argv,
        cwd=cli_home.cwd,
        log_path=paths[0],
        status_path=paths[1],
        env=cli_env(cli_home, mock_api.url),
    )
    result = launch.wait(ProcFs(), 120)
    log = paths[0].read_text()
    assert (result.state, result.exit_code) == ("exited", 1), log
    assert f"No conversation found with session ID: {SID}" in log
    assert mock_api.requests == []


def test_the_real_cli_reads_a_dash_prompt_after_the_double_dash(
    claude_bin, cli_home, paths, tmp_path
):
    from tests.realcli import cli_env
    from wftop.mockapi.server import MockAPI

    prompt = "-x --resume nope; $(touch pwned) say hello"
    argv = build_argv("relocate", claude_bin, SID, prompt, ["--add-dir", str(cli_home.cwd)])
    with MockAPI(body_dir=tmp_path / "bodies") as mock:
        launch = SubprocessLauncher(ProcFs()).launch(
            argv,
            cwd=cli_home.cwd,
            log_path=paths[0],
            status_path=paths[1],
            env=cli_env(cli_home, mock.url),
        )
        result = launch.wait(ProcFs(), 120)
    assert (result.state, result.exit_code) == ("exited", 0), paths[0].read_text()
    assert f'"session_id":"{SID}"' in paths[0].read_text()
    sent = [json.loads(body.read_text()) for body in sorted((tmp_path / "bodies").iterdir())]
    texts = [
        block.get("text")
        for body in sent
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
    ]
    assert prompt in texts  # one argv element, read as the prompt, not as options
    assert not list(cli_home.cwd.glob("pwned*"))
