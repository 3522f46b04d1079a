"""Mask secret-shaped strings before anything is shown, logged or printed.

This is shape matching, not a guarantee: a secret that looks like ordinary text
is not found.

Every shape is matched in text and in its slug forms: Claude Code names a project folder
after its working directory with every character other than A–Z, a–z and 0–9 turned into
``-`` (``ghp_…`` in the cwd is ``ghp-…`` in every path under it), and a script file after
its run's name lowercased, with each run of other characters turned into one ``-``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from wftop.core.compared import compared
from wftop.core.read.deepjson import DeepJson, dumps
from wftop.core.text.compiled import Compiled
from wftop.core.text.distinct import strings_may_hold_secret
from wftop.core.text.prefilter import SCHEMES
from wftop.core.text.prefilter import may_hold_secret as may_hold_secret
from wftop.core.text.prefilter import may_hold_secret_bytes as may_hold_secret_bytes

_B = r"(?<![A-Za-z0-9])"
"""A token starts here, not inside a word: ``_`` and ``-`` are edges, as a slug makes them."""
_SEP = r"[\s\"'\\:=,;|-]{1,8}"
"""Between a secret's name and the secret: ``=``, ``: "``, ... and ``-`` in a slug."""
_PEM_LINE = r"[ -](?:[A-Z0-9_]+[ -])*?PRIVATE[ -]KEY(?:[ -]BLOCK)?-----"
"""The rest of a PEM or PGP ``BEGIN``/``END`` line: a word or a few, then ``PRIVATE KEY``."""


