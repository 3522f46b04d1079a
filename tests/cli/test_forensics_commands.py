"""``wftop scan``, ``export`` and ``stats`` as a person runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.corpus import copy_tree, tree
from tests.forensics_kit import (
    copy_fixture,
    fixture,
    prompt,
    real_line,
    transcript_of,
    write_session,
)
from wftop.core.forensics import limits
from wftop.core.text.cuts import cut_start


def wftop(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


def scan_json(*args):
    done = wftop("scan", "--no-default-root", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_scan_by_session_id_reports_dead_workers_and_cause():
    data = scan_json("--root", str(fixture("api-529")), "--session", "c13af8b6")
    assert data["session_id"] == "c13af8b6-89b7-4d21-ac97-8b61c815ff08"
    assert data["termination"]["cause"] == "api_overload"
    assert data["termination"]["signature"] == "529"
    assert "nothing on your side" in data["termination"]["clears"]
    (worker,) = data["dead_workers"]
    assert worker["kind"] == "agent"
    assert worker["prompt"] == "[[agent:slow]] Audit the logs and report anomalies."
    assert worker["output_durable"] is True
    assert worker["action"] == "re-spawn from the original prompt"
    assert data["redaction"]["masked"] == 0


def test_scan_by_path_needs_no_root():
    done = wftop("scan", "--no-default-root", "--session", str(transcript_of("interrupted")))
    assert done.returncode == 0, done.stderr
    assert "cause:     user interrupt" in done.stdout
    assert "[Request interrupted by user]" in done.stdout


def test_scan_text_names_the_resume_for_a_partial_workflow():
    done = wftop(
        "scan",
        "--no-default-root",
        "--root",
        str(fixture("bg-workers-killed")),
        "--session",
        "fd368cff",
    )
    assert done.returncode == 0, done.stderr
    assert "action:   re-spawn the remainder: wftop resume wf_0d7d5918-9b6" in done.stdout
    assert 'failed: Background command "Fail on purpose" failed with exit code 3' in done.stdout
    assert "redaction: nothing masked" in done.stdout


def two_sessions(tmp_path):
    cwd = tmp_path / "work"
    cwd.mkdir()
    slug = str(cwd).replace("/", "-")
    older = write_session(
        tmp_path,
        [prompt("old", str(cwd)), real_line("api-429", '"isApiErrorMessage":true')],
        session="11111111-1111-4111-8111-111111111111",
        slug=slug,
    )
    newer = write_session(
        tmp_path,
        [prompt("new", str(cwd))],
        session="22222222-2222-4222-8222-222222222222",
        slug=slug,
    )
    os.utime(older, (1000, 1000))
    os.utime(newer, (2000, 2000))
    return cwd


def test_previous_picks_the_session_before_the_newest_one(tmp_path):
    cwd = two_sessions(tmp_path)
    newest = scan_json("--root", str(tmp_path), "--cwd", str(cwd))
    previous = scan_json("--root", str(tmp_path), "--cwd", str(cwd), "--previous")
    assert newest["session_id"].startswith("2222")
    assert previous["session_id"].startswith("1111")
    assert previous["termination"]["cause"] == "rate_limited"


def test_previous_defaults_to_the_working_directory(tmp_path):
    cwd = two_sessions(tmp_path)
    done = wftop(
        "scan", "--no-default-root", "--root", str(tmp_path), "--previous", "--json", cwd=str(cwd)
    )
    assert json.loads(done.stdout)["session_id"].startswith("1111")


def test_previous_without_one_is_a_one_line_error(tmp_path):
    cwd = tmp_path / "alone"
    cwd.mkdir()
    write_session(tmp_path, [prompt("only", str(cwd))], slug=str(cwd).replace("/", "-"))
    done = wftop(
        "scan", "--no-default-root", "--root", str(tmp_path), "--cwd", str(cwd), "--previous"
    )
    assert done.returncode == 2
    assert "only one session" in done.stderr and len(done.stderr.splitlines()) == 1


def test_scan_outside_a_project_says_where_it_looked_and_offers_the_list(tmp_path):
    root = fixture("api-529")
    outside = tmp_path / "not a project"
    outside.mkdir()
    done = wftop("scan", "--no-default-root", "--root", str(root), cwd=str(outside))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(outside))
    assert f"no session was started in {outside}" in line
    assert f"looked in {os.path.join(root, 'projects', slug)}" in line
    assert "wftop scan --list-sessions" in line
    listed = wftop("scan", "--no-default-root", "--root", str(root), "--list-sessions")
    assert listed.returncode == 0, listed.stderr


def test_list_sessions_counts_dead_workers_and_causes():
    roots = ["--root", str(fixture("api-401")), "--root", str(fixture("bg-clean"))]
    data = scan_json("--list-sessions", *roots)
    rows = {row["session_id"][:8]: row for row in data["sessions"]}
    assert (rows["d81d4d64"]["dead"], rows["d81d4d64"]["cause"]) == (1, "auth_expired")
    assert (rows["4a554f76"]["dead"], rows["4a554f76"]["cause"]) == (0, "clean_or_unknown")
    assert rows["4a554f76"]["launched"] == 4


def test_list_sessions_table():
    done = wftop("scan", "--no-default-root", "--root", str(fixture("api-429")), "--list-sessions")
    assert done.returncode == 0
    assert "rate limited" in done.stdout and "   1/1" in done.stdout
    assert "rate_limited" not in done.stdout  # the cause in words; --json keeps the value


def test_list_sessions_keeps_the_end_of_a_long_cwd(tmp_path):
    """Two projects under one long home path: the table keeps each path's end (the project's
    name, what tells them apart), cut at a folder's start; ``--json`` keeps the whole path."""
    home = "/home/" + "a-person-with-a-rather-long-login-name" + "/clients/acme-corporation"
    cwds = {"d0000000": f"{home}/backend/api", "e0000000": f"{home}/frontend/storybook-site"}
    for session, cwd in cwds.items():
        write_session(
            tmp_path,
            [prompt("hello", cwd)],
            session=f"{session}-0000-4000-8000-000000000000",
            slug=cwd.replace("/", "-"),
        )
    done = wftop("scan", "--no-default-root", "--root", str(tmp_path), "--list-sessions")
    assert done.returncode == 0, done.stderr
    shown = {line.split()[2]: line.split()[-1] for line in done.stdout.splitlines()[1:3]}
    assert shown == {
        "d0000000": "…/clients/acme-corporation/backend/api",
        "e0000000": "…/clients/acme-corporation/frontend/storybook-site",
    }
    data = scan_json("--root", str(tmp_path), "--list-sessions")
    assert {row["session_id"][:8]: row["cwd"] for row in data["sessions"]} == cwds


