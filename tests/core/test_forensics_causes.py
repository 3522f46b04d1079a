"""Termination causes: one real record per cause, and normal sessions stay unclassified."""

from __future__ import annotations

import json

import pytest

from tests.corpus import CORPUS
from tests.forensics_kit import (
    FORENSICS,
    fixture,
    prompt,
    real_line,
    tool_result,
    tool_use,
    transcript_of,
    write_session,
)
from wftop.core.forensics.causes import CLEARS
from wftop.core.forensics.report import build_report
from wftop.core.forensics.session_transcript import read_transcript
from wftop.core.read.errors import CALL_ONLY, PRIORITY, SIGNATURES, Cause, classify_event
from wftop.core.system.procs import FakeProcessTable

# fixture (made by the real CLI through the harness) → cause and the text of its evidence
REAL = {
    "api-401": (Cause.AUTH_EXPIRED, "Invalid API key · Fix external API key"),
    "api-401-oauth": (Cause.AUTH_EXPIRED, "OAuth token has expired"),
    "usage-limit": (Cause.USAGE_LIMIT, "You've hit your 5-hour limit"),
    "credit-low": (Cause.USAGE_LIMIT, "Credit balance is too low"),
    "api-429": (Cause.RATE_LIMITED, "API Error: Request rejected (429)"),
    "api-529": (Cause.API_OVERLOAD, "API Error: 529 Overloaded"),
    "api-500": (Cause.API_5XX, "API Error: 500 Internal server error"),
    "net-drop": (Cause.NETWORK, "API Error: Connection dropped (ECONNRESET)"),
    "stream-idle": (Cause.STALLED, "API Error: stream idle: no bytes for 10000ms"),
    "request-timeout": (Cause.STALLED, "Request timed out"),
    "machine-slept": (Cause.MACHINE_SLEPT, "Connection lost while your computer was asleep"),
    "prompt-too-long": (Cause.CONTEXT_TOO_LONG, "Prompt is too long"),
    "interrupted": (Cause.USER_INTERRUPT, "[Request interrupted by user]"),
    "api-400": (Cause.API_ERROR_UNCLASSIFIED, "API Error: 400 messages.1.content.0"),
}

NORMAL = ["bg-clean", "bg-workers-killed", "bg-workers-resumed"]
NORMAL_CORPUS = ["clean", "api-errors-429", "mid-failure", "resumed", "killed"]


def report(path):
    return build_report(str(path), processes=FakeProcessTable())


@pytest.mark.parametrize("name", sorted(REAL))
def test_each_cause_from_a_real_record(name):
    cause, text = REAL[name]
    verdict = report(transcript_of(name)).verdict
    assert verdict.cause is cause
    assert text in verdict.evidence
    path, line = verdict.evidence.split(": ", 1)[0].rsplit(":", 1)
    assert path == str(transcript_of(name))
    assert text in transcript_of(name).read_text().splitlines()[int(line) - 1]
    assert verdict.clears == CLEARS[cause]


def test_every_cause_but_clean_has_a_real_regression():
    covered = {cause for cause, _ in REAL.values()}
    assert covered == set(Cause) - {Cause.CLEAN_OR_UNKNOWN} - CALL_ONLY


@pytest.mark.parametrize("name", NORMAL)
def test_normal_sessions_are_not_misclassified(name):
    assert report(transcript_of(name)).verdict.cause is Cause.CLEAN_OR_UNKNOWN


@pytest.mark.parametrize("name", NORMAL_CORPUS)
def test_corpus_sessions_are_not_misclassified(name):
    (path,) = sorted((CORPUS / name).glob("projects/*/*.jsonl"))
    verdict = report(path).verdict
    assert verdict.cause is Cause.CLEAN_OR_UNKNOWN
    assert verdict.evidence is None


def test_a_sleep_explains_the_timeouts_after_it():
    verdict = report(transcript_of("machine-slept")).verdict
    assert verdict.cause is Cause.MACHINE_SLEPT
    assert verdict.also_seen == (Cause.STALLED,)


