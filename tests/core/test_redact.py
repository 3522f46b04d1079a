from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.secrets_kit import (
    HEX,
    Sample,
    leaks,
    name_slug,
    name_slug_masked,
    project_folder,
    project_slug,
    samples,
)
from wftop.core.text.redact import (
    PATTERNS,
    PREFILTER,
    PREFILTER_BYTES,
    Redactor,
    may_hold_secret,
    may_hold_secret_bytes,
    redact,
    redact_value,
)

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
    "SeCrEt", "ſecret", "ecret", "xox", "b", "x", "Bearer", "bEaReR", "://", ":/", "-----BEGIN",
    "----", "é", "ß", " ", "a", "\n", "🙂", "K", "İ", "ı", "gl", "pat", "ptt", "rk", "k_", "live",
    "npm", "A", ".", "ey", "J", "https", "--", "hf", "api", "org", "private", "key", "id",
]  # fmt: skip


def shape_forms() -> list[str]:
    """Every shape as it is, in a project folder's name and (where masked) a script's."""
    chosen = samples()
    return (
        [sample.text for sample in chosen]
        + [project_slug(sample.text) for sample in chosen]
        + [name_slug(sample.text) for sample in chosen if name_slug_masked(sample)]
    )


@st.composite
def shape_pieces(draw: st.DrawFn) -> str:
    """A piece of a secret in one of its forms: whole, or cut anywhere."""
    form = draw(st.sampled_from(shape_forms()))
    start = draw(st.integers(0, len(form)))
    return form[start : draw(st.integers(start, len(form)))]


@given(st.lists(st.sampled_from(FRAGMENTS) | shape_pieces(), max_size=12).map("".join))
def test_the_quick_secret_test_never_misses_what_the_prefilter_finds(text):
    if PREFILTER.search(text):
        assert may_hold_secret(text)
    data = text.encode()
    if PREFILTER_BYTES.search(data):
        assert may_hold_secret_bytes(data)


@given(st.lists(st.sampled_from(FRAGMENTS) | shape_pieces(), max_size=8).map("".join))
def test_the_prefilter_never_misses_what_the_shapes_find(text):
    for form in (text, project_slug(text), name_slug(text)):
        if any(pattern.search(form) for pattern in PATTERNS.values()):
            assert PREFILTER.search(form), form
            assert may_hold_secret(form) and may_hold_secret_bytes(form.encode()), form


@pytest.mark.parametrize("form", shape_forms())
def test_the_prefilter_finds_every_shape_in_every_form(form):
    assert PREFILTER.search(form) and PREFILTER_BYTES.search(form.encode())
    assert may_hold_secret(form) and may_hold_secret_bytes(form.encode())


def test_the_quick_secret_test_passes_ordinary_text_by():
    text = '{"agent":"a12","ok":true,"text":"high through the night, at https"}' * 50
    assert not may_hold_secret(text) and not may_hold_secret_bytes(text.encode())


# -- every shape, in text and in the slugs the CLI makes of it ---------------------------------

RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"
SHAPES = samples()


def sample_id(sample: Sample) -> str:
    return f"{sample.kind}:{sample.text[:14]}"


@pytest.mark.parametrize("sample", SHAPES, ids=sample_id)
def test_every_shape_is_masked_as_its_kind(sample):
    redactor = Redactor()
    shown = redactor(f"token: {sample.text} (end)")
    assert leaks(shown, [sample]) == [], shown
    assert dict(redactor.masked) == {sample.kind: 1}
    assert shown.startswith("token: ") and shown.endswith(" (end)")


def test_every_kind_has_a_sample():
    assert {sample.kind for sample in SHAPES} == set(PATTERNS)


@pytest.mark.parametrize("sample", SHAPES, ids=sample_id)
def test_a_secret_in_the_cwd_is_masked_in_the_project_folder_name(sample):
    """Claude Code names the project folder after the cwd with every character other than
    A–Z, a–z, 0–9 made ``-``: ``ghp_…`` is ``ghp-…`` in every path under it."""
    cwd = f"/home/dev/work {sample.text}/app"
    rest = f"/{SESSION}/subagents/workflows/{RUN}/journal.jsonl"
    redactor = Redactor()
    shown = redactor(f"/home/dev/.claude/projects/{project_slug(cwd)}{rest}")
    assert leaks(shown, [sample]) == [], shown
    assert dict(redactor.masked) == {sample.kind: 1}
    assert shown.startswith("/home/dev/.claude/projects/-home-dev-work-")
    assert shown.endswith(rest)


@pytest.mark.parametrize("sample", SHAPES, ids=sample_id)
def test_a_secret_in_a_run_name_is_masked_in_the_script_file_name(sample):
    """The script file is named after the run's name, lowercased, each run of other
    characters one ``-``; the run id after it stays."""
    script = f"{name_slug('deploy ' + sample.text)}-{RUN}.js"
    redactor = Redactor()
    shown = redactor(script)
    if not name_slug_masked(sample):
        assert shown == script  # nothing left of its shape: said in docs/troubleshooting.md
        return
    assert leaks(shown, [sample]) == [], shown
    assert dict(redactor.masked) == {sample.kind: 1}
    assert shown.startswith("deploy-") and shown.endswith(f"[masked:{sample.kind}]-{RUN}.js")