def test_export_markdown_holds_results_and_last_words(tmp_path):
    root = copy_tree("killed", tmp_path)
    (run_dir,) = root.glob("projects/*/*/subagents/workflows/wf_*")
    journal = [json.loads(line) for line in (run_dir / "journal.jsonl").read_text().splitlines()]
    dying = [line["agentId"] for line in journal if line["type"] == "started"][-1]
    words = real_line("bg-clean", '"stop_reason":"end_turn"')
    words["message"]["content"] = [{"type": "text", "text": "half of a5's answer"}]
    with open(run_dir / f"agent-{dying}.jsonl", "a") as handle:
        handle.write(json.dumps(words) + "\n")
    done = wftop("export", run_dir.name, "--no-default-root", "--root", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Result (journal):") == 4
    assert "half of a5's answer" in done.stdout
    assert "shape matching, not a guarantee" in done.stdout
    assert "## 5. a5 · Finish — dead\n" in done.stdout


def test_export_json_and_unknown_run(tmp_path):
    done = wftop(
        "export",
        "wf_0d7d5918-9b6",
        "--format",
        "json",
        "--no-default-root",
        "--root",
        str(fixture("bg-workers-killed")),
    )
    data = json.loads(done.stdout)
    assert data["returned"] == 4
    assert [call["state"] for call in data["calls"]][-1] == "dead"
    assert data["calls"][0]["result"] == {"agent": "a1", "ok": True, "n": 1}
    missing = wftop(
        "export", "wf_nope0000-000", "--no-default-root", "--root", str(fixture("bg-clean"))
    )
    assert missing.returncode == 2 and "no run wf_nope0000-000" in missing.stderr


def test_stats_counts_gaps_and_reruns_of_completed_calls():
    roots = ["--root", str(tree("mid-failure-resumed")), "--root", str(tree("killed"))]
    done = wftop("stats", "--no-default-root", "--json", *roots)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["runs"], data["runs_with_gaps"]) == (2, 1)
    assert data["runs_that_reran_completed_calls"] == 1
    resumed = next(run for run in data["per_run"] if run["status"] == "completed")
    assert (resumed["started"], resumed["returned"], resumed["reran_completed"]) == (10, 9, 1)
    assert [a["returned"] for a in resumed["attempts"]].count(False) == 1
    assert data["causes"] == {"clean_or_unknown": 2}


def test_stats_text_has_a_dot_per_attempt():
    done = wftop("stats", "--no-default-root", "--root", str(tree("killed")))
    assert "●●●●○" in done.stdout
    assert "runs: 1; with gaps: 1 of 1" in done.stdout


def test_limits_are_what_the_docs_say():
    assert limits.TAIL_RECORDS == 400
    assert limits.EVIDENCE_CHARS == 300
    assert limits.SUMMARY_CHARS == 120
    assert limits.OUTPUT_GROWTH_GRACE_S == 5.0
    assert limits.MIN_COMMAND_MATCH_CHARS == 8
    assert limits.RECENT_SESSIONS == 20
    assert limits.MAX_WORKER_TRANSCRIPT_BYTES == 64 * 1024 * 1024
    assert limits.LAST_TEXT_CHARS == 20_000
    assert set(limits.LIMITS) == {
        "tail_records",
        "evidence_chars",
        "summary_chars",
        "output_growth_grace_s",
        "min_command_match_chars",
        "recent_sessions",
        "max_worker_transcript_bytes",
        "last_text_chars",
        "cwd_chars",
    }
    assert limits.CWD_CHARS == 60
    assert limits.cut("abcdef", 4) == "abc…"
    assert cut_start("/home/me/work/proj", 18) == "/home/me/work/proj"
    assert cut_start("/home/me/work/proj", 12) == "…/work/proj"
    assert cut_start("/home/me/a-long-project", 12) == "…ong-project"


def test_the_tail_limit_bounds_where_a_cause_is_looked_for(tmp_path):
    from wftop.core.forensics.report import build_report
    from wftop.core.system.procs import FakeProcessTable

    root = copy_fixture("api-429", tmp_path)
    (path,) = root.glob("projects/*/*.jsonl")
    records = len(path.read_text().splitlines())
    near = build_report(str(path), processes=FakeProcessTable(), tail_records=records)
    far = build_report(str(path), processes=FakeProcessTable(), tail_records=1)
    assert near.verdict.cause.value == "rate_limited"
    assert far.verdict.cause.value == "rate_limited"
    none = build_report(str(path), processes=FakeProcessTable(), tail_records=0)
    assert none.verdict.cause.value == "clean_or_unknown"
