"""The quick test every masking starts with: could this text hold a secret at all?

Every shape `wftop.core.text.redact.PATTERNS` masks starts with, or holds, one of a few
literals (`_STARTS`); text holding none of them is returned as it is, after one pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

SCHEMES = (
    "https", "http", "postgresql", "postgres", "mysql", "mariadb", "rediss", "redis",
    "mongodb-srv", "mongodb", "amqps", "amqp", "sftp", "ftps", "ftp",
)  # fmt: skip
"""Schemes of URLs that hold passwords (not ``git`` or ``ssh``: ``~/git/.x`` is ``-git--x``)."""

_STARTS: tuple[tuple[str, str], ...] = (
    ("sk-", ""), ("sk_", "(?:live|test|prod)"), ("rk_", "(?:live|test|prod)"),
    ("rk-", "(?:live|test|prod)"), (":/", ""), ("-----BEGIN", ""), ("-ey", ""), (".ey", ""),
    ("private_key_id", ""), ("private-key-", ""), ("github_pat_", ""), ("github-pat-", ""),
    ("gh", "[pousr][_-]"), ("gl", "(?:pat|dt|ffct|ft|imt|agent|oas|rt|soat|cbt|ptt)-"),
    ("GR1348941", ""), ("gr1348941", ""), ("gitlab_session", ""), ("gitlab-session", ""),
    ("AKIA", ""), ("ASIA", ""), ("ABIA", ""), ("ACCA", ""), ("A3T", ""), ("ABSK", ""), ("AIza", ""),
    ("akia", ""), ("asia", ""), ("abia", ""), ("acca", ""), ("a3t", ""), ("absk", ""), ("aiza", ""),
    ("bedrock-api-key-", ""), ("xox", ""), ("xapp-", ""), ("XAPP-", ""), ("hooks.slack.com", ""),
    ("hooks-slack-com", ""), ("AgEIcHlwaS5vcmc", ""), ("ageichlwas5vcmc", ""), ("pypi-AgEI", ""),
    ("npm", "[_-][A-Za-z0-9]"), ("hf_", ""), ("hf-", ""), ("api_org_", ""), ("api-org-", ""),
    ("s", "(?ai:ecret)"), ("S", "(?ai:ecret)"), ("b", "(?ai:earer)"), ("B", "(?ai:earer)"),
    *((f"{scheme}--", "") for scheme in SCHEMES),
)  # fmt: skip
"""What every shape holds: the literal it starts with (or, for an AWS secret key, a
service account's key id and a bearer token, holds), and what must follow it."""


@cache
def _prefilter() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(start) + rest for start, rest in _STARTS))


def __getattr__(name: str) -> re.Pattern[Any]:
    """``PREFILTER``: `_STARTS` as one regex. Text it finds nothing in is returned as it
    is, so every field of every listed run can be masked. This is the definition;
    `may_hold_secret` (and `may_hold_secret_bytes` for ``PREFILTER_BYTES``) is the quick
    test the masking runs, held to it by a property test, as ``PREFILTER`` is held to
    `PATTERNS`. Compiled when asked for (the masking never asks)."""
    if name == "PREFILTER":
        return _prefilter()
    if name == "PREFILTER_BYTES":
        return re.compile(_prefilter().pattern.encode())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _trie(starts: tuple[tuple[str, str], ...]) -> str:
    """`_STARTS` as a regex whose branches share their first characters and each begin with
    a literal one, so the regex engine skips in C to where one of them could start: one
    pass over the text, where `PREFILTER` tries every branch at every character."""
    root: dict[str, Any] = {}
    for start, rest in starts:
        node = root
        for char in start:
            node = node.setdefault(char, {})
        node.setdefault("", []).append(rest)

    def branches(node: dict[str, Any]) -> list[str]:
        rests: list[str] = node.get("", [])
        if "" in rests:  # a whole literal ends here: nothing after it matters
            return [""]
        found = [re.escape(char) + below(child) for char, child in node.items() if char]
        return found + rests

    def below(node: dict[str, Any]) -> str:
        found = branches(node)
        return found[0] if len(found) == 1 else f"(?:{'|'.join(found)})"

    return "|".join(branches(root))


def _first_quick(text: str) -> re.Match[str] | None:
    """`_quick`'s first call: compiles the regex, which answers every later call."""
    global _quick
    _quick = re.compile(_trie(_STARTS)).search
    return _quick(text)


def _first_quick_bytes(data: bytes) -> re.Match[bytes] | None:
    global _quick_bytes
    _quick_bytes = re.compile(_trie(_STARTS).encode()).search
    return _quick_bytes(data)


_quick: Callable[[str], re.Match[str] | None] = _first_quick
_quick_bytes: Callable[[bytes], re.Match[bytes] | None] = _first_quick_bytes


def may_hold_secret(text: str) -> bool:
    """Whether ``PREFILTER`` finds anything in ``text``, in one pass (`_trie`)."""
    return _quick(text) is not None


def may_hold_secret_bytes(data: bytes) -> bool:
    """`may_hold_secret` of UTF-8 text (``PREFILTER_BYTES``)."""
    return _quick_bytes(data) is not None
