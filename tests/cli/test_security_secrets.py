"""Secrets never reach an output unmasked.

A private copy of the real ``killed`` tree gets every secret shape ``wftop.core.text.redact``
knows (an Anthropic key, an OpenAI key, a GitHub token and fine-grained PAT, an AWS access
key id and secret access key, a Slack token, a bearer token, a password in a URL, a PEM
private key) in every place a user's text can be: call labels, results, agent prompts and
transcripts, the session transcript, the agent metadata and the workflow script (its name
and a comment), and the paths wftop prints (the session's working directory and the
script's file name carry the shapes a path can hold). Then every output is read whole and
searched for a recognisable piece of each secret: ``ls`` (table and ``--json``), ``ls
--watch --json``, ``resume --dry-run`` (text and ``--json``), a confirmed resume (its
output, and every file it leaves in the state dir), ``scan``, ``export`` (md and json),
``stats``, ``status``, and the TUI's runs, run, agent, journal and resume-plan screens
(their rendered text, from a screenshot).
"""

from __future__ import annotations

import contextlib
import html
import itertools
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.corpus import copy_tree
from tests.faults_kit import FAKE_CLAUDE, TIMEOUT, World, read_lines, wftop
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import PATTERNS

RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"

SECRETS = {
    "anthropic_key": "sk-ant-api03-Zq7SECRETanthropic0123456789",
    "openai_key": "sk-proj-Zq7SECRETopenai0123456789_abcdefXYZ",
    "github_token": "ghp_Zq7SECRETgithub0123456789abcdefXYZ",
    "github_pat": "github_pat_11Zq7SECRETpat0123456789_abcdefghijk",
    "aws_secret_key": "aws_secret_access_key = Zq7SECRETawsSecretKey0123456789/abcdefg+",
    "aws_access_key": "AKIAZQ7SECRETAWS0123",
    "slack_token": "xoxb-12345-Zq7SECRETslack-0123",
    "bearer_token": "Bearer Zq7SECRETbearer.0123456789abc",
    "url_password": "https://deploy:Zq7SECRETurlpass@db.example.com/app",
    "private_key": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAZq7SECRETpem0123456789+/abc\n"
        "-----END RSA PRIVATE KEY-----"
    ),
}
ALL = " ".join(SECRETS.values())
ALL_JSON = json.dumps(ALL)[1:-1]
"""`ALL` as it is written inside a JSON or JavaScript string (its newlines escaped)."""
IN_A_PATH = " ".join(
    SECRETS[kind] for kind in ("anthropic_key", "openai_key", "github_token", "aws_access_key")
)
"""The shapes a file name can hold (no ``/``, no newline)."""
MARKERS = [
    "Zq7SECRET",
    "ZQ7SECRET",
    "sk-ant-",
    "sk-proj-",
    "ghp_Zq7",
    "github_pat_1",
    "xoxb-1",
    "Bearer Zq7",
    "/abcdefg+",
    "MIIEpQIBAAKCAQEA",
]
"""Pieces of the secrets that must not be seen: a cut-off secret is still a leak."""


def test_every_secret_shape_is_planted():
    from wftop.core.text.redact import Redactor

    assert set(SECRETS) == set(PATTERNS)
    for kind, secret in SECRETS.items():
        assert PATTERNS[kind].search(secret), kind
        redactor = Redactor()
        assert leaks(redactor(secret)) == [], kind
        assert set(redactor.masked) == {kind}, kind