PATTERNS = Compiled(
    {
        "anthropic_admin_key": r"sk-ant-admin01-[A-Za-z0-9_-]{16,}",
        "anthropic_key": r"sk-ant-[A-Za-z0-9_-]{8,}",
        "openai_key": (
            rf"{_B}sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{{16,}}"
            rf"|{_B}sk-[A-Za-z0-9]{{32,}}(?![A-Za-z0-9_])"
        ),
        "stripe_key": (rf"{_B}[sr]k[_-](?:live|test|prod)[_-][A-Za-z0-9]{{10,}}"),
        "github_pat": (r"github(?:_pat_|-pat-)[A-Za-z0-9_-]{20,}"),
        "github_token": (rf"{_B}gh[pousr][_-][A-Za-z0-9]{{20,}}"),
        "gitlab_token": (
            rf"{_B}(?:gl(?:pat|dt|ffct|ft|imt|agent|oas|rt|soat)-[A-Za-z0-9_-]{{20,}}(?:\.[0-9a-z]{{9}})?"
            r"|glcbt-[A-Za-z0-9]{1,5}[_-][A-Za-z0-9_-]{20,}|glptt-[0-9a-f]{40}"
            r"|(?:GR|gr)1348941[A-Za-z0-9_-]{20,}|gitlab(?:_session=|-session-)[0-9a-z]{32})"
        ),
        "aws_bedrock_key": (
            rf"{_B}(?:ABSK|absk)[A-Za-z0-9+/=-]{{100,}}"
            r"|bedrock-api-key-(?:YmVkcm9jay5hbWF6b25hd3MuY29t|ymvkcm9jay5hbwf6b25hd3muy29t)"
            r"[A-Za-z0-9+/=%&._-]*"
        ),
        "gcp_service_account": (
            rf"private(?:_key_id|-key-id){_SEP}(?P<secret>[0-9a-f]{{40}})(?![A-Za-z0-9])"
        ),
        "gcp_api_key": (rf"{_B}(?:AIza|aiza)[A-Za-z0-9_-]{{35}}"),
        "slack_token": (
            rf"{_B}(?:xox[abposre]-[A-Za-z0-9-]{{10,}}|(?:xapp|XAPP)-\d-[A-Za-z0-9-]{{10,}})"
        ),
        "slack_webhook": (
            r"hooks(?:\.slack\.com/+(?:services|workflows|triggers)/[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+){0,2}"
            r"|-slack-com-+(?:services|workflows|triggers)-[A-Za-z0-9-]{20,})"
        ),
        "npm_token": (rf"{_B}npm[_-][A-Za-z0-9]{{36,}}"),
        "pypi_token": (r"pypi[_-](?:AgEIcHlwaS5vcmc|ageichlwas5vcmc)[A-Za-z0-9_-]+"),
        "huggingface_token": (rf"{_B}(?:hf[_-]|api_org_|api-org-)[A-Za-z]{{34,}}"),
        "aws_secret_key": (
            r"(?:(?ai:aws[_\-\s.]?secret(?:[_\-\s.]?access)?[_\-\s.]?key|secret[_\-\s.]?access[_\-\s.]?key)"
            rf"|{_B}(?:(?:AKIA|ASIA)[A-Z0-9]{{16}}|(?:akia|asia)[a-z0-9]{{16}}))"
            rf"{_SEP}(?P<secret>[A-Za-z0-9/+]{{40}}|[A-Za-z0-9-]{{40}})(?![A-Za-z0-9+=])"
        ),
        "aws_access_key": (
            rf"{_B}(?:(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{{16}}"
            r"|(?:a3t[a-z0-9]|akia|asia|abia|acca)[a-z0-9]{16})(?![A-Za-z0-9])"
        ),
        "url_password": (
            r"\b[A-Za-z][A-Za-z0-9+.\-]*:/{1,2}[^\s/?#@:]*:(?P<secret>[^\s/?#@]+)@"
            rf"|{_B}(?:{'|'.join(SCHEMES)})-{{2,3}}(?P<secret2>[A-Za-z0-9][A-Za-z0-9-]*)"
        ),
        "bearer_token": (
            rf"(?:(?ai:authorization){_SEP}(?=(?ai:bearer))|{_B}(?=Bearer|BEARER))"
            r"(?P<secret>(?ai:bearer)[\s-]+[A-Za-z0-9._~+/=-]{12,})"
        ),
        "jwt": (rf"{_B}ey[A-Za-z0-9_-]{{17,}}[.-]ey[A-Za-z0-9_-]{{17,}}(?:\.[A-Za-z0-9_-]*)?"),
        "private_key": (
            rf"-----BEGIN{_PEM_LINE}"
            rf"(?:[\s\S]*?-----END{_PEM_LINE}"
            r"|(?:[A-Za-z0-9+/=\s:.,()_-]|\\[nrt\\])*)"
            r"|(?<![a-z0-9])begin-(?:[a-z0-9]+-)*?private-key-(?:block-)?[a-z0-9-]*"
        ),
    }
)
"""Kinds of secret and their shapes, checked in this order (gitleaks' fixed prefixes for
the providers, at gitleaks' lengths or shorter: a secret cut short is still masked). A
shape with a ``secret`` group masks that group only (the name of an AWS secret key, the
user of a URL stay readable); the others mask the whole match. A PEM or PGP private key is
masked from its ``BEGIN`` line to its ``END`` line, or to the end of its base64 when the
text was cut before it. An AWS secret access key has no shape of its own (40 base64
characters): it is found after its name (``aws_secret_access_key``, ``SecretAccessKey``,
...) or after an access key id, as a service account's ``private_key_id`` is. Where a
shape's punctuation is part of it (``.`` in a JWT, ``://`` in a URL), its slug form is
that punctuation turned into ``-``; a URL's slug form (``https--…``, nothing left to tell
the user from the password) is masked to the end of the slug."""


def __getattr__(name: str) -> re.Pattern[Any]:
    """``PREFILTER`` and ``PREFILTER_BYTES``, as `wftop.core.text.prefilter` defines them."""
    if name in ("PREFILTER", "PREFILTER_BYTES"):
        from wftop.core.text import prefilter

        pattern: re.Pattern[Any] = getattr(prefilter, name)
        return pattern
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_NAMED = re.compile(r"(?ai)secret|private_key_id|authorization")
"""Keys whose value is a secret found by its name (`Redactor.item`)."""

PATH_KEYS = frozenset(
    ("root", "cwd", "project", "journal", "snapshot", "script_path", "transcript", "target_journal")
)
"""The keys of the paths in wftop's JSON outputs (``ls --json``, ``resume --dry-run --json``,
``scan --json``, ``export --format json``, ...): kept real there, for the scripts that open
them, and masked wherever a path is shown to a person."""


