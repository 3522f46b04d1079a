"""Mask secret-shaped strings before anything is shown, logged or printed.

This is shape matching, not a guarantee: a secret that looks like ordinary text
is not found.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

PATTERNS: dict[str, re.Pattern[str]] = {
    "anthropic_key": re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}"),
    "github_pat": re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    "github_token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    "aws_access_key": re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    "slack_token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "bearer_token": re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]{12,}"),
}
"""Kinds of secret and their shapes, checked in this order."""


def mask_one(kind: str) -> str:
    return f"[masked:{kind}]"


@dataclass
class Redactor:
    """Masks secrets and counts, per kind, what it masked."""

    masked: Counter[str] = field(default_factory=Counter)

    def __call__(self, text: str) -> str:
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
