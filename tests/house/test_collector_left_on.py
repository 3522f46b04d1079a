"""Runs last (``tests/conftest.py`` orders it so): no test left the cyclic collector off.

``tests/conftest.py`` switches it back on after a test that found it on and left it off,
and names that test here: a test run after it would have run with the collector off (a
collector test among them failed so, in a shuffled order), and the test that switched it
off holds what the app's start paused it for, never ended.
"""

from __future__ import annotations

import pytest

from tests.conftest import LEFT_COLLECTOR_OFF


def test_no_test_left_the_collector_off(request: pytest.FixtureRequest) -> None:
    assert request.config.stash.get(LEFT_COLLECTOR_OFF, []) == []
