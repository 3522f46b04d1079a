"""The resume asked of another host: its argv, and its events in words."""

from __future__ import annotations

import dataclasses

from tests.corpus import tree
from wftop.core.index.coldpass import scan_roots
from wftop.core.remote.resume import event_text, resume_args
from wftop.core.system.procs import FakeProcessTable


def test_every_value_from_the_host_is_an_option_value_or_after_the_double_dash():
    (run,) = scan_roots([str(tree("killed"))], processes=FakeProcessTable()).runs
    hostile = dataclasses.replace(
        run, folder=dataclasses.replace(run.folder, run_id="--force", session_id="--yes x")
    )
    argv = resume_args(hostile, "--yes")
    assert argv[: argv.index("--")] == [
        "resume",
        "--session=--yes x",
        f"--root={run.folder.root}",
        "--no-default-root",
        "--yes",
        "--json",
    ]
    assert argv[argv.index("--") + 1 :] == ["--force"]
    assert "--dry-run" in resume_args(run, "--dry-run")


def test_events_read_as_the_local_plan_words_them():
    assert event_text({"event": "state", "state": "running", "reason": "the workflow resumed"}) == (
        "running: the workflow resumed"
    )
    assert event_text({"event": "cache_miss", "label": "a5"}) == "cache miss: a5 runs again"
    done = {"event": "done", "state": "completed", "live": ["a5", "a6"], "cached": ["a1"]}
    assert event_text(done) == "completed · live: a5, a6 · from cache: a1"
    assert event_text({"event": "refused", "guard": "owner alive"}) == "refused: owner alive"
