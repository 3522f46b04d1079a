"""The optional TOML config file, and what a person may give wftop as a value.

Where: ``$WFTOP_CONFIG`` if set, else ``<user config dir>/wftop/config.toml``
(``platformdirs``). A missing file is an empty config; every key is optional. A key that is
unknown or of the wrong type is a `ConfigError` naming the file and the key: wftop refuses
to start rather than guess. A key wftop no longer uses (`RETIRED`) is only a one-line
warning on stderr, so an old config file still starts wftop. Every command reads it.

The ``[keys]`` table is read as binding id → keys (``resume = "ctrl+r"``, or a list of
keys) with the line of each id (`Config.key_lines`); which ids exist and whether two
bindings collide is the TUI's to check when it starts (`wftop.tui.keys.check_keymap`),
naming the file, line and key.

The checks of single values (a number of seconds, a count, how deep a value may nest) say
in words what was expected; the command line and the config file put their names on them.
"""

from __future__ import annotations

import math
import os
import reprlib
import sys
from collections.abc import Mapping
from dataclasses import field
from typing import Any, Final

from wftop.core.compared import record
from wftop.core.notify.settings import NotifySettings, SettingsError, parse_notifications
from wftop.core.stall import DEFAULT_STALL_WINDOW

MAX_SECONDS: Final = 366 * 24 * 3600.0
"""The longest time wftop takes (a year): a timer or a clock sum past it overflows."""

MAX_CONFIG_DEPTH: Final = 16
"""Arrays and inline tables nested in a config value: the deepest a key needs is 2."""


def seconds_problem(value: Any) -> str | None:
    """What is wrong with ``value`` as a number of seconds (finite, above 0, at most a
    year), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "a number of seconds"
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        return f"a number of seconds above 0 and at most {MAX_SECONDS:.0f} (a year)"
    return None


def count_problem(value: Any, low: int, high: int) -> str | None:
    """What is wrong with ``value`` as a whole number from ``low`` to ``high``, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"a whole number from {low} to {high}"
    return None


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = 6


SHOWN_CHARS: Final = 80


def shown_value(value: Any) -> str:
    """A value as an error message quotes it: its repr, cut short (a config value may be a
    megabyte, or nested deep)."""
    text = _SHORT.repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


ENV_VAR = "WFTOP_CONFIG"

ATTENTION_WINDOW = 24 * 3600.0


class ConfigError(ValueError):
    """The config file cannot be used; the message says where and why."""


@record
class SuperviseConfig:
    """The ``[supervise]`` table: ``wftop supervise``'s caps and waits (its flags win)."""

    max_usd: float | None = None
    daily_usd: float | None = None
    backoff: float = 60.0
    attempts: int = 2


SUPERVISE_KEYS: dict[str, tuple[str, float, bool]] = {
    "max_usd": ("a number of dollars", 0.0, False),
    "daily_usd": ("a number of dollars", 0.0, False),
    "backoff": ("a number of seconds", 0.0, False),
    "attempts": ("a whole number of resumes", 1.0, True),
}
"""Key → (what it must be, its least value, whole)."""


