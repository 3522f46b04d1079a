"""wftop's installed version, read when asked (the metadata lookup costs tens of ms)."""

from __future__ import annotations

from functools import cache


@cache
def package_version() -> str:
    """The installed distribution's version, ``0+unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wftop")
    except PackageNotFoundError:
        return "0+unknown"
