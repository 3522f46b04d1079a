"""Mask secret-shaped strings before anything is shown, logged or printed.

This is shape matching, not a guarantee: a secret that looks like ordinary text
is not found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from wftop.core.model import json_safe

PATTERNS: dict[str, re.Pattern[str]] = {
    "anthropic_key": re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    "openai_key": re.compile(
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{16,}|\bsk-[A-Za-z0-9]{32,}(?![\w-])"
    ),
    "github_pat": re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    "github_token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    "aws_secret_key": re.compile(
        r"(?:(?i:aws[_\-\s.]?secret(?:[_\-\s.]?access)?[_\-\s.]?key|secret[_\-\s.]?access[_\-\s.]?key)"
        r"|\b(?:AKIA|ASIA)[A-Z0-9]{16})"
        r"[\s\"'\\:=,;|]{1,8}(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
    ),
    "aws_access_key": re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    "slack_token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "bearer_token": re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]{12,}"),
    "url_password": re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:]*:(?P<secret>[^\s/?#@]+)@"),
    "private_key": re.compile(
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----"
        r"(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)"
    ),
}
"""Kinds of secret and their shapes, checked in this order. A shape with a ``secret`` group
masks that group only (the name of an AWS secret key, the user of a URL stay readable);
the others mask the whole match. A PEM private key is masked from its ``BEGIN`` line to
its ``END`` line, or to the end of its base64 when the text was cut before it. An AWS
secret access key has no shape of its own (40 base64 characters): it is found after its
name (``aws_secret_access_key``, ``SecretAccessKey``, ...) or after an access key id."""

PREFILTER = re.compile(
    r"sk-|github_pat_|gh[pousr]_|AKIA|ASIA|(?i:secret)|xox[abposr]-|Bearer|://|-----BEGIN"
)
"""The literal each shape starts with (or, for an AWS secret key, holds). Text without any
of them is returned as it is, so every field of every listed run can be masked. This is the
definition; `may_hold_secret` (and `may_hold_secret_bytes` for `PREFILTER_BYTES`) is the quick
test the masking runs, held to it by a property test."""
PREFILTER_BYTES = re.compile(PREFILTER.pattern.encode())

_LITERALS = ("sk-", "://", "AKIA", "ASIA", "Bearer", "-----BEGIN", "github_pat_")
_LITERALS_BYTES = tuple(literal.encode() for literal in _LITERALS)
_GH, _XOX = re.compile(r"gh[pousr]_"), re.compile(r"xox[abposr]-")
_GH_BYTES, _XOX_BYTES = re.compile(rb"gh[pousr]_"), re.compile(rb"xox[abposr]-")


def may_hold_secret(text: str) -> bool:
    """True wherever `PREFILTER` finds a literal (and a few times more), about ten times
    faster on long text: the alternation tries every literal at every character, where a
    substring test per literal runs in C."""
    for literal in _LITERALS:
        if literal in text:
            return True
    if ("gh" in text and _GH.search(text)) or ("xox" in text and _XOX.search(text)):
        return True
    return "secret" in text.casefold()  # every case of it, as (?i) matches (and more)


def may_hold_secret_bytes(data: bytes) -> bool:
    """`may_hold_secret` of UTF-8 text (`PREFILTER_BYTES`, whose case rule is ASCII's)."""
    for literal in _LITERALS_BYTES:
        if literal in data:
            return True
    if (b"gh" in data and _GH_BYTES.search(data)) or (b"xox" in data and _XOX_BYTES.search(data)):
        return True
    return b"secret" in data.lower()


def mask_one(kind: str) -> str:
    return f"[masked:{kind}]"


@dataclass
class Redactor:
    """Masks secrets and counts, per kind, what it masked."""

    masked: Counter[str] = field(default_factory=Counter)

    def __call__(self, text: str) -> str:
        if not may_hold_secret(text):
            return text
        for kind, pattern in PATTERNS.items():
            replace = _masker(kind, pattern)
            text, count = pattern.subn(replace, text)
            if count:
                self.masked[kind] += count
        return text

    @property
    def total(self) -> int:
        return sum(self.masked.values())

    def summary(self) -> str:
        """``3 masked (anthropic_key ×2, github_token ×1)``, or an empty string."""
        if not self.total:
            return ""
        kinds = ", ".join(f"{kind} ×{count}" for kind, count in sorted(self.masked.items()))
        return f"{self.total} masked ({kinds})"


def _masker(kind: str, pattern: re.Pattern[str]) -> str | Callable[[re.Match[str]], str]:
    """The replacement of a match: the whole of it, or its ``secret`` group only."""
    mask = mask_one(kind)
    if "secret" not in pattern.groupindex:
        return mask

    def keep_context(match: re.Match[str]) -> str:
        whole, start = match.group(0), match.start()
        return whole[: match.start("secret") - start] + mask + whole[match.end("secret") - start :]

    return keep_context


def redact(text: str) -> str:
    """Mask every secret-shaped string in ``text``."""
    if not may_hold_secret(text):  # as nearly always: no counter to make
        return text
    return Redactor()(text)


def redact_value(value: Any, redactor: Redactor | None = None) -> Any:
    """A copy of a JSON-like value with every string (not the keys) masked.

    A dict or list whose JSON text holds none of the `PREFILTER` literals cannot hold a
    secret: it is returned as it is (not copied), after one search instead of a walk.
    """
    mask = redactor if redactor is not None else Redactor()
    if isinstance(value, (dict, list)) and not _may_hold_secret(value):
        return value
    return redact_tree(value, mask)


def dumps_redacted(value: Any, redactor: Redactor | None = None, option: int = 0) -> bytes:
    """``orjson.dumps`` of `redact_value` of `wftop.core.model.json_safe` of ``value``, in one
    encoder call when (as nearly always) its text is valid UTF-8 and holds no secret."""
    try:
        text = orjson.dumps(value, option=option)
    except TypeError:  # a surrogate or a non-string key: the slow, safe way
        text = None
    if text is not None and not may_hold_secret_bytes(text):
        return text
    return orjson.dumps(redact_value(json_safe(value), redactor), option=option)


def _may_hold_secret(value: dict[str, Any] | list[Any]) -> bool:
    try:
        text = orjson.dumps(value)
    except TypeError:  # not plain JSON (a surrogate, a non-string key): walk it
        return True
    return may_hold_secret_bytes(text)


def redact_tree(value: Any, redactor: Redactor) -> Any:
    """A copy of a JSON-like value with every string (not the keys) passed through the
    redactor, at any depth (`redact_value` without its shortcut)."""
    if isinstance(value, str):
        return redactor(value)
    if isinstance(value, dict):
        return {key: redact_tree(item, redactor) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(item, redactor) for item in value]
    return value
