"""The ``[notifications]`` table of the config file and ``WFTOP_NOTIFY``."""

from __future__ import annotations

import pytest

from wftop.core.config import Config, ConfigError, parse_config
from wftop.core.notify.events import Kind
from wftop.core.notify.settings import SettingsError, channels_from_env


def test_every_kind_but_a_plain_completion_is_told_by_default():
    settings = Config().notifications
    assert settings.events == frozenset(Kind) - {Kind.COMPLETED}
    assert (settings.channels, settings.command, settings.cooldown) == (None, (), 300.0)


def test_the_table_switches_kinds_names_channels_a_command_and_the_cooldown():
    config = parse_config(
        {
            "bell": False,
            "notifications": {
                "completed": True,
                "stalled": False,
                "channels": ["tmux", "command", "tmux"],
                "command": ["ntfy", "publish", "runs"],
                "cooldown": 60,
            },
        },
        "c.toml",
    )
    settings = config.notifications
    assert Kind.COMPLETED in settings.events and Kind.STALLED not in settings.events
    assert settings.channels == ("tmux", "command")
    assert settings.command == ("ntfy", "publish", "runs")
    assert settings.cooldown == 60.0
    assert config.bell is False and config.notify is True


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"dies": True},
            "c.toml: [notifications] has an unknown key 'dies' (known keys: died, partial, failed,"
            " killed, stalled, resume, supervisor, completed, channels, command, cooldown)",
        ),
        ({"died": "yes"}, "c.toml: [notifications] died must be true or false, got 'yes'"),
        (
            {"channels": ["beep"]},
            "c.toml: [notifications] channels: unknown channel 'beep' (expected some of bell,"
            " osc9, osc99, osc777, tmux, desktop, command, or none)",
        ),
        (
            {"command": "curl -d @- https://x"},
            "c.toml: [notifications] command must be a list of program and arguments,"
            " got 'curl -d @- https://x'",
        ),
        (
            {"cooldown": -1},
            "c.toml: [notifications] cooldown must be seconds from 0 to 604800, got -1",
        ),
        (
            {"channels": ["command"]},
            "c.toml: [notifications] channels names command, but no command is set",
        ),
    ],
)
def test_a_bad_value_stops_wftop_with_one_line_naming_the_key(table, message):
    with pytest.raises(ConfigError) as failed:
        parse_config({"notifications": table}, "c.toml")
    assert str(failed.value) == message


def test_wftop_notify_is_a_comma_list_or_none():
    assert channels_from_env(None) is None
    assert channels_from_env(" ") is None
    assert channels_from_env("none") == ()
    assert channels_from_env("OSC9, tmux,,bell") == ("osc9", "tmux", "bell")
    with pytest.raises(SettingsError) as failed:
        channels_from_env("osc9,growl")
    assert str(failed.value) == (
        "WFTOP_NOTIFY: unknown channel 'growl' (expected some of bell, osc9, osc99, osc777,"
        " tmux, desktop, command, or none)"
    )
