"""The gate of text on its way to a terminal, over generated strings: every code point and
every shape of escape sequence."""

from __future__ import annotations

import re

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from wftop.core.text.gate import (
    BIDI,
    SEPARATORS,
    escape_json,
    gate,
    gate_lines,
    not_copyable,
    shown,
)
from wftop.core.text.jsonout import dumps

STOPPED = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI}{SEPARATORS}\ud800-\udfff]")
"""What a terminal may act on, or cannot be written at all: none of it may pass."""

every_code_point = st.characters(exclude_categories=())
"""Surrogates included (a name that was not UTF-8 reads as them)."""

ESCAPES = [
    "\x1b]52;c;{payload}\x07",  # OSC 52: set the clipboard
    "\x1b]52;c;{payload}\x1b\\",  # the same, ended by ST
    "\x1b]0;{payload}\x07",  # OSC 0: the window title
    "\x1b]8;;https://{payload}\x1b\\link\x1b]8;;\x1b\\",  # OSC 8: a hyperlink
    "\x1b[2J",  # CSI: clear the screen
    "\x1b[{n};{n}H",  # cursor position
    "\x1b[{n}A\x1b[{n}C",  # cursor moves
    "\x1bP{payload}\x1b\\",  # DCS
    "\x1b[?1049h",  # the alternate screen
    "\x9b2J",  # 8-bit CSI
    "\x9d52;c;{payload}\x9c",  # 8-bit OSC, ended by 8-bit ST
    "\x90{payload}\x9c",  # 8-bit DCS
    "\u202e{payload}\u202c",  # a right-to-left override
    "\u2066{payload}\u2069",  # an isolate
]


@st.composite
def escape_shapes(draw: st.DrawFn) -> str:
    shape = draw(st.sampled_from(ESCAPES))
    payload = draw(st.text(st.characters(codec="ascii", min_codepoint=0x20), max_size=12))
    return shape.format(payload=payload, n=draw(st.integers(0, 999)))


hostile_text = st.lists(st.one_of(st.text(every_code_point), escape_shapes()), max_size=6).map(
    "".join
)


@given(hostile_text)
@example("\x1b]52;c;bWFya2Vy\x07")
def test_nothing_a_terminal_acts_on_passes_and_the_rest_is_kept(text):
    out = gate(text)
    assert STOPPED.search(out) is None
    out.encode("utf-8")  # writable: no lone surrogate left
    assert gate(out) == out  # what the gate let through passes it again unchanged
    # each character is shown on its own: kept when safe, else as printable text
    assert out == "".join(gate(char) for char in text)
    for char in text:
        if STOPPED.match(char):
            assert gate(char) and gate(char).isprintable()
        else:
            assert gate(char) == char


@given(hostile_text)
def test_the_lines_version_keeps_lines_and_tabs_only(text):
    out = gate_lines(text)
    assert STOPPED.search(out.replace("\n", "").replace("\t", "")) is None
    assert out.split("\n") == [gate(line).replace("⇥", "\t") for line in text.split("\n")] or (
        "⇥" in text  # a tab picture written as such is not told apart from a tab here
    )
    assert out.count("\n") == text.count("\n")


@given(st.text(st.characters(exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp"))))
def test_clean_text_comes_back_as_it_was(text):
    assert gate(text) is text or gate(text) == text


def test_what_each_class_reads_as():
    assert gate("a\x1b[2Jb") == "a␛[2Jb"
    assert gate("\x1b]52;c;eA==\x07") == "␛]52;c;eA==␇"
    assert gate("\x9b2J\x9d0;t\x9c") == "\\x9b2J\\x9d0;t\\x9c"
    assert gate("one\ntwo\r\tthree\x7f") == "one↵two␍⇥three␡"
    assert gate("abc\u202edef\u2066\u200f\u061c") == "abc\\u202edef\\u2066\\u200f\\u061c"
    assert gate("name\udcff") == "name\\xff"  # a byte that was not UTF-8
    assert gate("\ud800") == "\\ud800"
    assert gate_lines("a\nb\tc\x1b") == "a\nb\tc␛"
    assert gate("résumé ✔ 日本語 👩‍💻 a\u00a0b") == "résumé ✔ 日本語 👩‍💻 a\u00a0b"


def test_secrets_are_masked_before_the_gate():
    """A secret cut by a control character or a newline is masked as it was written."""
    key = "sk-ant-api03-Zq7SECRETanthropic0123456789"
    assert shown(f"{key}\x1b[2J") == "[masked:anthropic_key]␛[2J"
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAZq7\n-----END RSA PRIVATE KEY-----"
    assert shown(f"key\n{pem}") == "key↵[masked:private_key]"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("wf_ok-123", None),
        ("/home/me/work dir/journal.jsonl", None),
        ("a\nb", "it holds a line break"),
        ("a\rb", "it holds a line break"),
        ("a\x1b]52;c;eA==\x07", "it holds a control character (␛)"),
        ("a\x9bb", "it holds a control character (\\x9b)"),
        ("a\u202eb", "it holds a bidirectional control (\\u202e)"),
    ],
)
def test_what_may_not_be_copied(value, why):
    assert not_copyable(value) == why


valid_utf8 = st.characters(exclude_categories=("Cs",))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(valid_utf8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(valid_utf8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values)
@example(["\x9b2J", "\x7f", "\u202e", "\u2028", "\x1b[2J", "\u0085"])
def test_json_escapes_what_a_terminal_acts_on_and_reads_back_the_same(value):
    for indent in (False, True):
        data = dumps(value, indent=indent)
        assert orjson.loads(data) == value
        text = data.decode()
        assert STOPPED.search(text.replace("\n", "")) is None
        assert escape_json(data) == data


def test_json_with_a_name_that_was_not_utf8_reads_it_as_bytes():
    assert orjson.loads(dumps({"path": "/x/\udcff\x9b"})) == {"path": "/x/\\xff\x9b"}
    assert orjson.loads(dumps(["\ud800"])) == ["\\ud800"]