def plant(root: Path) -> None:
    """Put every secret in every user-text place of a copied tree; keep the old file times."""
    label = re.compile(r'"label":"(a\d)"')
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        text = path.read_text()
        new = label.sub(lambda m: f'"label":"{m.group(1)} {ALL_JSON}"', text)
        new = re.sub(r"label: '(a\d)'", lambda m: f"label: '{m.group(1)} {ALL_JSON}'", new)
        new = re.sub(
            r'"description":"(a\d)"', lambda m: f'"description":"{m.group(1)} {ALL_JSON}"', new
        )
        new = re.sub(
            r'"result":\{"agent":"(a\d)"',
            lambda m: f'"result":{{"secret":"{ALL_JSON}","agent":"{m.group(1)}"',
            new,
        )
        new = re.sub(r"(Part \w+\.|Plan the work\.)", lambda m: f"{m.group(1)} {ALL_JSON}", new)
        new = new.replace("run the six mock agents.", f"run the six mock agents. {ALL_JSON}")
        new = new.replace("name: 'mock-six'", f"name: 'mock-six {ALL_JSON}'")
        if path.suffix == ".js":
            new = f"// {ALL_JSON}\n{new}"
        if new != text:
            info = path.stat()
            path.write_text(new)
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def plant_paths(root: Path, home: Path) -> None:
    """Secrets in the paths wftop prints: the session's working directory (which exists)
    and the script's file name; the old file times are kept."""
    cwd = home / f"work {IN_A_PATH}"
    cwd.mkdir(parents=True)
    transcript = next(root.glob(f"projects/*/{SESSION}.jsonl"))
    info = transcript.stat()
    text = transcript.read_text()
    transcript.write_text(re.sub(r'"cwd":"[^"]*"', lambda _: f'"cwd":{json.dumps(str(cwd))}', text))
    os.utime(transcript, ns=(info.st_atime_ns, info.st_mtime_ns))
    (script,) = root.glob(f"projects/*/{SESSION}/workflows/scripts/*-{RUN}.js")
    script.rename(script.with_name(f"{IN_A_PATH}-{RUN}.js"))


def leaks(text: str) -> list[str]:
    return [marker for marker in MARKERS if marker in text]


def planted_everywhere(root: Path) -> None:
    """The planting reached labels, results, prompts, transcripts, metadata and the script."""
    hits = {
        path.name for path in root.rglob("*") if path.is_file() and "Zq7SECRET" in path.read_text()
    }
    assert "journal.jsonl" in hits
    assert any(name.endswith(".js") for name in hits)
    assert any(name.endswith(".meta.json") for name in hits)
    assert any(name.startswith("agent-") and name.endswith(".jsonl") for name in hits)
    assert f"{SESSION}.jsonl" in hits


@pytest.fixture
def secret_root(tmp_path: Path) -> Path:
    root = copy_tree("killed", tmp_path)
    plant(root)
    plant_paths(root, tmp_path / "elsewhere")
    planted_everywhere(root)
    return root


def private_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "WFTOP_CONFIG": str(home / "no-config.toml"),
        "WFTOP_STATE_DIR": str(tmp_path / "state"),
        "WFTOP_CACHE_DIR": str(tmp_path / "cache"),
    }


CLI_OUTPUTS = [
    ["ls", "--json"],
    ["ls"],
    ["resume", RUN, "--dry-run", "--json"],
    ["resume", RUN, "--dry-run"],
    ["scan", "--session", SESSION, "--json"],
    ["scan", "--session", SESSION],
    ["scan", "--list-sessions", "--json"],
    ["export", RUN, "--format", "md"],
    ["export", RUN, "--format", "json"],
    ["stats", "--json"],
    ["stats"],
    ["status", "--format", "json"],
    ["status"],
]


