"""The engine names the project of every run it holds as a listing does
(`wftop.core.engine.holding.ProjectNames`): once its first rows are in, the name of each
project is masked once, not once for each of its runs (20,000 at a first start, after the
last rows read and before the list is whole)."""

from __future__ import annotations

from dataclasses import replace

from tests.corpus import CORPUS
from wftop.core.engine.holding import ProjectNames, held_of
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor


class Counted(Redactor):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def __call__(self, text: str) -> str:
        self.asked.append(text)
        return super().__call__(text)


def test_each_project_of_many_runs_is_named_as_its_runs_are_and_masked_once():
    (run,) = scan_roots([str(CORPUS / "clean")], processes=FakeProcessTable(), now=lambda: 0.0).runs
    row = RunRow.of(run)
    redactor = Counted()
    names = ProjectNames(redactor)
    held = {}
    places = ["/home/a/app", "/home/b/app/", "/home/a/tool", None]
    for number in range(400):
        cwd = places[number % 4]
        made = replace(row, run_id=f"wf_{number:08x}-000", cwd=cwd, project_name="stale")
        entry = held_of(made, redactor)
        held[entry.ident] = entry
        names.track(entry.ident, entry)
    redactor.asked.clear()
    renamed = names.rename(held)
    assert len(renamed) == 400 and all(held[entry.ident] is entry for entry in renamed)
    shown = {entry.cwd: entry.project_name for entry in held.values()}
    assert shown == {
        "/home/a/app": "a/app",
        "/home/b/app/": "b/app",
        "/home/a/tool": "tool",
        None: shown[None],
    }
    assert shown[None] not in ("stale", "")
    assert len(redactor.asked) <= 4 + 400  # each project's name once; each row made again
    assert redactor.asked.count("a/app") == 1 and redactor.asked.count("tool") == 1
    assert names.rename(held) == []  # nothing came or went