@record
class Config:
    """Settings from the config file, each with its default."""

    path: str | None = None
    """The file these settings came from (None: no file)."""
    roots: tuple[str, ...] = ()
    """Extra config dirs to read, as ``--root`` would add them."""
    default_root: bool = True
    """Also read ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    stall_window: float = DEFAULT_STALL_WINDOW
    """Seconds without growth before a live run reads as stalled."""
    attention_window: float = ATTENTION_WINDOW
    """Dead runs newer than this many seconds count as needing attention (title)."""
    theme: str | None = None
    """A Textual theme name (``textual-dark``, ``nord``, ``gruvbox`` …)."""
    bell: bool = True
    """Ring the terminal bell when a run dies or stalls (false: no ``bell`` channel unless
    a channel list names it)."""
    notify: bool = True
    """Show a toast when a run dies, stalls or finishes."""
    notifications: NotifySettings = field(default_factory=NotifySettings)
    """The ``[notifications]`` table: which events are told, on which channels."""
    mouse: bool = True
    """Capture the mouse (false keeps the terminal's own text selection)."""
    keys: Mapping[str, str] = field(default_factory=dict)
    """Binding id → key(s), comma separated (``resume = "ctrl+r"``), as the file says them."""
    key_lines: Mapping[str, int] = field(default_factory=dict)
    """The line of the file each binding id of ``keys`` is on (where it is found)."""
    claude: str | None = None
    """The ``claude`` binary a resume runs (default: ``$WFTOP_CLAUDE``, then PATH)."""
    resume_flags: tuple[str, ...] = ()
    """Extra CLI flags for every resume, shown in the plan (``["--model", "opus"]``)."""
    exact_forecast: bool = True
    """The plan rehearses the resume in the background and then shows the exact forecast."""
    max_usd: float | None = None
    """A budget in dollars: ``enter`` asks before a resume whose forecast may cost more
    (`wftop.core.resume.budget`; ``wftop resume --max-usd`` refuses instead)."""
    hosts: tuple[str, ...] = ()
    """Other machines whose runs join this one's, as ``--host`` names them."""
    ssh_command: str | None = None
    """How to start ssh (``"ssh -F ~/.ssh/wftop_config"``); ``$WFTOP_SSH`` wins."""
    remote_command: str | None = None
    """How wftop starts on the hosts (default ``wftop``), as ``--remote-command``."""
    supervise: SuperviseConfig = field(default_factory=SuperviseConfig)
    """``wftop supervise``'s caps and waits."""


FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "roots": (list, "a list of directories"),
    "default_root": (bool, "true or false"),
    "stall_window": ((int, float), "a number of seconds"),
    "attention_window": ((int, float), "a number of seconds"),
    "theme": (str, "a theme name"),
    "bell": (bool, "true or false"),
    "notify": (bool, "true or false"),
    "notifications": (dict, "a table of events, channels, command and cooldown"),
    "mouse": (bool, "true or false"),
    "keys": (dict, "a table of binding id = key"),
    "claude": (str, "a path to the claude binary"),
    "resume_flags": (list, "a list of CLI flags"),
    "exact_forecast": (bool, "true or false"),
    "max_usd": ((int, float), "a number of dollars"),
    "hosts": (list, "a list of SSH host names"),
    "ssh_command": (str, "a command that starts ssh"),
    "remote_command": (str, "a command that starts wftop on the hosts"),
    "supervise": (dict, "a table of max_usd, daily_usd, backoff and attempts"),
}

RETIRED: dict[str, str] = {
    "poll_interval": "the live index follows the disk itself",
}
"""Keys wftop once read and now ignores → why; a file that sets one gets a warning."""


def config_path(env: Mapping[str, str] | None = None) -> str:
    """The config file to read: ``$WFTOP_CONFIG``, else the platform's user config dir."""
    env = os.environ if env is None else env
    override = env.get(ENV_VAR)
    if override:
        return os.path.expanduser(override)
    from platformdirs import user_config_dir

    return os.path.join(user_config_dir("wftop"), "config.toml")


def load_config(path: str | None = None) -> Config:
    """Read and check the config file; a missing file gives the defaults."""
    path = path or config_path()
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except FileNotFoundError:
        return Config()
    except OSError as error:
        msg = f"{path}: cannot read the config file ({error.strerror or error})"
        raise ConfigError(msg) from None
    except UnicodeDecodeError as error:
        line = text_line(error.object, error.start)
        msg = f"{path}:{line}: not valid TOML (expected UTF-8 text)"
        raise ConfigError(msg) from None
    from wftop.core import tomlscan  # as tomllib: when there is a file

    depth, line, key = tomlscan.toml_nesting(text)
    if depth > MAX_CONFIG_DEPTH:
        name = key[:60] or "a value"
        msg = (
            f"{path}:{line}: {name} is nested {depth} levels deep "
            f"(expected at most {MAX_CONFIG_DEPTH} levels of arrays and tables)"
        )
        raise ConfigError(msg)
    import tomllib  # the file's, when there is one: not the settings a view is given

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        msg = f"{path}: not valid TOML ({error})"
        raise ConfigError(msg) from None
    except RecursionError:  # nesting the scan above does not see (dotted keys, say)
        msg = f"{path}: not valid TOML (nested too deep to read)"
        raise ConfigError(msg) from None
    return parse_config(data, path, tomlscan.key_lines(text, "keys"))


def text_line(data: bytes, offset: int) -> int:
    """The 1-based line of byte ``offset``."""
    return data.count(b"\n", 0, offset) + 1


