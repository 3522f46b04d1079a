"""What a listed run's own object holds: an index keeps every run it lists (20,000 of
them), each asked for its identity, project, shown status and call counts by every sort,
filter and row drawn, and keeping those once made must not cost a dict per run."""

from __future__ import annotations

import sys

from tests.corpus import tree
from wftop.core.index.coldpass import scan_roots
from wftop.core.model import count_calls, short_project, status_word
from wftop.core.system.procs import FakeProcessTable

TREES = ("clean", "mid-failure", "killed", "resumed")


def held(run: object) -> int:
    return sys.getsizeof(run) + (sys.getsizeof(vars(run)) if hasattr(run, "__dict__") else 0)


def test_a_listed_run_keeps_what_lists_ask_of_it_in_a_few_hundred_bytes():
    for name in TREES:
        (run,) = scan_roots([str(tree(name))], processes=FakeProcessTable()).runs
        kept = (run.ident, run.project_short, run.shown_status, run.call_counts)
        assert kept == (
            run.folder.ident,
            short_project(run.cwd, run.folder.project),
            status_word(run.status.value, len(run.failed_labels)),
            count_calls(run),
        )
        assert kept[0] is run.ident and kept[3] is run.call_counts  # made once
        # 216 bytes slotted; 888 with an instance dict holding these four values.
        assert held(run) < 400, held(run)


def test_a_run_folder_that_is_no_link_holds_its_path_once():
    (run,) = scan_roots([str(tree("clean"))], processes=FakeProcessTable()).runs
    folder = run.folder
    assert folder.real_path == folder.path
    assert folder.real_path is folder.path  # 20,000 runs: one path string each, not two
