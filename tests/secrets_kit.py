"""Secrets of every shape `wftop.core.text.redact` masks, their slug forms, and a leak test.

Each `Sample` is a fake secret at its provider's real length (gitleaks' rules), planted as
`Sample.text` (the secret with what names it: ``aws_secret_access_key = …``); `Sample.secret`
is the part that must never be seen. The CLI writes a secret in three forms: as it is, in a
project folder's name (`project_slug` of the cwd) and in a script file's name (`name_slug` of
the run's name); `leaks` finds a recognisable piece of a secret in any of them.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
BASE64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"


def fill(alphabet: str, length: int, seed: str) -> str:
    """``length`` characters of ``alphabet``, the same for the same seed."""
    chosen = random.Random(seed)
    return "".join(chosen.choice(alphabet) for _ in range(length))


def project_slug(path: str) -> str:
    """A project folder's name: every character other than A–Z, a–z, 0–9 becomes ``-``
    (Claude Code's rule, written here from the spec, not taken from wftop)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def name_slug(name: str) -> str:
    """A script file's name from its run's name: lowercased, each run of other characters
    one ``-``, none at the ends."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "workflow"


@dataclass(frozen=True)
class Sample:
    kind: str
    text: str
    secret: str


def _sample(kind: str, prefix: str, body: str, suffix: str = "", name: str = "") -> Sample:
    return Sample(kind, f"{name}{prefix}{body}{suffix}", body)


def _openai(alphabet: str, half: int, seed: str) -> str:
    return fill(alphabet, half, seed) + "T3BlbkFJ" + fill(alphabet, half, seed + "2")


def _jwt(seed: str) -> str:
    header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    payload = "eyJzdWIiOi" + fill(URLSAFE.replace("-", ""), 40, seed)
    return f"{header}.{payload}.{fill(URLSAFE, 43, seed + 's')}"


def _pem(kind: str, seed: str, headers: str = "") -> Sample:
    body = (
        "\n".join(fill(BASE64, 64, f"{seed}{n}") for n in range(3)) + "\n=" + fill(BASE64, 4, seed)
    )
    text = f"-----BEGIN {kind}-----\n{headers}{body}\n-----END {kind}-----"
    return Sample("private_key", text, body)


def samples() -> list[Sample]:
    """One sample of every shape (several of the kinds that have several)."""
    s = _sample
    return [
        s("anthropic_admin_key", "sk-ant-admin01-", fill(URLSAFE, 93, "adm"), "AA"),
        s("anthropic_key", "sk-ant-api03-", fill(URLSAFE, 93, "ant"), "AA"),
        s("openai_key", "sk-proj-", _openai(URLSAFE, 74, "proj")),
        s("openai_key", "sk-svcacct-", _openai(URLSAFE, 58, "svcacct")),
        s("openai_key", "sk-", _openai(ALNUM, 20, "legacy")),
        s("stripe_key", "sk_live_", fill(ALNUM, 24, "stripe1")),
        s("stripe_key", "rk_live_", fill(ALNUM, 99, "stripe2")),
        s("stripe_key", "sk_test_", fill(ALNUM, 24, "stripe3")),
        s("github_pat", "github_pat_", fill(ALNUM + "_", 82, "ghpat")),
        *(s("github_token", f"gh{k}_", fill(ALNUM, 36, f"gh{k}")) for k in "pousr"),
        *(
            s("gitlab_token", prefix, fill(alphabet, length, prefix))
            for prefix, alphabet, length in [
                ("glpat-", URLSAFE, 20),
                ("gldt-", URLSAFE, 20),
                ("glffct-", URLSAFE, 20),
                ("glft-", URLSAFE, 20),
                ("glimt-", URLSAFE, 25),
                ("glagent-", URLSAFE, 50),
                ("gloas-", URLSAFE, 64),
                ("glrt-", URLSAFE, 20),
                ("glsoat-", URLSAFE, 20),
                ("glptt-", HEX, 40),
                ("GR1348941", URLSAFE, 20),
                ("_gitlab_session=", string.ascii_lowercase + string.digits, 32),
            ]
        ),
        s("gitlab_token", "glpat-", fill(URLSAFE, 27, "glroute") + ".01" + fill(HEX, 7, "g")),
        s("gitlab_token", "glcbt-", "1a2_" + fill(URLSAFE, 20, "glcbt")),
        *(
            s("aws_access_key", prefix, fill("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, prefix))
            for prefix in ("AKIA", "ASIA", "ABIA", "ACCA", "A3TX")
        ),
        s("aws_secret_key", "", fill(BASE64, 40, "awss"), name="aws_secret_access_key = "),
        s("aws_secret_key", "", fill(BASE64, 40, "awss2"), name='"SecretAccessKey": "'),
        s("aws_bedrock_key", "ABSKQmVkcm9ja0FQSUtleS", fill(BASE64, 110, "absk"), "="),
        s(
            "aws_bedrock_key",
            "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t",
            fill(BASE64, 120, "bedrock"),
            "==",
        ),
        s("gcp_service_account", "", fill(HEX, 40, "gcp"), '"', name='"private_key_id": "'),
        s("gcp_api_key", "AIza", fill(URLSAFE, 35, "aiza")),
        s("slack_token", "xoxb-1234567890-1234567890123-", fill(ALNUM, 24, "xoxb")),
        s("slack_token", "xoxp-1234567890-1234567890-1234567890123-", fill(HEX, 32, "xoxp")),
        s("slack_token", "xapp-1-A0123456789-1234567890123-", fill(HEX, 64, "xapp")),
        s("slack_token", "xoxe.xoxp-1-", fill(UPPER, 163, "xoxe")),
        s("slack_token", "xoxe-1-", fill(UPPER, 146, "xoxe-")),
        s(
            "slack_webhook",
            "https://hooks.slack.com/services/",
            f"T{fill(UPPER, 8, 'T')}/B{fill(UPPER, 10, 'B')}/{fill(ALNUM, 24, 'hook')}",
        ),
        s("npm_token", "npm_", fill(ALNUM, 36, "npm")),
        s("pypi_token", "pypi-AgEIcHlwaS5vcmc", fill(URLSAFE, 140, "pypi")),
        s("huggingface_token", "hf_", fill(string.ascii_letters, 34, "hf")),
        s("huggingface_token", "api_org_", fill(string.ascii_letters, 34, "hforg")),
        s("bearer_token", "Bearer ", fill(ALNUM + "._~+/-", 40, "bearer")),
        s("bearer_token", "bearer ", fill(ALNUM, 40, "bearer2"), name="authorization: "),
        s("bearer_token", "Bearer ", fill(ALNUM, 32, "bearer3"), name='"Authorization": "'),
        s("jwt", "", _jwt("jwt")),
        s("url_password", "", fill(ALNUM, 14, "urlpw"), "@db.example.com/app", "postgres://app:"),
        _pem("RSA PRIVATE KEY", "rsa"),
        _pem("PRIVATE KEY", "pk"),
        _pem("OPENSSH PRIVATE KEY", "ssh"),
        _pem("PGP PRIVATE KEY BLOCK", "pgp", "Version: GnuPG v2\n\n"),
    ]  # fmt: skip


NOT_IN_A_NAME_SLUG = {"url_password"}
"""Kinds whose form in a script's file name is not masked: lowercased, with each run of
punctuation one ``-``, nothing is left of ``://…:…@``. A ``Bearer`` token without
``authorization`` before it is not either (``bearer-…`` in lower case is ordinary words)."""


def name_slug_masked(sample: Sample) -> bool:
    """Whether the sample's form in a script's file name is masked."""
    if sample.kind in NOT_IN_A_NAME_SLUG:
        return False
    return not (sample.kind == "bearer_token" and "uthorization" not in sample.text)


def forms(secret: str) -> list[str]:
    """A secret as the CLI writes it: as it is, in a project folder's name, in a script's."""
    return [secret, project_slug(secret), name_slug(secret)]


def pieces(secret: str, width: int = 10) -> set[str]:
    """Every piece of ``width`` characters of every form of ``secret`` that holds at least
    eight letters or digits (a cut-off secret is still a leak)."""
    found = set()
    for form in forms(secret):
        for start in range(max(len(form) - width + 1, 1)):
            piece = form[start : start + width]
            if sum(char.isalnum() for char in piece) >= min(8, len(piece)):
                found.add(piece)
    return found


def leaks(text: str, chosen: list[Sample]) -> list[str]:
    """The kinds of the samples a recognisable piece of which ``text`` holds."""
    return sorted(
        {sample.kind for sample in chosen if any(p in text for p in pieces(sample.secret))}
    )


def project_folder(cwd: str) -> str:
    """The project folder Claude Code makes for ``cwd``: `project_slug`, and past 200
    characters the first 200 and a hash of the cwd (its UTF-16 units, as JavaScript's)."""
    slug = project_slug(cwd)
    if len(slug) <= 200:
        return slug
    units = cwd.encode("utf-16-le")
    value = 0
    for index in range(0, len(units), 2):
        value = (value * 31 + int.from_bytes(units[index : index + 2], "little")) & 0xFFFFFFFF
    value = abs(value - (1 << 32) if value >= 1 << 31 else value)
    digits = ""
    while True:
        value, digit = divmod(value, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not value:
            return f"{slug[:200]}-{digits}"


def one_of_each() -> list[Sample]:
    """The first sample of every kind."""
    chosen: dict[str, Sample] = {}
    for sample in samples():
        chosen.setdefault(sample.kind, sample)
    return list(chosen.values())
