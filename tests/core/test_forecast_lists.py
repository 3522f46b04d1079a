"""The forecasts of a plan that share their calls (resume-owner and relocate; surgical when
the heal drops nothing) share the lists of labels made of them, the re-runs of finished work
too: a plan of 100,000 calls made each list once, not once for each forecast, each priced
copy and each JSON field (identity and values compared, not time)."""

from __future__ import annotations

import time

import pytest

from tests.corpus import tree
from wftop.core.forecast.fates import LIVE_FATES
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume.plan import make_plan
from wftop.core.system.procs import FakeProcessTable


@pytest.mark.parametrize("name", ["killed", "mid-failure", "killed-in-parallel-resumed"])
def test_forecasts_of_the_same_calls_share_their_reruns(name: str) -> None:
    (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
    plan = make_plan(
        run,
        processes=FakeProcessTable(),
        now=time.time(),
        claude_bin="/nonexistent/claude",
        version_of=lambda _binary: (2, 1, 332),
    )
    owner, relocate = plan.forecasts["resume-owner"], plan.forecasts["relocate"]
    assert owner.calls is relocate.calls
    assert owner.rerun is relocate.rerun
    calls = owner.calls
    assert owner.rerun == [c.label for c in calls if c.had_result and c.fate in LIVE_FATES]
    assert plan.json_fields()["forecasts"]["relocate"]["rerun"] is owner.rerun
