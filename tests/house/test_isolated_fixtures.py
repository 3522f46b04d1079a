"""A fixture a module's tests share sees the suite's isolated environment, as a test does.

pytest sets up a module's fixtures before a test's own `isolated_environment`: one that copies
``os.environ`` or starts a command (the hostile tree's commands, the wheel's pip, the JSON
oracle) handed it the machine's HOME, XDG dirs, ``CLAUDE_CONFIG_DIR`` and ``WFTOP_*``
variables. ``tests/conftest.py`` isolates the session first (`isolated_session`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CLEARED, CLEARED_PREFIXES, KEPT

SET = {
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "WFTOP_CONFIG",
    "WFTOP_CACHE_DIR",
}
"""The variables the isolation points into a throwaway HOME."""


@pytest.fixture(scope="module")
def seen_by_a_module_fixture() -> dict[str, str]:
    return dict(os.environ)


def test_a_module_fixture_sees_the_isolated_environment(
    seen_by_a_module_fixture: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    seen = seen_by_a_module_fixture
    base = tmp_path_factory.getbasetemp()
    outside = {
        name: seen.get(name)
        for name in SET
        if name not in seen or not Path(seen[name]).is_relative_to(base)
    }
    assert outside == {}  # the machine's: its home, its config
    left = {
        name
        for name in seen
        if (name.startswith(CLEARED_PREFIXES) or name in CLEARED) and name not in KEPT
    }
    assert left - SET == {"WFTOP_ENGINE_LINGER", "TZ"}
    assert (seen.get("WFTOP_ENGINE_LINGER"), seen.get("TZ")) == ("1", "UTC")
