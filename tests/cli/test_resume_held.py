"""``wftop resume --dry-run`` ends after its plan: the run, the plan and its JSON are held until
the process ends (`wftop.core.index.gcpause.held_to_exit`), not freed one object at a time as
the command returns (0.04 s of CPU of a 100,000-call plan); a process that plans again (a
test) holds only the last."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_resume_exact import argv, root
from wftop.cli.main import main
from wftop.core.resume.plan import Plan
from wftop.core.resume.policy import ResumePolicy

__all__ = ["root"]  # the killed tree, aged and with its cwd present (a fixture)


def test_a_dry_run_holds_its_plan_until_the_process_ends(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: list[weakref.ref[Plan]] = []
    real = ResumePolicy.plan

    def plan(self: ResumePolicy, *args: Any, **kwargs: Any) -> Plan:
        found = real(self, *args, **kwargs)
        made.append(weakref.ref(found))
        return found

    monkeypatch.setattr(ResumePolicy, "plan", plan)

    def unreachable_gone() -> None:
        gc.unfreeze()  # the dry run froze what it built: let a collection see it
        gc.collect()

    assert main(argv(root, "--json")) == 0
    assert '"forecast"' in capsys.readouterr().out
    unreachable_gone()
    held = made[0]()
    assert held is not None and held.run.fold.calls
    del held
    assert main(argv(root)) == 0
    unreachable_gone()
    assert made[0]() is None  # only the last plan is held
    assert made[1]() is not None
