"""The quick secret test over a value's distinct strings (`wftop.core.text.distinct`): the
masked JSON it lets through is the one the test over the encoded text lets through."""

from __future__ import annotations

from enum import StrEnum

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.secrets_kit import samples
from wftop.core.read.deepjson import DeepJson, dumps
from wftop.core.text.distinct import strings_may_hold_secret
from wftop.core.text.redact import PATH_KEYS, Redactor, dumps_redacted

PIECES = [
    "sk-", "s", "ecret", "Secret", "\b", "earer", "bearer", "Bearer ", "eyJ", ":", "/", "://",
    "-----BEGIN", "ghp_", "AKIA", "a5", "w-1", "é", "\n", '"', "\\", " ", "-", "_", "key",
    "private_key_id", "PRIVATE_KEY_ID", "Authorization", "authorization", "https--",
]  # fmt: skip
"""Pieces of text: the literals of the quick test cut and whole, what JSON escapes, and
keys that name a secret."""
SECRETS = [sample.text for sample in samples()[::3]]
HEX40, BASE40 = "0123456789abcdef" * 2 + "01234567", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
"""Secrets found by the key they are under: no literal of the quick test is in them."""

texts = st.lists(st.sampled_from(PIECES + SECRETS), max_size=5).map("".join)
keys = texts | st.sampled_from(sorted(PATH_KEYS) + ["label", "secret", "Authorization"])
numbers = st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False)
plain = st.none() | st.booleans() | numbers | texts | st.sampled_from([HEX40, BASE40])


def deep(value: object) -> DeepJson:
    """``value`` held as its compact text, as a line nested too deep holds it."""
    return DeepJson(dumps(value).decode(), 1)


values = st.recursive(
    plain,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(keys, inner, max_size=4)
        | st.lists(st.dictionaries(keys, plain, max_size=3), max_size=4)
        | inner.map(lambda value: [value, value, value])
        | st.lists(inner, max_size=3).map(deep)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(values, st.booleans())
@example({"Authorization": "\bearer 0123456789abcdef"}, False)  # JSON writes \b: "bearer"
@example({"private_key_id": ["a", "x\tsk-"], "cwd": ("ghp_", SECRETS[1])}, True)
@example([deep({"client_secret": ["x", "x"]}), deep([SECRETS[2]])], True)
@example({"private_key_id": HEX40}, False)  # found by its key alone
@example([{"SecretAccessKey": BASE40}] * 2, False)
@example([{"a": "x", "b": "y"}, {"a": "x", "private_key_id": HEX40}], False)  # as many keys
@example([{"a": 1, "b": 2, "c": 3}, {"a": SECRETS[3]}], True)  # fewer keys than the first
@example([{"b": "y", "a": "x"}, {"a": SECRETS[4], "b": "z"}], False)  # the same keys
def test_the_masked_json_is_the_same_with_each_distinct_string_tested_once(value, indent):
    option = orjson.OPT_INDENT_2 if indent else 0
    by_text, by_strings = Redactor.for_json(), Redactor.for_json()
    expected = dumps_redacted(value, by_text, option)
    assert dumps_redacted(value, by_strings, option, distinct=True) == expected
    assert by_strings.masked == by_text.masked


def test_a_secret_is_found_in_a_key_a_value_a_repeated_list_and_a_deep_value():
    secret = SECRETS[0]
    labels = [f"w-{number}" for number in range(1000)]
    assert strings_may_hold_secret({"cached": labels, "live": labels}) is False
    assert strings_may_hold_secret({"cached": labels, "calls": [{"label": "a"}] * 3}) is False
    assert strings_may_hold_secret({"cached": [*labels, secret]}) is True
    assert strings_may_hold_secret({"calls": [{"label": "a", "reason": secret}]}) is True
    assert strings_may_hold_secret({"calls": [{"label": "a", "more": [secret]}]}) is True
    assert strings_may_hold_secret({f"x {secret}": 1}) is True
    assert strings_may_hold_secret([{"client_secret": "x"}]) is True
    assert strings_may_hold_secret([deep([[secret]])]) is True
    assert strings_may_hold_secret([deep({secret: 1})]) is True


class Word(StrEnum):
    SECRET = "sk-ant-api03-AbCdEf0123456789xyz"


def test_what_it_does_not_know_it_does_not_answer():
    assert strings_may_hold_secret({"a": ("x", "y")}) is None
    assert strings_may_hold_secret({"a": [Word.SECRET]}) is None
    assert strings_may_hold_secret({"a": {1, 2}}) is None
    masked = dumps_redacted({"a": ("x", SECRETS[0])}, Redactor(), distinct=True)
    assert SECRETS[0].encode() not in masked
