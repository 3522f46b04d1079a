from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wftop.core.text.redact import Redactor, redact

SAMPLES = {
    "anthropic_key": "sk-ant-api03-AbCdEf0123456789xyz",
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "github_token": "ghp_abcdefghijklmnopqrstuvwxyz0123",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "slack_token": "xoxb-123456789012-abcdefghij",
    "bearer_token": "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
}
"""A sample of six shapes, in the order the forensic scan tests plant them by position."""
MORE_SAMPLES = {
    "openai_key": "sk-proj-AbCdEf0123456789_xyzXYZ-0123456789abcdef",
    "private_key": (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n"
        "-----END PRIVATE KEY-----"
    ),
}
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(("kind", "secret"), sorted({**SAMPLES, **MORE_SAMPLES}.items()))
def test_every_kind_is_masked_and_counted(kind, secret):
    redactor = Redactor()
    shown = redactor(f"token={secret} end")
    assert secret not in shown
    assert shown == f"token=[masked:{kind}] end"
    assert dict(redactor.masked) == {kind: 1}


def test_ordinary_text_is_left_alone():
    text = "ask the agent a5 to check sk-ant docs and the ghp_ prefix"
    assert redact(text) == text


def test_summary_lists_kinds():
    redactor = Redactor()
    samples = {**SAMPLES, **MORE_SAMPLES}
    redactor(" ".join(samples.values()) + " " + SAMPLES["github_token"])
    assert redactor.total == len(samples) + 1
    assert redactor.summary().startswith(f"{len(samples) + 1} masked (")
    assert "github_token ×2" in redactor.summary()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            f"aws_secret_access_key = {AWS_SECRET}",
            "aws_secret_access_key = [masked:aws_secret_key]",
        ),
        (
            f'{{"SecretAccessKey": "{AWS_SECRET}"}}',
            '{"SecretAccessKey": "[masked:aws_secret_key]"}',
        ),
        (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", "AWS_SECRET_ACCESS_KEY=[masked:aws_secret_key]"),
        (
            f"AKIAIOSFODNN7EXAMPLE {AWS_SECRET}",
            "[masked:aws_access_key] [masked:aws_secret_key]",
        ),
        (
            "clone https://deploy:hunter2-Pass@git.example.com/x.git",
            "clone https://deploy:[masked:url_password]@git.example.com/x.git",
        ),
        ("postgres://:pw0rd@db:5432/app", "postgres://:[masked:url_password]@db:5432/app"),
    ],
)
def test_secrets_known_by_their_context_keep_the_context(text, shown):
    assert redact(text) == shown


def test_a_private_key_cut_before_its_end_is_masked_to_the_end_of_its_base64():
    cut = "key: -----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAx+/=\\nQWERTY"
    assert redact(cut) == "key: [masked:private_key]"
    whole = MORE_SAMPLES["private_key"] + "\nafter"
    assert redact(whole) == "[masked:private_key]\nafter"


def test_lookalikes_are_left_alone_beside_the_real_thing():
    lookalikes = [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b in the log",
        "https://example.com/a:b@c and http://host:8080/path",
        "the secret is out; a sk-short key",
        "aws_secret_access_key = tooShort",
    ]
    text = "\n".join([*lookalikes, f"aws_secret_access_key={AWS_SECRET}"])
    expected = "\n".join([*lookalikes, "aws_secret_access_key=[masked:aws_secret_key]"])
    assert redact(text) == expected


FRAGMENTS = [
    "sk-", "s", "k", "-", "github_pat_", "gh", "p", "o", "_", "AKIA", "ASIA", "AK", "secret",
    "SeCrEt", "ſecret", "ecret", "xox", "b", "x", "Bearer", "://", ":/", "-----BEGIN", "----",
    "é", "ß", " ", "a", "\n", "🙂",
]  # fmt: skip


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join))
def test_the_quick_secret_test_never_misses_what_the_prefilter_finds(text):
    from wftop.core.text.redact import (
        PREFILTER,
        PREFILTER_BYTES,
        may_hold_secret,
        may_hold_secret_bytes,
    )

    if PREFILTER.search(text):
        assert may_hold_secret(text)
    data = text.encode()
    if PREFILTER_BYTES.search(data):
        assert may_hold_secret_bytes(data)


def test_the_quick_secret_test_passes_ordinary_text_by():
    from wftop.core.text.redact import may_hold_secret, may_hold_secret_bytes

    text = '{"agent":"a12","ok":true,"text":"high through the night, at https"}' * 50
    assert not may_hold_secret(text) and not may_hold_secret_bytes(text.encode())
