"""The ``[notifications]`` table of the config file and ``WFTOP_NOTIFY``.

```toml
[notifications]
died = true          # each kind of event on or off (completed: off by default)
channels = ["bell", "tmux", "command"]   # default: chosen from the environment
command = ["ntfy", "publish", "--title", "wftop", "mytopic"]  # gets the event as JSON on stdin
cooldown = 300       # seconds between two notifications of one kind for one run
```

``WFTOP_NOTIFY`` (a comma list of channel names, or ``none``) wins over ``channels``.
A value that cannot be used is a `SettingsError` naming the file (or the variable) and
the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from wftop.core.compared import compared
from wftop.core.notify.kinds import Kind

CHANNELS: Final = ("bell", "osc9", "osc99", "osc777", "tmux", "desktop", "command")
"""Every channel, as ``WFTOP_NOTIFY`` and ``channels`` name them."""
ENV_VAR: Final = "WFTOP_NOTIFY"
COOLDOWN: Final = 300.0
"""Seconds between two notifications of one kind of event for one run, by default."""
NO_CHANNEL: Final = "none"
DEFAULT_EVENTS: Final = frozenset(Kind) - {Kind.COMPLETED}
"""Every kind of event but a plain completion."""


class SettingsError(ValueError):
    """A notification setting cannot be used; the message says where and why."""


@compared
@dataclass(frozen=True, eq=False, repr=False)
class NotifySettings:
    """What to tell, and where."""

    events: frozenset[Kind] = DEFAULT_EVENTS
    channels: tuple[str, ...] | None = None
    """The channels the config names (None: chosen from the environment)."""
    command: tuple[str, ...] = ()
    """The argv of the ``command`` channel (never through a shell)."""
    cooldown: float = COOLDOWN

    def wants(self, kind: Kind) -> bool:
        return kind in self.events


def _channel_list(names: list[Any] | tuple[Any, ...], where: str) -> tuple[str, ...]:
    chosen: list[str] = []
    for name in names:
        if name not in CHANNELS:
            expected = ", ".join(CHANNELS)
            msg = f"{where}: unknown channel {name!r} (expected some of {expected}, or none)"
            raise SettingsError(msg)
        if name not in chosen:
            chosen.append(name)
    return tuple(chosen)


def parse_notifications(table: Mapping[str, Any], path: str) -> NotifySettings:
    """Check the ``[notifications]`` table; `SettingsError` names the key and what it must be."""
    where = f"{path}: [notifications]"
    events = set(DEFAULT_EVENTS)
    values: dict[str, Any] = {}
    kinds = {kind.value: kind for kind in Kind}
    for key, value in table.items():
        if key in kinds:
            if not isinstance(value, bool):
                raise SettingsError(f"{where} {key} must be true or false, got {value!r}")
            (events.add if value else events.discard)(kinds[key])
        elif key == "channels":
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                msg = f"{where} channels must be a list of channel names, got {value!r}"
                raise SettingsError(msg)
            values["channels"] = _channel_list(value, f"{where} channels")
        elif key == "command":
            if not (
                isinstance(value, list)
                and value
                and all(isinstance(item, str) and item for item in value)
            ):
                msg = f"{where} command must be a list of program and arguments, got {value!r}"
                raise SettingsError(msg)
            values["command"] = tuple(value)
        elif key == "cooldown":
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value < 0 or value > 86400 * 7:
                msg = f"{where} cooldown must be seconds from 0 to 604800, got {value!r}"
                raise SettingsError(msg)
            values["cooldown"] = float(value)
        else:
            known = ", ".join([*kinds, "channels", "command", "cooldown"])
            raise SettingsError(f"{where} has an unknown key {key!r} (known keys: {known})")
    settings = NotifySettings(events=frozenset(events), **values)
    if settings.channels and "command" in settings.channels and not settings.command:
        raise SettingsError(f"{where} channels names command, but no command is set")
    return settings


def channels_from_env(value: str | None) -> tuple[str, ...] | None:
    """The channels ``WFTOP_NOTIFY`` names (None: unset or empty; ``none``: no channel)."""
    if value is None or not value.strip():
        return None
    names = [name.strip().lower() for name in value.split(",") if name.strip()]
    if names == [NO_CHANNEL]:
        return ()
    return _channel_list(names, ENV_VAR)
