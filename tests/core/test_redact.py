from __future__ import annotations

import pytest

from wftop.core.redact import Redactor, redact

SAMPLES = {
    "anthropic_key": "sk-ant-api03-AbCdEf0123456789xyz",
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "github_token": "ghp_abcdefghijklmnopqrstuvwxyz0123",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "slack_token": "xoxb-123456789012-abcdefghij",
    "bearer_token": "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
}


@pytest.mark.parametrize(("kind", "secret"), sorted(SAMPLES.items()))
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
    redactor(" ".join(SAMPLES.values()) + " " + SAMPLES["github_token"])
    assert redactor.total == 7
    assert redactor.summary().startswith("7 masked (")
    assert "github_token ×2" in redactor.summary()
