"""``wftop ls --json`` with nothing kept: each run's row made straight from its reader
(`wftop.core.index.countrow`), no `Run` nor `RunRow` made but for a run without its journal,
and printed as the full way prints it (`wftop.core.row.printed_item`), searched for secrets
in its strings but the paths alone."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from tests.corpus import CORPUS, DATA
from wftop.cli.main import main
from wftop.core.index import reader
from wftop.core.index.countrow import printed_row
from wftop.core.row import RunRow, printed_item
from wftop.core.text import redact
from wftop.core.text.redact import Redactor

SHAPES = DATA / "shapes"
SECRET = "sk-ant-api03-" + "Q" * 24


def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many runs and rows were made, and how many texts the masking's quick test
    searched as bytes (a row's printed text), from now on in this process."""
    made: Counter[str] = Counter()
    made_run, row_of, search = reader.made_run, RunRow.of.__func__, redact.may_hold_secret_bytes

    def run(*args: Any, **kwargs: Any) -> Any:
        made["run"] += 1
        return made_run(*args, **kwargs)

    def row(cls: type[RunRow], *args: Any, **kwargs: Any) -> RunRow:
        made["row"] += 1
        return row_of(cls, *args, **kwargs)

    def searched(data: bytes) -> bool:
        made["searched"] += 1
        return search(data)

    monkeypatch.setattr(reader, "made_run", run)
    monkeypatch.setattr(RunRow, "of", classmethod(row))
    monkeypatch.setattr(redact, "may_hold_secret_bytes", searched)
    return made


def test_a_first_listing_makes_a_run_and_a_row_object_only_for_a_run_without_its_journal(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    trees = sorted(tree for tree in CORPUS.iterdir() if tree.is_dir())
    trees += [SHAPES / "no-journal", SHAPES / "no-journal-dead"]
    roots = [arg for tree in trees for arg in ("--root", str(tree))]
    made = counted(monkeypatch)
    assert main(["ls", "--json", "--no-cache", "--no-default-root", *roots]) == 0
    rows = json.loads(capfd.readouterr()[0])
    assert len(rows) == len(trees) and sum(row["journal"] is None for row in rows) == 2
    # no row's whole text searched: its strings but the paths hold no secret's start
    assert made == Counter({"run": 2, "row": 2})


FIELDS: dict[str, Any] = {
    "run_id": "wf_0b0b0b0b-001",
    "name": "mock-six",
    "root": "/home/dev/.claude-secret",
    "in_flight": ["a3", "bearer of news"],
    "tokens": {"input": 3, "output": 0},
    "failures": [{"label": "a6", "kind": "rate_limited"}],
    "cost_usd": 0.25,
    "host": None,
}


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"name": f"deploy {SECRET}"},
        {"name": "deploy \u009b31m \u202egnp.exe"},
        {"name": "not utf-8 \udcff"},
        {"in_flight": [f"call {SECRET}"]},
        {"failures": [{"label": "a6", "kind": f"https://u:{SECRET}@host/"}]},
        {"cwd": f"/home/dev/{SECRET}"},
        {"extra": ("a tuple", 1)},
    ],
    ids=["plain", "secret", "controls", "surrogate", "label", "kind", "path", "tuple"],
)
def test_a_row_is_printed_as_the_full_way_prints_it(change: dict[str, Any]) -> None:
    fields = {**FIELDS, **change}
    redactor = Redactor.for_json()
    assert printed_row(fields, redactor) == printed_item(fields, redactor)
