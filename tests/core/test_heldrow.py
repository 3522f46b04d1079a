"""A row read for the engine's stream alone (its first rows of a large first read, not kept
in the rows cache) is printed once on its line: the same bytes, ident and names as the row
printed as ``ls`` prints it, masked, parsed and printed again on one line."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from tests.corpus import CORPUS, VERSIONS
from wftop.core.engine import heldrow
from wftop.core.engine.heldrow import printed
from wftop.core.index.coldpass import scan_roots
from wftop.core.row import RunRow
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import Redactor

ODD_NAMES = (
    "sk-ant-api03-" + "a1B2" * 20,  # a secret: masked
    "https://user:hunter2@example.com/x",  # a password in a URL
    "bell\x07 del\x7f c1\x85 bidi\u202e sep\u2028",  # controls, escaped as printed
    "caf\udce9",  # a name that was not UTF-8
    "plain ✔ — naïve",
)


def corpus_rows() -> list[RunRow]:
    rows: list[RunRow] = []
    for tree in sorted([*CORPUS.iterdir(), *VERSIONS.iterdir()]):
        scan = scan_roots([str(tree)], processes=FakeProcessTable(), now=lambda: 0.0)
        for run in scan.runs:
            rows += [RunRow.of(run), RunRow.of(run, pending=True)]
    return rows


def test_a_row_for_the_stream_alone_is_the_line_it_was_printed_as():
    redactor = Redactor.for_json()
    rows = corpus_rows()
    assert len(rows) > 30
    odd = [
        replace(row, **{field: name})
        for row in rows[:4]
        for name in ODD_NAMES
        for field in ("name", "project_name", "cwd", "script_path")
    ]
    for row in rows + odd + [replace(rows[0], cwd=None, in_flight=("a1", "a2"))]:
        assert printed(row, redactor, keep=False)[1] == printed(row, redactor, keep=True)[1]


def test_a_plain_row_for_the_stream_alone_is_neither_indented_nor_parsed(monkeypatch):
    parsed: list[bytes] = []

    class Counted:
        JSONDecodeError = orjson.JSONDecodeError
        dumps = staticmethod(orjson.dumps)

        @staticmethod
        def loads(data: bytes) -> Any:
            parsed.append(data)
            return orjson.loads(data)

    monkeypatch.setattr(heldrow, "orjson", Counted)
    row = corpus_rows()[0]
    line, ident, naming = printed(row, Redactor.for_json(), keep=False)[1]
    assert not parsed and b"\n" not in line
    assert (ident, naming) == (row.ident, (row.cwd, row.project, row.project_name))
