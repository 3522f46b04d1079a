"""Mask secret-shaped strings before anything is shown, logged or printed.

This is shape matching, not a guarantee: a secret that looks like ordinary text
is not found.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from wftop.core.model import json_safe

PATTERNS: dict[str, re.Pattern[str]] = {
    "anthropic_key": re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    "github_pat": re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    "github_token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    "aws_access_key": re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    "slack_token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "bearer_token": re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]{12,}"),
}
"""Kinds of secret and their shapes, checked in this order."""

PREFILTER = re.compile(r"sk-ant-|github_pat_|gh[pousr]_|AKIA|ASIA|xox[abposr]-|Bearer")
"""The literal each shape starts with. Text without any of them is returned as it is: one
cheap search instead of every pattern, so every field of every listed run can be masked."""
PREFILTER_BYTES = re.compile(PREFILTER.pattern.encode())


def mask_one(kind: str) -> str:
    return f"[masked:{kind}]"


@dataclass
class Redactor:
    """Masks secrets and counts, per kind, what it masked."""

    masked: Counter[str] = field(default_factory=Counter)

    def __call__(self, text: str) -> str:
        if PREFILTER.search(text) is None:
            return text
        for kind, pattern in PATTERNS.items():
            text, count = pattern.subn(mask_one(kind), text)
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


def redact(text: str) -> str:
    """Mask every secret-shaped string in ``text``."""
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
    if text is not None and PREFILTER_BYTES.search(text) is None:
        return text
    return orjson.dumps(redact_value(json_safe(value), redactor), option=option)


def _may_hold_secret(value: dict[str, Any] | list[Any]) -> bool:
    try:
        text = orjson.dumps(value)
    except TypeError:  # not plain JSON (a surrogate, a non-string key): walk it
        return True
    return PREFILTER_BYTES.search(text) is not None


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
