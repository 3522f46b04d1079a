"""A row read for the engine's stream alone (its first rows of a large first read, not kept
in the rows cache) is printed once on its line: the same bytes, ident and names as the row
printed as ``ls`` prints it, masked, parsed and printed again on one line."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import orjson

from tests.corpus import CORPUS, VERSIONS
from wftop.core.engine import printing
from wftop.core.engine.printing import printed_fields
from wftop.core.index.coldpass import scan_roots
from wftop.core.read.runfolder import run_ident
from wftop.core.row import RunRow, array_line, printed_item
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text import redact
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


def as_printed(fields: dict[str, Any], redactor: Redactor) -> tuple[bytes, Any]:
    """A row printed as ``ls`` prints it, masked, parsed and printed again on its line as the
    stream sends it (an array of its values), with its ident and names read from what was
    printed: what `printed_fields` gives, kept."""
    item = printed_item(fields, redactor)
    data = orjson.loads(item)
    ident = run_ident(data["root"], data["session_id"], data["run_id"])
    naming = (data.get("cwd"), data["project"], data.get("project_name", ""))
    return item, (array_line(data), ident, naming)


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
        printed = as_printed(row.json_fields(), redactor)
        assert printed_fields(row.json_fields(), redactor, keep=True) == printed
        assert printed_fields(row.json_fields(), redactor, keep=False) == (b"", printed[1])


TEXTS = (
    "run_id", "session_id", "project", "project_name", "root", "cwd", "name", "journal",
    "snapshot", "script_path", "superseded_by", "unreadable_reason",
)  # fmt: skip
"""Every text field of a row (paths too: kept real, the masking searches them not)."""


def test_a_secret_in_any_text_of_a_row_for_the_stream_alone_is_masked_as_printed():
    """Only a row's string values are searched for a secret's literals, not its keys or the
    paths it keeps real: a secret anywhere else, at any depth (labels, the failures'
    labels, the unpriced models), is masked as the row printed as ``ls`` prints it is."""
    redactor = Redactor.for_json()
    row = corpus_rows()[0]
    for secret in ODD_NAMES[:2]:
        made = [replace(row, **{field: secret}) for field in TEXTS]
        made += [
            replace(row, in_flight=("a1", secret)),
            replace(row, failed_calls=(secret,), failures=((secret, "unknown"),)),
            replace(row, failures=(("a1", secret),)),
            replace(row, unpriced_models=("m", secret)),
        ]
        for odd in made:
            printed = as_printed(odd.json_fields(), redactor)
            line = printed_fields(odd.json_fields(), redactor, keep=False)[1]
            assert line == printed[1]
            assert printed_fields(odd.json_fields(), redactor, keep=True) == printed
            assert line[0] != printed_fields(row.json_fields(), redactor, keep=False)[1][0]


def test_no_key_of_a_row_names_a_secret():
    """A value under a key naming a secret is masked by its key's name, which the search of
    a row's values alone would miss (`wftop.core.text.redact.Redactor.item`)."""
    fields = corpus_rows()[0].json_fields()
    keys = [*fields, *fields["tokens"], *fields["call_states"], "label", "kind"]
    assert len(keys) > 40
    assert not [key for key in keys if re.search(r"(?ai)secret|private_key_id|authorization", key)]


def count_parsing(monkeypatch: Any) -> list[bytes]:
    """What `printed_fields` parses from now on."""
    parsed: list[bytes] = []

    class Counted:
        JSONDecodeError = orjson.JSONDecodeError
        dumps = staticmethod(orjson.dumps)

        @staticmethod
        def loads(data: bytes) -> Any:
            parsed.append(data)
            return orjson.loads(data)

    monkeypatch.setattr(printing, "orjson", Counted)
    return parsed


def test_a_plain_row_for_the_stream_alone_is_neither_indented_nor_parsed(monkeypatch):
    parsed = count_parsing(monkeypatch)
    row = corpus_rows()[0]
    line, ident, naming = printed_fields(row.json_fields(), Redactor.for_json(), keep=False)[1]
    assert not parsed and b"\n" not in line
    assert (ident, naming) == (row.ident, (row.cwd, row.project, row.project_name))


def test_a_plain_row_kept_is_printed_indented_and_on_its_line_with_neither_parsed(monkeypatch):
    """Kept (for the rows cache), a row that masking leaves as it is is printed once each
    way: its indented text is neither searched for a secret nor parsed to make its line."""
    redactor = Redactor.for_json()
    fields = corpus_rows()[0].json_fields()
    printed = as_printed(fields, redactor)
    parsed = count_parsing(monkeypatch)
    searched: list[bytes] = []
    monkeypatch.setattr(redact, "may_hold_secret_bytes", searched.append)
    assert printed_fields(fields, redactor, keep=True) == printed
    assert not parsed and not searched


def test_a_row_whose_paths_alone_hold_a_secrets_literal_is_not_parsed(monkeypatch):
    """The paths a row keeps real are not searched: a project in a folder ``secrets`` is
    printed once, as a row with no such literal is."""
    redactor = Redactor.for_json()
    folder = "/home/dev/secrets/app"
    row = replace(corpus_rows()[0], cwd=folder, script_path=folder + "/bearer-sk-x.js")
    as_printed = printed_fields(row.json_fields(), redactor, keep=True)[1]
    parsed = count_parsing(monkeypatch)
    assert printed_fields(row.json_fields(), redactor, keep=False)[1] == as_printed
    assert not parsed