def parse_config(
    data: Mapping[str, Any], path: str = "config.toml", key_lines: Mapping[str, int] | None = None
) -> Config:
    """Check the file's values (``key_lines``: the line of each ``[keys]`` id)."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in RETIRED:
            print(f"{path}: {key} is no longer used ({RETIRED[key]}); ignored", file=sys.stderr)
            continue
        if key not in FIELDS:
            known = ", ".join(sorted(FIELDS))
            msg = f"{path}: unknown key {shown_value(key)} (known keys: {known})"
            raise ConfigError(msg)
        kind, words = FIELDS[key]
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            msg = f"{path}: {key} must be {words}, got {shown_value(value)}"
            raise ConfigError(msg)
        values[key] = value
    if "roots" in values:
        roots = values["roots"]
        if not all(isinstance(root, str) and root for root in roots):
            msg = f"{path}: roots must be a list of directories, got {shown_value(roots)}"
            raise ConfigError(msg)
        values["roots"] = tuple(os.path.expanduser(root) for root in roots)
    for key in ("stall_window", "attention_window"):
        if key in values:
            problem = seconds_problem(values[key])
            if problem is not None:
                msg = f"{path}: {key} must be {problem}, got {shown_value(values[key])}"
                raise ConfigError(msg)
            values[key] = float(values[key])
    if "max_usd" in values:
        budget = float(values["max_usd"])
        if not 0 <= budget < float("inf"):
            msg = f"{path}: max_usd must be a number of dollars ≥ 0, got {values['max_usd']!r}"
            raise ConfigError(msg)
        values["max_usd"] = budget
    if "keys" in values:
        lines = key_lines or {}
        values["keys"] = read_keys(values["keys"], path, lines)
        values["key_lines"] = {key: lines[key] for key in values["keys"] if key in lines}
    for key in ("resume_flags", "hosts"):
        if key in values:
            items = values[key]
            if not all(isinstance(item, str) and item for item in items):
                msg = f"{path}: {key} must be {FIELDS[key][1]}, got {shown_value(items)}"
                raise ConfigError(msg)
            values[key] = tuple(items)
    if values.get("hosts"):  # the links to other hosts, imported when a config names one
        from wftop.core.remote.transport import HostError, check_host

        for host in values["hosts"]:
            try:
                check_host(host, where=f"{path}: hosts:")
            except HostError as error:
                raise ConfigError(str(error)) from None
    if "notifications" in values:
        try:
            values["notifications"] = parse_notifications(values["notifications"], path)
        except SettingsError as error:
            raise ConfigError(str(error)) from None
    if "supervise" in values:
        values["supervise"] = parse_supervise(values["supervise"], path)
    return Config(path=path, **values)


def parse_supervise(table: Mapping[str, Any], path: str) -> SuperviseConfig:
    """Check the ``[supervise]`` table; `ConfigError` names the key and what it must be."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in SUPERVISE_KEYS:
            known = ", ".join(SUPERVISE_KEYS)
            msg = f"{path}: [supervise] has an unknown key {key!r} (known keys: {known})"
            raise ConfigError(msg)
        words, least, whole = SUPERVISE_KEYS[key]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value < least or (whole and value % 1):
            msg = f"{path}: [supervise] {key} must be {words} of at least {least:g}, got {value!r}"
            raise ConfigError(msg)
        values[key] = int(value) if whole else float(value)
    return SuperviseConfig(**values)


def read_keys(
    keys: Mapping[str, Any], path: str, lines: Mapping[str, int] | None = None
) -> dict[str, str]:
    """The ``[keys]`` table as binding id → its keys, comma separated (a list is joined);
    `ConfigError` naming the line and the id of a value that is no key. Which ids exist and
    whether keys collide is the TUI's to check (`wftop.tui.keys.check_keymap`)."""
    keymap: dict[str, str] = {}
    for binding_id, value in keys.items():
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            value = ",".join(value)
        listed = [key.strip() for key in value.split(",")] if isinstance(value, str) else []
        if not any(listed):
            where = at_line(path, (lines or {}).get(binding_id))
            msg = f"{where}: [keys] {binding_id} must be a key or a list of keys, got "
            raise ConfigError(msg + shown_value(value))
        keymap[binding_id] = ",".join(key for key in listed if key)
    return keymap


def at_line(path: str, line: int | None) -> str:
    """``path:line``, or ``path`` when the line is not known."""
    return path if line is None else f"{path}:{line}"
