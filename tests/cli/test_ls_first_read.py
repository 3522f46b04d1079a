"""``wftop ls --json`` with nothing kept: each run's row made straight from its reader
(`wftop.core.index.countrow`), no `Run` nor `RunRow` made but for a run without its journal,
and printed as the full way prints it (`wftop.core.row.printed_item`), searched for secrets
in its strings but the paths alone."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.corpus import CORPUS, DATA, VERSIONS, copy_tree, only_journal
from wftop.cli.main import main
from wftop.core.index import coldpass, countrow, reader
from wftop.core.index.countrow import printed_moment, printed_named, printed_row
from wftop.core.index.rowfile import row_naming
from wftop.core.model import iso_utc
from wftop.core.read import failures
from wftop.core.read.failures import TAIL_BYTES, LastReplies
from wftop.core.row import RunRow, printed_item
from wftop.core.rowwire import moment
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


@pytest.mark.parametrize(
    "change",
    [{}, {"name": f"deploy {SECRET}"}, {"name": "not utf-8 \udcff"}, {"project_name": SECRET}],
    ids=["plain", "secret", "surrogate", "secret-name"],
)
def test_a_rows_naming_is_that_of_what_was_printed(change: dict[str, Any]) -> None:
    fields = {**FIELDS, "cwd": "/home/dev/p", "project": "-home-dev-p", "project_name": "p"}
    fields.update(change)
    redactor = Redactor.for_json()
    printed = printed_item(fields, redactor)
    assert printed_named(fields, redactor) == (printed, row_naming(printed))


def test_a_first_listing_takes_its_rows_names_from_their_fields_not_their_printed_text(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    parsed: Counter[str] = Counter()
    for module in (coldpass, countrow):
        real = row_naming

        def naming(row: bytes, real: Any = real) -> Any:
            parsed["rows"] += 1
            return real(row)

        monkeypatch.setattr(module, "row_naming", naming, raising=False)
    trees = sorted(tree for tree in CORPUS.iterdir() if tree.is_dir())
    roots = [arg for tree in trees for arg in ("--root", str(tree))]
    assert main(["ls", "--json", "--no-cache", "--no-default-root", *roots]) == 0
    rows = json.loads(capfd.readouterr()[0])
    assert len(rows) == len(trees) and all(row["project_name"] for row in rows)
    assert parsed == Counter()  # no row printed as it is was parsed back for its names


def test_a_first_listing_opens_the_transcript_of_a_failed_call_once(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    """What a failed call's transcript ends on is taken from its bytes read for what it
    spent, not from opening it again: the same rows as when each is opened again, a
    transcript longer than the tail that is searched among them."""
    padded = copy_tree("six-mid-failure", tmp_path)
    for path in only_journal(padded).parent.glob("agent-*.jsonl"):
        lines = path.read_text().splitlines()
        filler = json.dumps({"type": "attachment", "pad": "x" * 1000})
        body = lines[:-1] + [filler] * (2 * TAIL_BYTES // 1000) + lines[-1:]
        path.write_text("\n".join(body) + "\n")
    trees = [CORPUS / "api-errors-429", DATA / "fanout-failure", DATA / "six-mid-failure"]
    trees += [*sorted(VERSIONS.glob("*-mid-failure")), padded]
    roots = [arg for tree in trees for arg in ("--root", str(tree))]
    opened: Counter[str] = Counter()
    real = failures.last_api_error

    def last_api_error(path: str) -> Any:
        opened[path] += 1
        return real(path)

    monkeypatch.setattr(failures, "last_api_error", last_api_error)
    argv = ["ls", "--json", "--no-cache", "--no-default-root", *roots]
    assert main(argv) == 0
    told = capfd.readouterr()
    assert opened == Counter()
    monkeypatch.setattr(LastReplies, "tell", lambda self, path, data: None)
    assert main(argv) == 0
    assert capfd.readouterr() == told
    assert len(opened) >= len(trees)  # each tree's failures looked at a transcript
    rows = json.loads(told[0])
    assert all(row["failures"] for row in rows)
    assert {"rate_limited"} <= {item["kind"] for row in rows for item in row["failures"]}


def test_a_first_listing_prints_each_rows_last_activity_without_reading_it_back(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    read: Counter[str] = Counter()

    def read_back(value: Any, key: str) -> Any:
        read[key] += 1
        return moment(value, key)

    monkeypatch.setattr(countrow, "moment", read_back)
    trees = sorted(tree for tree in CORPUS.iterdir() if tree.is_dir())
    roots = [arg for tree in trees for arg in ("--root", str(tree))]
    assert main(["ls", "--json", "--no-cache", "--no-default-root", *roots]) == 0
    rows = json.loads(capfd.readouterr()[0])
    assert len(rows) == len(trees) and all(row["last_activity"] for row in rows)
    assert read == Counter()


class ReadFields(dict[str, Any]):
    """A row's fields that note which of them were read."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__(fields)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def items(self) -> Any:
        self.read.update(self)
        return super().items()

    def values(self) -> Any:
        self.read.update(self)
        return super().values()


def test_a_rows_masking_test_reads_only_the_fields_that_can_hold_text(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """`countrow.may_be_masked` of a row's fields searches those that can hold text a mask
    could change (`countrow.ROW_TEXTS`), not its numbers, flags and paths; and finds a
    secret in any of them."""
    trees = sorted(tree for tree in CORPUS.iterdir() if tree.is_dir())
    roots = [arg for tree in trees for arg in ("--root", str(tree))]
    assert main(["ls", "--json", "--no-cache", "--no-default-root", *roots]) == 0
    rows = json.loads(capfd.readouterr()[0])
    assert len(rows) == len(trees)
    for row in rows:
        assert row.keys() == countrow.ROW_KEYS
        fields = ReadFields(row)
        assert not countrow.may_be_masked(fields)
        assert fields.read <= set(countrow.ROW_TEXTS)
        for key in countrow.ROW_TEXTS:
            planted = SECRET if type(row[key]) is not list else [*row[key], SECRET]
            if key == "failures":
                planted = [{"label": "a6", "kind": SECRET}]
            assert countrow.may_be_masked({**row, key: planted}), key


EDGES = [0.0, 1.0005, 1.0004999, -1.0005, 1796500000.1235, 2.0**31 + 0.0005, 2.0**32 - 0.0005]


@given(
    st.one_of(
        st.sampled_from(EDGES),
        st.floats(-(2.0**35), 2.0**35),
        st.integers(-(2**32), 2**32).map(lambda ms: ms / 1000),
        st.integers(-(2**35), 2**35).map(lambda us: us / 1e6 + 0.0005),
    )
)
def test_a_moment_is_printed_as_a_row_read_back_prints_it(at: float) -> None:
    assert printed_moment(at) == iso_utc(moment(iso_utc(at), "last_activity"))