@pytest.mark.parametrize("argv", CLI_OUTPUTS, ids=" ".join)
def test_cli_outputs_mask_every_secret(secret_root, tmp_path, argv):
    result = wftop(secret_root, *argv, env=private_env(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.stdout.strip(), result.stderr
    assert leaks(result.stdout) == [], result.stdout
    assert leaks(result.stderr) == [], result.stderr


def test_ls_watch_json_masks_every_secret(secret_root, tmp_path):
    argv = [sys.executable, "-m", "wftop.cli", "ls", "--watch", "--json"]
    argv += ["--no-default-root", "--root", str(secret_root)]
    process = subprocess.Popen(
        argv,
        cwd=Path(__file__).resolve().parent.parent.parent,
        env=private_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()
    journal = next(secret_root.rglob("journal.jsonl"))
    try:
        first = lines.get(timeout=TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        for number in itertools.count():
            # Until the watch is up an append may go unseen for a while: append again.
            record = {"type": "started", "key": f"v2:k{number}", "agentId": f"a9{number}"}
            record["label"] = f"a9 {ALL}"
            with open(journal, "a") as handle:
                handle.write(json.dumps(record) + "\n")
            with contextlib.suppress(queue.Empty):
                second = lines.get(timeout=1.0)
                break
            assert time.monotonic() < deadline, "the watch never reported the append"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=TIMEOUT)
    assert "in_flight" in first and "in_flight" in second
    assert leaks(first + second) == [], first + second


def secret_world(base: Path) -> World:
    base.mkdir()
    world = World(base)
    plant(world.root)
    # The fake claude's own call gets a secret label too: it comes back in the done event.
    world.claude.write_text(
        f"#!{sys.executable}\n" + FAKE_CLAUDE.replace('"label": "a5"', f'"label": "a5 {ALL_JSON}"')
    )
    past = time.time() - 600
    for path in world.root.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)
    return world


@pytest.mark.parametrize("mode", ["json", "text"])
def test_a_confirmed_resume_and_its_state_files_mask_every_secret(tmp_path, mode):
    world = secret_world(tmp_path / "w")
    try:
        world.go.touch()
        argv = world.argv()
        if mode == "text":
            argv.remove("--json")
        result = subprocess.run(
            argv,
            cwd=Path(__file__).resolve().parent.parent.parent,
            env=world.env(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        world.stop_leftovers()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "completed" in result.stdout
    assert leaks(result.stdout) == [], result.stdout
    assert leaks(result.stderr) == [], result.stderr
    files = [path for path in world.state.rglob("*") if path.is_file()]
    assert any(path.parent.name == "resume" for path in files)
    for path in files:
        assert leaks(path.read_text(errors="replace")) == [], path.relative_to(world.state)


# -- the TUI ----------------------------------------------------------------------------------


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """What the screen shows: the screenshot's text, tags stripped, entities decoded."""
    svg = app.export_screenshot()
    text = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    return text


async def wait_for(pilot, predicate) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if predicate():
            return
        await pilot.pause(0.01)
    raise AssertionError("the screen never got there")


async def test_tui_screens_mask_every_secret(secret_root, tui_home):
    from tests.tui.test_tui_snapshots import viewer_ready
    from tests.tui_kit import settle
    from wftop.tui.config import Config
    from wftop.tui.screens.agent import AgentScreen
    from wftop.tui.screens.journal import JournalScreen
    from wftop.tui.screens.plan import ResumePlanScreen
    from wftop.tui.screens.run import RunScreen
    from wftop.tui.start import make_app
    from wftop.tui.widgets.call_table import CallTable

    app = make_app(
        [str(secret_root)], config=Config(bell=False), processes=FakeProcessTable(), live=False
    )
    seen: dict[str, str] = {}
    async with app.run_test(size=(240, 50)) as pilot:
        await settle(pilot)
        seen["runs"] = screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunScreen))
        await pilot.pause()
        seen["run"] = screen_text(app)
        calls = app.screen.query_one(CallTable)
        for _ in range(len(calls.item_keys)):
            await pilot.press("j")
        await pilot.pause()
        seen["run, cursor on the last call"] = screen_text(app)
        calls.move_cursor(row=1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AgentScreen))
        await viewer_ready(pilot, app.screen)
        seen["agent"] = screen_text(app)
        await pilot.press("escape")
        await pilot.press("J")
        await wait_for(pilot, lambda: isinstance(app.screen, JournalScreen))
        await viewer_ready(pilot, app.screen)
        seen["journal"] = screen_text(app)
        await pilot.press("escape", "escape")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumePlanScreen))
        await pilot.pause(0.2)
        seen["resume plan"] = screen_text(app)
        await pilot.press("escape")
    for name, text in seen.items():
        assert leaks(text) == [], f"{name}:\n{text}"
    assert "[masked:" in seen["agent"] and "[masked:" in seen["journal"]
