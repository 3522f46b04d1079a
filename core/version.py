"""wftop's version: `VERSION`, as ``pyproject.toml`` declares it (a test holds the two, and
the installed distribution's, equal). Views and their engine compare it at every start,
before the engine is started (where a shared one lives is named by it) and in its hello:
read from the install's metadata, it cost its import and a lookup, 20-30 ms, on the way to
both."""

from __future__ import annotations

VERSION = "0.1.0"
"""``[project] version`` of ``pyproject.toml``."""


def package_version() -> str:
    """wftop's version (`VERSION`)."""
    return VERSION