def test_the_final_error_is_the_evidence_over_a_retry_of_the_same_cause():
    verdict = report(transcript_of("api-529")).verdict
    assert verdict.event.kind == "api_error"
    assert verdict.event.status == 529


def test_every_observed_signature_is_copied_from_a_fixture():
    texts = "".join(path.read_text() for path in FORENSICS.rglob("*.jsonl"))
    for signature in SIGNATURES:
        if not signature.source.startswith("EXP") or signature.field == "status_5xx":
            continue
        if signature.field == "connection":
            assert '"connection":{"code":"ECONNRESET"' in texts
            continue
        if signature.field == "status":
            assert f'"apiErrorStatus":{signature.value}' in texts
            continue
        if signature.field in ("error", "api_error"):
            name = "error" if signature.field == "error" else "apiError"
            assert f'"{name}":{json.dumps(signature.value)}' in texts, signature
            continue
        encoded = json.dumps(signature.value)[1:-1]
        assert signature.value in texts or encoded in texts, signature


def test_priority_lists_every_cause_a_record_can_show():
    assert set(PRIORITY) == set(Cause) - {
        Cause.USER_INTERRUPT,
        Cause.CLEAN_OR_UNKNOWN,
        Cause.SCRIPT_ERROR,
    }


def test_a_dead_workers_transcript_gives_the_cause_when_the_session_is_silent(tmp_path):
    error = real_line("api-529", '"isApiErrorMessage":true')
    error["isSidechain"] = True
    receipt = "Async agent launched successfully.\nagentId: a0123456789abcdef\n"
    path = write_session(
        tmp_path,
        [
            prompt("Audit the logs in the background."),
            tool_use("toolu_1", "Agent", {"description": "Audit", "prompt": "audit"}),
            tool_result("toolu_1", receipt),
        ],
    )
    agents = path.with_suffix("") / "subagents"
    agents.mkdir(parents=True)
    (agents / "agent-a0123456789abcdef.jsonl").write_text(json.dumps(error) + "\n")
    verdict = report(path).verdict
    assert verdict.cause is Cause.API_OVERLOAD
    assert verdict.from_worker
    assert "agent-a0123456789abcdef.jsonl:1: API Error: 529" in verdict.evidence


def test_an_error_before_the_last_prompt_is_not_the_cause(tmp_path):
    error = real_line("api-429", '"isApiErrorMessage":true')
    path = write_session(tmp_path, [prompt("first"), error, prompt("second, after it")])
    assert report(path).verdict.cause is Cause.CLEAN_OR_UNKNOWN


def test_an_interrupt_wins_only_when_it_is_last(tmp_path):
    stop = real_line("interrupted", "[Request interrupted by user]")
    error = real_line("net-drop", '"isApiErrorMessage":true')
    assert report(write_session(tmp_path, [prompt("go"), error, stop])).verdict.cause is (
        Cause.USER_INTERRUPT
    )
    other = tmp_path / "other"
    assert report(write_session(other, [prompt("go"), stop, error])).verdict.cause is (
        Cause.NETWORK
    )


def test_a_transcript_ending_in_an_unanswered_request_says_so(tmp_path):
    request = real_line("bg-clean", '"type":"api-request"')
    verdict = report(write_session(tmp_path, [prompt("go"), request])).verdict
    assert verdict.cause is Cause.CLEAN_OR_UNKNOWN
    assert "never got an answer" in verdict.note


def test_unknown_api_errors_are_unclassified_with_their_line():
    facts = read_transcript(str(transcript_of("api-400")), tail_records=400)
    (final,) = [event for event in facts.events if event.kind == "api_error"]
    assert classify_event(final) == (Cause.API_ERROR_UNCLASSIFIED, None)


def test_fixtures_hold_only_projects():
    for tree in sorted(FORENSICS.iterdir()):
        assert sorted(child.name for child in tree.iterdir()) == ["projects"], tree
        assert not list(tree.glob("projects/*/memory")), tree
    assert fixture("bg-clean")
