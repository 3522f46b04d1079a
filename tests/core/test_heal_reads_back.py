"""The heal writes exactly what the one reader reads.

On every journal written by a real CLI under ``tests/data`` and on a thousand generated
journals (every record kind, keyed and keyless, duplicates, invalid UTF-8, lone
surrogates, ``1e999``, ``NaN``, garbage, blank and whitespace lines, a torn last line that
parses or does not), the fold of the healed copy, read back by `wftop.core.read.jsonl`, equals
the heal's own prediction (`healed_fold`, what the plan and its forecast use), and the
lines it says it drops are the lines it dropped.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.corpus import DATA
from tests.relocate_kit import NEW_SID, RUN
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.resume.relocate import healed_fold, may_be_launched, relocate_journal

JOURNALS = sorted(DATA.rglob("journal.jsonl"))
"""Every journal a real CLI wrote under ``tests/data``."""


def read_back(source: Path, session: Path, run_id: str) -> None:
    """Heal ``source`` into ``session``; the copy folds to the prediction."""
    predicted, dropped = healed_fold(read_all(source).records)
    done = relocate_journal(source, session, run_id, heal=True)
    copy = JournalFold().feed_all(read_all(done.target).records)
    assert copy == predicted
    assert {line.line for line in done.dropped} == dropped


def journal_id(path: Path) -> str:
    return "/".join((*path.relative_to(DATA).parts[:2], path.parent.name))


@pytest.mark.parametrize("journal", JOURNALS, ids=journal_id)
def test_every_corpus_journal_heals_into_the_fold_it_predicts(journal, tmp_path):
    read_back(journal, tmp_path / "projects" / "-proj" / NEW_SID, journal.parent.name)


# -- generated journals ------------------------------------------------------------------------

KEYS = ["v2:" + "a" * 64, "v2:" + "b" * 64, "v2:" + "c" * 64, ""]
AGENTS = ["a1", "a2", "b7", ""]


def _record(kind: str, key: str, agent: str, label: str, payload: object) -> bytes:
    record: dict[str, object] = {"type": kind}
    if key:
        record["key"] = key
    record["agentId"] = agent
    if kind == "started":
        record["label"] = label
    if kind == "result":
        record["result"] = payload
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


records = st.builds(
    _record,
    st.sampled_from(["started", "started", "result", "failed", "failed", "resumed", "restoring"]),
    st.sampled_from(KEYS),
    st.sampled_from(AGENTS),
    st.sampled_from(["a1", "ç-ü", "x" * 40, ""]),
    st.one_of(st.none(), st.integers(), st.text(max_size=8), st.just({"n": [1, "two"]})),
)


def _damage(line: bytes, how: int) -> bytes:
    """The odd lines the CLI's JavaScript writes or a crash leaves, spliced into a record."""
    if how == 0:  # invalid UTF-8 inside the label or the result
        return line.replace(b'"a1"', b'"a\xff\xfe1"', 1)
    if how == 1:  # a string cut between the halves of a surrogate pair
        return line.replace(b'"result":null', b'"result":"cut \\ud83d"', 1)
    if how == 2:  # JSON.stringify of a number too large for a double, read back
        return line.replace(b'"result":null', b'"result":1e999', 1)
    if how == 3:  # not JSON to the CLI either
        return line.replace(b'"result":null', b'"result":NaN', 1)
    if how == 4:  # a repeated field: the last one counts
        return line.replace(b'{"type":', b'{"type":"failed","type":', 1)
    return line


lines = st.one_of(
    records,
    st.builds(_damage, records, st.integers(0, 4)),
    st.sampled_from([b"", b" ", b"\r", b"not json", b"42", b"null", b'{"a":1}{"b":2}', b"\xff"]),
)
journals = st.tuples(
    st.booleans(),
    st.lists(lines, max_size=14),
    st.one_of(st.just(b""), records, records.map(lambda raw: raw[: len(raw) // 2])),
)


@settings(
    max_examples=int(os.environ.get("WFTOP_HEAL_EXAMPLES", "1000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(journals)
def test_generated_journals_heal_into_the_fold_they_predict(journal):
    launched, body, tail = journal
    content = (b'{"type":"launched"}\n' if launched else b"") + b"".join(
        raw + b"\n" for raw in body
    )
    if may_be_launched(tail):
        tail = b""  # the relocation refuses such a journal, as the CLI does
    with tempfile.TemporaryDirectory(prefix="wftop-heal-") as folder:
        source = Path(folder) / "source" / "journal.jsonl"
        source.parent.mkdir()
        source.write_bytes(content + tail)
        read_back(source, Path(folder) / "projects" / "-proj" / NEW_SID, RUN)
