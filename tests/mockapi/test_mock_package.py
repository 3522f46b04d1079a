"""The mock ships inside wftop: one implementation, loopback only, the demo script in sync."""

from __future__ import annotations

from pathlib import Path

import wftop.mockapi.cliproc
import wftop.mockapi.flow
import wftop.mockapi.server
import wftop.mockapi.wire
from wftop.mockapi import load_script

TESTS = Path(__file__).parent.parent


def test_the_shipped_demo_script_is_the_test_script() -> None:
    assert load_script("six.js") == (TESTS / "scripts" / "six.js").read_text()


def test_the_mock_listens_on_loopback_only() -> None:
    with wftop.mockapi.server.MockAPI() as mock:
        assert mock.url.startswith("http://127.0.0.1:")
        assert mock._server is not None and mock._server.server_address[0] == "127.0.0.1"


def test_the_cli_env_points_only_at_the_mock(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "sk-ant-real")
    monkeypatch.setenv("CLAUDE_CODE_USE_BEDROCK", "1")
    home = wftop.mockapi.cliproc.CliHome.create(tmp_path / "cli")
    env = wftop.mockapi.cliproc.cli_env(home, "http://127.0.0.1:9")
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["ANTHROPIC_API_KEY"] == "sk-dummy"
    assert "ANTHROPIC_AUTH_TOKEN" not in env and "CLAUDE_CODE_USE_BEDROCK" not in env
    assert env["HOME"] == str(home.home)