_CUT_SLUG = re.compile(r"(?<![A-Za-z0-9-])-[A-Za-z0-9-]{199}(?=-[0-9a-z]{1,7}(?![A-Za-z0-9-]))")
"""A project folder's name cut by Claude Code: 200 characters of the slug, ``-`` and a hash."""
_TAIL_STARTS = (
    ("anthropic_admin_key", r"sk-ant-admin01-"),
    ("anthropic_key", r"sk-ant-"),
    ("stripe_key", r"[sr]k-(?:live|test|prod)-"),
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-)?"),
    ("github_pat", r"github-pat-"),
    ("github_token", r"gh[pousr]-"),
    ("gitlab_token", r"(?:gl(?:pat|dt|ffct|ft|imt|agent|oas|rt|soat|cbt|ptt)-|GR1348941)"),
    ("gitlab_token", r"gitlab-session-+(?P<secret>)"),
    ("aws_access_key", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)"),
    (
        "aws_secret_key",
        r"(?ai:aws-?secret(?:-?access)?-?key|secret-?access-?key)-+(?P<secret>)",
    ),
    ("aws_bedrock_key", r"ABSK"),
    ("gcp_service_account", r"private-key-id-+(?P<secret>)"),
    ("gcp_api_key", r"AIza"),
    ("slack_token", r"(?:xox[abposre]-|xapp-)"),
    ("npm_token", r"npm-"),
    ("pypi_token", r"pypi-AgEI"),
    ("huggingface_token", r"(?:hf-|api-org-)"),
    ("jwt", r"eyJ"),
    ("bearer_token", r"(?:(?ai:authorization)-+(?P<secret>(?ai:bearer)-)|Bearer-)"),
    ("url_password", rf"(?:{'|'.join(SCHEMES)})-{{2,3}}(?P<secret>)"),
    ("private_key", r"-----BEGIN-"),
)
"""What is left of a secret where the cut fell inside it: its slug form's start, and what
follows to the cut, shorter than its shape wants."""


@cache
def _cut_tails() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """`_TAIL_STARTS` compiled (the first time a cut project folder's name is masked)."""
    return tuple(
        (kind, re.compile(rf"(?<![A-Za-z0-9]){start}[A-Za-z0-9][A-Za-z0-9-]*\Z"))
        for kind, start in _TAIL_STARTS
    )


def mask_one(kind: str) -> str:
    return f"[masked:{kind}]"


@compared
@dataclass(eq=False, repr=False)
class Redactor:
    """Masks secrets and counts, per kind, what it masked."""

    masked: Counter[str] = field(default_factory=Counter)
    keep: frozenset[str] = frozenset()
    """Keys of JSON objects whose string values are kept as they are (`for_json`)."""

    @classmethod
    def for_json(cls) -> Redactor:
        """A redactor for a JSON output: the paths in it (`PATH_KEYS`) are kept real, for
        scripts that open them; every other string is masked."""
        return cls(keep=PATH_KEYS)

    def __call__(self, text: str) -> str:
        if not may_hold_secret(text):
            return text
        if "-" in text:
            text = _CUT_SLUG.sub(self._cut_tail, text)
        for kind, pattern in PATTERNS.items():
            text, count = pattern.subn(_masker(kind), text)
            if count:
                self.masked[kind] += count
        return text

    def _cut_tail(self, slug: re.Match[str]) -> str:
        """A cut project folder's name with the secret the cut fell in masked."""
        body = slug.group(0)
        for kind, tail in _cut_tails():
            found = tail.search(body)
            if found is not None:
                self.masked[kind] += 1
                start = found.start("secret") if "secret" in tail.groupindex else found.start()
                return body[:start] + mask_one(kind)
        return body

    def item(self, key: object, value: str) -> str:
        """A string value of a JSON object, masked knowing its key: the value of
        ``private_key_id``, ``SecretAccessKey`` or ``Authorization`` is masked as the text
        ``<key>: <value>`` would be; a `keep` key's value is kept."""
        if not isinstance(key, str) or not _NAMED.search(key):
            return value if key in self.keep else self(value)
        if key in self.keep:
            return value
        named, prefix = Redactor(), f"{key}: "
        shown = named(prefix + value)
        if not shown.startswith(prefix):  # the key itself held a secret: the value alone
            return self(value)
        self.masked.update(named.masked)
        return shown[len(prefix) :]

    @property
    def total(self) -> int:
        return sum(self.masked.values())

    def summary(self) -> str:
        """``3 masked (anthropic_key ×2, github_token ×1)``, or an empty string."""
        if not self.total:
            return ""
        kinds = ", ".join(f"{kind} ×{count}" for kind, count in sorted(self.masked.items()))
        return f"{self.total} masked ({kinds})"