def test_a_secret_found_by_its_name_is_masked_as_the_value_of_that_key():
    gcp = next(s for s in SHAPES if s.kind == "gcp_service_account").secret
    aws = next(s for s in SHAPES if s.kind == "aws_secret_key").secret
    pem = next(s for s in SHAPES if s.kind == "private_key").text
    account = {
        "type": "service_account",
        "project_id": "demo-1234",
        "private_key_id": gcp,
        "private_key": pem,
        "client_email": "ci@demo-1234.iam.gserviceaccount.com",
    }
    request = {"headers": {"Authorization": "bearer 0123456789abcdefXYZ"}, "SecretAccessKey": aws}
    redactor = Redactor()
    shown = redact_value({"account": account, "request": request}, redactor)
    assert shown["account"] == {
        **account,
        "private_key_id": "[masked:gcp_service_account]",
        "private_key": "[masked:private_key]",
    }
    assert shown["request"] == {
        "headers": {"Authorization": "[masked:bearer_token]"},
        "SecretAccessKey": "[masked:aws_secret_key]",
    }
    assert redactor.total == 4
    # without its name the value is 40 hex digits, like a commit: left alone
    assert redact_value({"commit": gcp}) == {"commit": gcp}


def test_json_outputs_keep_the_real_paths_and_mask_the_rest():
    token = next(s for s in SHAPES if s.kind == "github_token").text
    cwd = f"/home/dev/{token}"
    row = {
        "name": f"deploy {token}",
        "cwd": cwd,
        "project": project_slug(cwd),
        "journal": f"/home/dev/.claude/projects/{project_slug(cwd)}/s/journal.jsonl",
        "in_flight": [f"a1 {token}"],
    }
    for_json = Redactor.for_json()
    kept = redact_value(row, for_json)
    assert {key: kept[key] for key in ("cwd", "project", "journal")} == {
        key: row[key] for key in ("cwd", "project", "journal")
    }
    assert kept["name"] == "deploy [masked:github_token]"
    assert kept["in_flight"] == ["a1 [masked:github_token]"]
    assert for_json.total == 2
    shown = redact_value(row, Redactor())
    assert leaks(str(shown), [next(s for s in SHAPES if s.kind == "github_token")]) == []


# -- what is never masked ---------------------------------------------------------------------

DATA = Path(__file__).resolve().parent.parent / "data"
ID_SHAPES = {
    "run_id": re.compile(r"wf_[0-9a-f]{8}-[0-9a-f]{3}"),
    "session_id": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "agent_id": re.compile(r"\ba[0-9a-f]{16}\b"),
    "key": re.compile(r"v2:[0-9a-f]{64}"),
}


def corpus_ids() -> dict[str, set[str]]:
    """Every run, session and agent id and every ``v2:`` key of every tree under tests/data."""
    found: dict[str, set[str]] = {name: set() for name in ID_SHAPES}
    for path in DATA.rglob("*"):
        text = str(path.relative_to(DATA))
        if path.is_file():
            text += "\n" + path.read_text(errors="replace")
        for name, shape in ID_SHAPES.items():
            found[name].update(shape.findall(text))
    return found


def test_no_id_of_the_corpus_is_masked_alone_or_together():
    ids = corpus_ids()
    assert all(len(found) >= 10 for found in ids.values()), {k: len(v) for k, v in ids.items()}
    every = sorted(set().union(*ids.values()))
    redactor = Redactor()
    for text in (" ".join(every), "-".join(every), "/".join(every), "_".join(every)):
        for form in (text, project_slug(text), name_slug(text)):
            assert redactor(form) == form
    assert redactor.total == 0


def test_nothing_in_the_corpus_is_masked():
    """Every file of every tree under tests/data (journals, transcripts, metadata, snapshots,
    scripts: real runs of the CLI), every path and every value of every JSON line."""
    redactor = Redactor()
    files = 0
    for path in sorted(DATA.rglob("*")):
        name = str(path)
        assert redactor(name) == name
        if not path.is_file():
            continue
        files += 1
        text = path.read_text(errors="replace")
        assert redactor(text) == text, path
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                value = json.loads(line)
                assert redact_value(value, redactor) == value, path
    assert files > 300 and redactor.total == 0


@given(
    st.lists(
        st.uuids().map(str)
        | st.text(HEX, min_size=8, max_size=8).map(lambda h: f"wf_{h}-{h[:3]}")
        | st.text(HEX, min_size=16, max_size=16).map(lambda h: f"a{h}")
        | st.text(HEX, min_size=64, max_size=64).map(lambda h: f"v2:{h}")
        | st.text(HEX, min_size=1, max_size=70),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["", " ", "-", "_", "/", ".", ":", "\n"]),
)
def test_ids_of_every_shape_are_never_masked(ids, joint):
    text = joint.join(ids)
    for form in (text, project_slug(text), name_slug(text)):
        assert redact(form) == form


@pytest.mark.parametrize("sample", [s for s in SHAPES if name_slug_masked(s)], ids=sample_id)
def test_a_secret_the_cli_cut_in_a_long_project_folder_name_is_masked(sample):
    """Past 200 characters Claude Code cuts the folder's name and adds ``-`` and a hash:
    what is left of a secret the cut fell in is masked, however short."""
    for cut in (3, 12, min(30, len(sample.text) - 2)):
        head = "/home/dev/" + "w" * (200 - cut - len("/home/dev/") - 1) + "/"
        cwd = f"{head}{sample.text}/app"
        folder = project_folder(cwd)
        assert len(folder) > 201 and folder[:200].endswith(project_slug(sample.text)[:cut])
        redactor = Redactor()
        shown = redactor(f"/root/projects/{folder}/{SESSION}.jsonl")
        assert leaks(shown, [sample]) == [], shown
        assert shown.endswith(f"{folder[200:]}/{SESSION}.jsonl"), shown
        assert redactor.total == 1 or (redactor.total == 0 and not leaks(folder, [sample]))
