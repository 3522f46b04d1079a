"""Hostile text stays text in every output of the command line.

Every value of `tests.hostile_kit` is planted at once in a copy of the real ``killed`` tree,
which itself lies in a folder whose name is hostile (so every path printed is too). Each
text output must hold no control character but its own newlines, show the planted values
gated (``␛[2J…``) on the lines where they belong, and never start a line with what came after
a planted newline; each JSON output must hold no raw C1, DEL or bidirectional control and
read back the planted values as they were. Error messages are one line each.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile_kit import (
    DEEP_AGENT,
    DEEP_NOTE,
    NAME,
    RUN,
    SESSION,
    TEXT,
    drawn,
    hostile_tree,
    raw_leaks,
)
from tests.shortpath_kit import short_dir
from wftop.core.read.deepjson import DeepJson, parse_deep

TOP = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0

CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What no text output may hold (its own newlines excepted)."""
RAW_IN_JSON = re.compile(
    rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]"
)


@pytest.fixture(scope="module")
def hostile() -> Iterator[dict[str, Any]]:
    """The tree in a short folder of its own (a state dir whose engine socket fits
    ``sun_path``); the commands' environment is the session's isolated one (this fixture is
    set up before a test's own), with a HOME, state dir and cache here."""
    with short_dir("wftop-hostile-") as folder:
        base = folder / f"in {NAME}"
        tree = hostile_tree(base)
        home = folder / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "WFTOP_CONFIG": str(home / "no-config.toml"),
            "WFTOP_STATE_DIR": str(folder / "state"),
            "WFTOP_CACHE_DIR": str(folder / "cache"),
        }
        yield {"tree": tree, "env": env}