_ID_AFTER = re.compile(
    r"[/-](?:wf_[0-9a-f]{8}-[0-9a-f]{3}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"(?![0-9a-f])"
)
_ID_AFTER_LENGTH = len("/01234567-89ab-cdef-0123-456789abcdef")
"""A run id or session id after a secret, in a script's file name (``deploy-<secret>-wf_….js``)
or in a path (``<slug>/<session id>/…``), where a shape whose body takes ``-`` or ``/``
would run on over it: the mask ends before it."""


@cache
def _masker(kind: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a match: its ``secret`` group (or the ``secret2`` of a shape's
    other form) or else the whole of it, up to a run or session id that follows it."""
    mask = mask_one(kind)
    groups = [name for name in ("secret", "secret2") if name in PATTERNS[kind].groupindex]

    def replace(match: re.Match[str]) -> str:
        name = next((name for name in groups if match.start(name) >= 0), 0)
        begin, end = match.span(name)
        known = _ID_AFTER.search(match.string, begin, end + _ID_AFTER_LENGTH)
        if known is not None and known.start() < end:
            end = known.start()
        start, stop = match.span()
        return match.string[start:begin] + mask + match.string[end:stop]

    return replace


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


def dumps_redacted(
    value: Any, redactor: Redactor | None = None, option: int = 0, *, distinct: bool = False
) -> bytes:
    """``orjson.dumps`` of `redact_value` of `wftop.core.model.json_safe` of ``value``, in one
    encoder call when (as nearly always) its text is valid UTF-8 and holds no secret.
    ``distinct``: whether it may is asked of each distinct string of ``value`` once
    (`wftop.core.text.distinct`: for a value whose strings repeat), not of its text."""
    try:
        text = dumps(value, option=option)
    except TypeError:  # a surrogate or a non-string key: the slow, safe way
        text = None
    if text is not None:
        found = None
        if distinct:
            found = strings_may_hold_secret(value)
        if not (may_hold_secret_bytes(text) if found is None else found):
            return text
    from wftop.core.model import json_safe  # the slow way alone: the model is slow to load

    return dumps(redact_value(json_safe(value), redactor), option=option)


def _may_hold_secret(value: dict[str, Any] | list[Any]) -> bool:
    try:
        text = dumps(value)
    except TypeError:  # not plain JSON (a surrogate, a non-string key): walk it
        return True
    return may_hold_secret_bytes(text)


def redact_tree(value: Any, redactor: Redactor) -> Any:
    """A copy of a JSON-like value with every string (not the keys) passed through the
    redactor, at any depth (`redact_value` without its shortcut), without recursion: a
    `DeepJson` has its strings masked in its text."""
    made: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, made, 0)]  # (item, where it goes, at)
    while stack:
        item, into, at = stack.pop()
        if isinstance(item, str):
            into[at] = redactor(item)
        elif isinstance(item, dict):
            into[at] = made_dict = dict.fromkeys(item)  # the keys, in their order
            for key, inner in item.items():
                if isinstance(inner, str):  # a string is masked knowing its key
                    made_dict[key] = redactor.item(key, inner)
                else:
                    stack.append((inner, made_dict, key))
        elif isinstance(item, (list, tuple)):
            into[at] = made_list = [None] * len(item)
            stack += [(inner, made_list, index) for index, inner in enumerate(item)]
        elif type(item) is DeepJson:
            into[at] = item.map_strings(redactor)
        else:
            into[at] = item
    return made[0]
