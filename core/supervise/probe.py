"""Whether the API a run used answers: a TCP connection to its host, and nothing more.

A ``network`` stop clears once a TCP connection to the API host succeeds: no request is
sent, so nothing is billed. The host is the one a resume of the run would talk to:
``ANTHROPIC_BASE_URL`` as the CLI reads it (the environment, overridden by the ``env`` of
the user's settings in the run's root, then the project's ``.claude/settings.json`` and
``.claude/settings.local.json``), else the default API.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

import orjson

DEFAULT_BASE_URL = "https://api.anthropic.com"
CONNECT_TIMEOUT = 5.0

Probe = Callable[[str, int], bool]
"""``(host, port) → whether a TCP connection succeeded``."""


def _settings_url(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = orjson.loads(handle.read(1024 * 1024))
    except (OSError, orjson.JSONDecodeError):
        return None
    env = data.get("env") if isinstance(data, dict) else None
    value = env.get("ANTHROPIC_BASE_URL") if isinstance(env, dict) else None
    return value if isinstance(value, str) and value else None


def base_url(root: str, cwd: str | None, environ: Mapping[str, str]) -> str:
    """The API base URL a resume of a run under ``root``, started in ``cwd``, talks to."""
    found = environ.get("ANTHROPIC_BASE_URL") or None
    places = [os.path.join(root, "settings.json")]
    if cwd:
        places += [os.path.join(cwd, ".claude", name)
                   for name in ("settings.json", "settings.local.json")]  # fmt: skip
    for place in places:
        found = _settings_url(place) or found
    return found or DEFAULT_BASE_URL


def host_port(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of a base URL; None when it names no host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname, port or (80 if parts.scheme == "http" else 443)


def tcp_probe(host: str, port: int) -> bool:
    """Open a TCP connection to ``host:port`` and close it at once."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return True
    except (OSError, ValueError):
        return False