def wftop(
    env: dict[str, str], *args: str, root: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", "wftop.cli", *args]
    if root is not None:
        argv += ["--no-default-root", "--root", str(root)]
    return subprocess.run(argv, cwd=TOP, env=env, capture_output=True, timeout=TIMEOUT)


def text_of(data: bytes) -> str:
    text = data.decode("utf-8", "surrogateescape")
    return text


def loads(data: bytes) -> Any:
    """A JSON output read back: what nests past orjson's 1,024 levels held as `DeepJson`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return parse_deep(data.decode())


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, DeepJson):
        return list(value.strings())
    if isinstance(value, dict):
        return [*value.keys(), *(s for item in value.values() for s in strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def assert_shown_safely(out: str, *, shows: bool = True, blocks: bool = False) -> None:
    """``blocks``: the output holds text of several lines (a result, last words) whose line
    breaks it keeps; every other line still shows its line breaks as ``↵``."""
    leaks = raw_leaks(out)
    if blocks:
        leaks = [piece for piece in leaks if piece != "HOSTILE-line\n"]
        assert "HOSTILE-line↵forged line" in out
    assert leaks == [], out
    found = CONTROL.search(out)
    assert found is None, f"{found.group()!r} at {found.start()}: {out!r}"
    forged = re.search(r"^.{0,20}forged line", out, re.M)  # a planted newline began a line
    assert blocks or forged is None, forged.group()
    if shows:
        assert drawn(out), f"nothing planted is shown: {out}"


TEXT_OUTPUTS = [
    ["ls"],
    ["resume", RUN, "--dry-run"],
    ["scan", "--session", SESSION],
    ["scan", "--list-sessions"],
    ["export", RUN, "--format", "md"],
    ["stats"],
]


@pytest.mark.parametrize("argv", TEXT_OUTPUTS, ids=" ".join)
def test_text_outputs_show_hostile_text_gated(hostile, argv):
    done = wftop(hostile["env"], *argv, root=hostile["tree"].root)
    assert done.returncode in (0, 3), done.stderr  # 3: the plan's guard refuses
    assert_shown_safely(text_of(done.stdout), blocks=argv[0] == "export")
    assert_shown_safely(text_of(done.stderr), shows=False)


@pytest.mark.parametrize("fmt", ["plain", "tmux"])
def test_status_lines_hold_no_control(hostile, fmt):
    done = wftop(hostile["env"], "status", "--format", fmt, root=hostile["tree"].root)
    assert done.returncode == 0
    out = text_of(done.stdout)
    assert "dead" in out
    assert_shown_safely(out + text_of(done.stderr), shows=False)


JSON_OUTPUTS = [
    ["ls", "--json"],
    ["resume", RUN, "--dry-run", "--json"],
    ["scan", "--session", SESSION, "--json"],
    ["scan", "--list-sessions", "--json"],
    ["export", RUN, "--format", "json"],
    ["stats", "--json"],
    ["status", "--format", "json"],
]


@pytest.mark.parametrize("argv", JSON_OUTPUTS, ids=" ".join)
def test_json_outputs_escape_what_a_terminal_acts_on(hostile, argv):
    done = wftop(hostile["env"], *argv, root=hostile["tree"].root)
    assert done.returncode in (0, 3), done.stderr
    raw = RAW_IN_JSON.search(done.stdout.replace(b"\n", b""))
    assert raw is None, (raw.group(), done.stdout[max(0, raw.start() - 60) : raw.end() + 60])
    value = loads(done.stdout)
    if argv[0] != "status":  # the counts: nothing of the data
        held = "\n".join(strings(value))
        assert "\x9b2JHOSTILE-csi8" in held and "\x1b[2JHOSTILE-clear" in held, held
    assert_shown_safely(text_of(done.stderr), shows=False)


def test_the_deep_values_are_read_with_the_rest(hostile):
    """A result nested 100,000 levels counts returned, a label that is an object nested as
    deep leaves its call counted (named by its agent id), and the exports show the result
    compact with a note, its hostile text gated."""
    root = hostile["tree"].root
    (row,) = loads(wftop(hostile["env"], "ls", "--json", root=root).stdout)
    assert (row["started"], row["returned"], row["unreadable_lines"]) == (7, 4, 0)
    assert row["in_flight"] == [DEEP_AGENT, f"a5 {TEXT}", f"a7 {TEXT}"]
    done = wftop(hostile["env"], "export", RUN, "--format", "json", root=root)
    assert done.returncode == 0, done.stderr
    calls = {call["label"]: call for call in loads(done.stdout)["calls"]}
    a4 = calls["a4 " + TEXT]
    assert (a4["state"], a4["result_note"]) == ("done", DEEP_NOTE)
    assert TEXT in strings(a4["result"]["deep"])  # read back as it was
    assert calls[DEEP_AGENT]["state"] == "dead"  # started, never returned, the run killed
    out = text_of(wftop(hostile["env"], "export", RUN, root=root).stdout)
    assert f"Result (journal; {DEEP_NOTE}):" in out
    assert_shown_safely(out, blocks=True)


def test_the_watch_stream_escapes_what_a_terminal_acts_on(hostile):
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json", "--no-default-root"]
    argv += ["--root", str(hostile["tree"].root)]
    process = subprocess.Popen(argv, cwd=TOP, env=hostile["env"], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=TIMEOUT)
    assert RAW_IN_JSON.search(line.rstrip(b"\n")) is None, line
    assert "\x9b2JHOSTILE-csi8" in "\n".join(strings(orjson.loads(line)))


# -- error messages ---------------------------------------------------------------------------


def one_line_error(done: subprocess.CompletedProcess[bytes]) -> str:
    err = text_of(done.stderr)
    assert done.returncode != 0
    assert err.startswith("wftop: ") and err.count("\n") == 1, err
    assert_shown_safely(err, shows=False)
    return err


def test_a_root_that_cannot_be_read_is_named_gated_on_one_line(hostile, tmp_path):
    missing = tmp_path / f"gone {NAME}"
    err = one_line_error(wftop(hostile["env"], "ls", root=missing))
    assert "␛[2JHOSTILE-clear" in err and "HOSTILE-line↵forged line" in err


def test_a_run_not_found_names_the_roots_gated_on_one_line(hostile):
    done = wftop(hostile["env"], "resume", "wf_absent-000", "--dry-run", root=hostile["tree"].root)
    assert "␛[2JHOSTILE-clear" in one_line_error(done)
    done = wftop(hostile["env"], "export", "wf_absent-000", root=hostile["tree"].root)
    one_line_error(done)


def test_a_session_not_found_is_named_gated_on_one_line(hostile):
    done = wftop(hostile["env"], "scan", "--session", f"/nowhere/{NAME}.jsonl")
    err = one_line_error(done)
    assert "HOSTILE-line↵forged line" in err


def test_a_bad_config_value_is_named_gated_on_one_line(hostile, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f"theme = {json.dumps(TEXT)}\nclaude = {json.dumps(TEXT)}\n")
    env = {**hostile["env"], "WFTOP_CONFIG": str(config)}
    done = wftop(env, "resume", RUN, "--dry-run", root=hostile["tree"].root)
    err = text_of(done.stderr)
    assert_shown_safely(err + text_of(done.stdout), shows=False)


# -- other hosts ------------------------------------------------------------------------------

FAKE_SSH = textwrap.dedent(
    """\
    #!{python}
    import sys
    args = sys.argv[1:]
    if "status" in args:
        sys.stdout.buffer.write(open({counts!r}, "rb").read())
    else:
        sys.stdout.buffer.write(open({rows!r}, "rb").read())
    """
)


@pytest.fixture
def hostile_host(hostile, tmp_path) -> dict[str, str]:
    """An ssh that answers as a host would whose rows are hostile, sending C1 raw."""
    done = wftop(hostile["env"], "ls", "--json", root=hostile["tree"].root)
    rows = orjson.loads(done.stdout)
    for row in rows:
        row["name"] = f"remote {TEXT}"
    (tmp_path / "rows.json").write_bytes(json.dumps(rows, ensure_ascii=False).encode())
    counts = {"attention": 1, "counts": {"dead": 1, f"x{TEXT}": 2}, "line": TEXT}
    (tmp_path / "counts.json").write_bytes(json.dumps(counts, ensure_ascii=False).encode())
    ssh = tmp_path / "ssh"
    ssh.write_text(
        FAKE_SSH.format(
            python=sys.executable,
            rows=str(tmp_path / "rows.json"),
            counts=str(tmp_path / "counts.json"),
        )
    )
    ssh.chmod(0o755)
    return {**hostile["env"], "WFTOP_SSH": str(ssh)}


def test_rows_from_another_host_are_gated_too(hostile_host, tmp_path):
    empty = tmp_path / "empty"
    (empty / "projects").mkdir(parents=True)
    done = wftop(hostile_host, "ls", "--host", "build-box", root=empty)
    assert done.returncode == 0, done.stderr
    out = text_of(done.stdout)
    assert "build-box" in out and "remote ␛]52;c;" in out
    assert_shown_safely(out)
    done = wftop(hostile_host, "ls", "--json", "--host", "build-box", root=empty)
    assert RAW_IN_JSON.search(done.stdout.replace(b"\n", b"")) is None
    assert any("remote \x1b]52" in s for s in strings(orjson.loads(done.stdout)))
    for fmt in ("plain", "tmux", "json"):
        done = wftop(hostile_host, "status", "--host", "build-box", "--format", fmt, root=empty)
        assert RAW_IN_JSON.search(done.stdout.replace(b"\n", b"")) is None, done.stdout
        assert_shown_safely(text_of(done.stdout + done.stderr), shows=False)


# -- a claude that is hostile ------------------------------------------------------------------

FAKE_CLAUDE = textwrap.dedent(
    """\
    #!{python}
    import sys
    sys.stdout.write({text!r} + "\\n")
    sys.stderr.write({text!r} + "\\n")
    sys.exit(0 if "--version" in sys.argv else 1)
    """
)


def test_drill_shows_what_the_cli_printed_gated(hostile, tmp_path):
    claude = tmp_path / "claude"
    claude.write_text(FAKE_CLAUDE.format(python=sys.executable, text="2.1.332" + TEXT))
    claude.chmod(0o755)
    started = time.monotonic()
    done = wftop(hostile["env"], "drill", "--claude", str(claude))
    assert time.monotonic() - started < TIMEOUT
    assert done.returncode == 1
    assert_shown_safely(text_of(done.stdout + done.stderr), shows=False)
    done = wftop(hostile["env"], "drill", "--json", "--claude", str(claude))
    assert RAW_IN_JSON.search(done.stdout.replace(b"\n", b"")) is None, done.stdout


# -- a confirmed resume -----------------------------------------------------------------------


def test_a_confirmed_resume_prints_hostile_labels_gated(tmp_path):
    from tests.faults_kit import FAKE_CLAUDE, World
    from tests.hostile_kit import plant_journal

    (tmp_path / "w").mkdir()
    world = World(tmp_path / "w")
    plant_journal(world.journal)
    # the fake claude's own call gets a hostile label too: it comes back in the done event
    hostile = FAKE_CLAUDE.replace('"label": "a5"', f'"label": {("a5 " + TEXT)!r}')
    world.claude.write_text(f"#!{sys.executable}\n{hostile}")
    world.go.touch()
    argv = [arg for arg in world.argv() if arg != "--json"]
    try:
        done = subprocess.run(argv, cwd=TOP, env=world.env(), capture_output=True, timeout=TIMEOUT)
    finally:
        world.stop_leftovers()
    assert done.returncode == 0, done.stdout + done.stderr
    out = text_of(done.stdout)
    assert "completed" in out
    assert_shown_safely(out)
    assert_shown_safely(text_of(done.stderr), shows=False)


def test_supervise_shows_hostile_text_gated(tmp_path):
    """The run's stop cause carries every hostile value (an API error's words): the audit
    log, the decisions, the notification and the status hold them shown, never raw."""
    tree = hostile_tree(tmp_path / f"in {NAME}")
    (transcript,) = tree.root.glob(f"projects/*/{SESSION}.jsonl")
    reply = {"type": "assistant", "isApiErrorMessage": True, "apiErrorStatus": 529,
             "timestamp": "2026-12-02T12:40:00.000Z", "sessionId": SESSION,
             "message": {"role": "assistant", "content": [
                 {"type": "text", "text": f"API Error: 529 Overloaded {TEXT}"}]}}  # fmt: skip
    with open(transcript, "a") as handle:
        handle.write(json.dumps(reply) + "\n")
    env = {**os.environ, "WFTOP_STATE_DIR": str(tmp_path / "state"),
           "WFTOP_CONFIG": str(tmp_path / "no-config.toml")}  # fmt: skip
    once = wftop(env, "supervise", "--once", "--all", root=tree.root)
    assert once.returncode == 0, once.stderr
    assert_shown_safely(text_of(once.stdout))
    assert_shown_safely(text_of(once.stderr))  # the notification
    for argv in (["supervise", "--log"], ["supervise", "--status"]):
        done = wftop(env, *argv)
        assert_shown_safely(text_of(done.stdout))
    dry = wftop(env, "supervise", "--dry-run", "--all", root=tree.root)
    assert_shown_safely(text_of(dry.stdout), shows=False)
    for argv in (["supervise", "--log", "--json"], ["supervise", "--status", "--json"]):
        done = wftop(env, *argv)
        raw = RAW_IN_JSON.search(done.stdout.replace(b"\n", b""))
        assert raw is None, raw.group()
        values = [orjson.loads(line) for line in done.stdout.splitlines()]
        if argv[1] == "--log":  # the considered line: the cause's words as they were
            held = "\n".join(strings(values))
            assert "\x9b2JHOSTILE-csi8" in held and "\x1b[2JHOSTILE-clear" in held, held
