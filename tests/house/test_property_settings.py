"""No property test is held to a time: on a loaded machine a right test still passes.

The suite's hypothesis profile (tests/conftest.py) has no deadline and no "too slow" health
check, whether or not hypothesis loaded its CI profile first; speed is measured in bench/.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def test_no_example_is_held_to_a_deadline_nor_called_too_slow() -> None:
    assert settings.default is not None
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


@settings(max_examples=2)
@given(st.integers())
def test_an_example_as_slow_as_one_on_a_loaded_machine_passes(number: int) -> None:
    time.sleep(0.25)  # longer than hypothesis's default deadline (200 ms), always
    assert isinstance(number, int)
