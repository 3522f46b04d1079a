"""Secrets never reach an output unmasked.

A private copy of the real ``killed`` tree gets a secret of every shape
``wftop.core.text.redact`` knows (`tests.secrets_kit`: Anthropic, OpenAI, Stripe, GitHub,
GitLab, AWS, GCP, Slack, npm, PyPI and Hugging Face tokens, JWTs, bearer tokens, passwords in
URLs, PEM and PGP private keys) in every place a user's text can be: call labels, results,
agent prompts and transcripts, the session transcript, the agent metadata and the workflow
script (its name and a comment). One of each kind is in the session's working directory too,
and the project folder is named as Claude Code names it, after the cwd with every character
other than A–Z, a–z, 0–9 made ``-`` (cut at 200, as the CLI cuts it); the script's file name
is its run's name made a slug. Then every output is read whole and searched for a
recognisable piece of each secret in any of its forms: ``ls`` (table and ``--json``), ``ls
--watch --json``, ``resume --dry-run`` (text and ``--json``), a confirmed resume (its output,
and every file it leaves in the state dir), ``scan``, ``export`` (md and json), ``stats``,
``status``, and the TUI's runs, run, agent, journal and resume-plan screens (their rendered
text, from a screenshot). JSON outputs keep the real paths (`PATH_KEYS`): those are checked to
be the real ones, and every other field to be masked.
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import copy_tree
from tests.faults_kit import FAKE_CLAUDE, TIMEOUT, World, read_lines, wftop
from tests.secrets_kit import leaks as leaked_kinds
from tests.secrets_kit import name_slug, one_of_each, pieces, project_folder, samples
from tests.shortpath_kit import short_dir
from wftop.core.system.procs import FakeProcessTable
from wftop.core.text.redact import PATH_KEYS, PATTERNS

RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"

SAMPLES = samples()
ALL = " ".join(sample.text for sample in SAMPLES)
ALL_JSON = json.dumps(ALL)[1:-1]
"""`ALL` as it is written inside a JSON or JavaScript string (its newlines escaped)."""
FIRST = ("github_token", "aws_access_key", "npm_token", "huggingface_token", "stripe_key")
IN_THE_CWD = sorted(one_of_each(), key=lambda s: FIRST.index(s.kind) if s.kind in FIRST else 9)
"""One secret of each kind, each a folder of the session's working directory; the first five
are in the project folder's name (as many as fit: the CLI cuts it at 200), ``_`` made ``-``."""
IN_THE_NAME = [s for s in IN_THE_CWD if s.kind in ("github_token", "aws_access_key", "jwt")]
"""The secrets of the run's name that its script's file name holds (as many as fit)."""


def leaks(text: str) -> list[str]:
    """The kinds of secret a recognisable piece of which ``text`` holds (a cut-off secret
    is still a leak)."""
    return leaked_kinds(text, SAMPLES)


def where(text: str) -> str:
    """The leaks of ``text``, each with a little of what is around it."""
    found = []
    for sample in SAMPLES:
        for piece in pieces(sample.secret):
            at = text.find(piece)
            if at >= 0:
                found.append(f"{sample.kind}: …{text[max(at - 60, 0) : at + 30]!r}…")
                break
    return "\n".join(found)


def test_every_secret_shape_is_planted():
    from wftop.core.text.redact import Redactor

    assert {sample.kind for sample in SAMPLES} == set(PATTERNS)
    for sample in SAMPLES:
        redactor = Redactor()
        assert leaks(redactor(sample.text)) == [], sample.kind
        assert set(redactor.masked) == {sample.kind}, sample.kind


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


def plant_paths(root: Path, home: Path) -> Path:
    """Secrets in the paths wftop prints: the session's working directory (which exists),
    the project folder named after it, the script's file name made from the run's name;
    the old file times are kept. The cwd it made."""
    cwd = home.joinpath("work", *(sample.text for sample in IN_THE_CWD), "app")
    cwd.mkdir(parents=True)
    (transcript,) = root.glob(f"projects/*/{SESSION}.jsonl")
    info = transcript.stat()
    text = transcript.read_text()
    transcript.write_text(re.sub(r'"cwd":"[^"]*"', lambda _: f'"cwd":{json.dumps(str(cwd))}', text))
    os.utime(transcript, ns=(info.st_atime_ns, info.st_mtime_ns))
    (script,) = root.glob(f"projects/*/{SESSION}/workflows/scripts/*-{RUN}.js")
    named = name_slug(" ".join(["mock-six", *(sample.text for sample in IN_THE_NAME)]))
    script.rename(script.with_name(f"{named}-{RUN}.js"))
    project = transcript.parent
    project.rename(project.with_name(project_folder(str(cwd))))
    return cwd


def planted_everywhere(root: Path) -> None:
    """The planting reached labels, results, prompts, transcripts, metadata, the script,
    the project folder's name and the script's."""
    secret = IN_THE_CWD[0].secret
    hits = {path.name for path in root.rglob("*") if path.is_file() and secret in path.read_text()}
    assert "journal.jsonl" in hits
    assert any(name.endswith(".js") for name in hits)
    assert any(name.endswith(".meta.json") for name in hits)
    assert any(name.startswith("agent-") and name.endswith(".jsonl") for name in hits)
    assert f"{SESSION}.jsonl" in hits
    (project,) = root.glob("projects/*")
    in_the_folder = leaked_kinds(project.name, IN_THE_CWD)
    assert set(FIRST[:3]) <= set(in_the_folder) <= set(FIRST), in_the_folder
    (script,) = root.glob(f"projects/*/{SESSION}/workflows/scripts/*-{RUN}.js")
    assert leaked_kinds(script.name, SAMPLES) == ["aws_access_key", "github_token", "jwt"]


@pytest.fixture
def secret_root(tmp_path: Path) -> Iterator[Path]:
    """The planted tree; its session's cwd in a short folder of its own: the project folder's
    name, the cwd cut at 200 characters, holds the first secrets after a long temp dir's path
    too."""
    root = copy_tree("killed", tmp_path)
    plant(root)
    with short_dir("wftop-secrets-") as elsewhere:
        plant_paths(root, elsewhere)
        planted_everywhere(root)
        yield root


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
    ["scan", "--list-sessions"],
]


JSON_OUTPUTS = {"--json", "json"}


def kept_paths(value: Any, root: Path, kept: list[str]) -> Any:
    """``value`` with the paths a JSON output keeps (`PATH_KEYS`) taken out into ``kept``."""
    if isinstance(value, dict):
        shown = {}
        for key, item in value.items():
            if key in PATH_KEYS and isinstance(item, str):
                kept.append(item)
                item = "(a path)"
            shown[key] = kept_paths(item, root, kept)
        return shown
    if isinstance(value, list):
        return [kept_paths(item, root, kept) for item in value]
    return value


def shown_to_a_person(argv: list[str], stdout: str, root: Path) -> str:
    """An output as a person reads it. In a JSON output the paths are the real ones, for
    scripts (checked here: each is there on disk); they are taken out, the rest is kept."""
    if not JSON_OUTPUTS & set(argv):
        return stdout
    kept: list[str] = []
    try:
        values = [json.loads(stdout)]
    except json.JSONDecodeError:  # JSON lines
        values = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    shown = json.dumps(kept_paths(values, root, kept))
    for path in kept:
        there = Path(path) if path.startswith("/") else root / "projects" / path
        assert there.exists(), f"{path!r} is not the real path"
    return shown


@pytest.mark.parametrize("argv", CLI_OUTPUTS, ids=" ".join)
def test_cli_outputs_mask_every_secret(secret_root, tmp_path, argv):
    result = wftop(secret_root, *argv, env=private_env(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.stdout.strip(), result.stderr
    shown = shown_to_a_person(argv, result.stdout, secret_root)
    assert leaks(shown) == [], where(shown)
    assert leaks(result.stderr) == [], where(result.stderr)


def test_json_outputs_keep_the_real_paths(secret_root, tmp_path):
    (row,) = json.loads(wftop(secret_root, "ls", "--json", env=private_env(tmp_path)).stdout)
    (transcript,) = secret_root.glob(f"projects/*/{SESSION}.jsonl")
    cwd = json.loads(transcript.read_text().splitlines()[0]).get("cwd") or row["cwd"]
    assert row["cwd"] == cwd and Path(cwd).is_dir()
    assert row["project"] == transcript.parent.name
    assert Path(row["journal"]).is_file() and Path(row["script_path"]).is_file()
    assert row["in_flight"][0].startswith("a5 [masked:")


def test_an_error_naming_a_path_masks_it(secret_root, tmp_path):
    """A ``--root`` that is not there is named in the one-line error: masked."""
    not_a_root = tmp_path / "elsewhere" / "work" / IN_THE_CWD[0].text / "nope"
    assert leaks(str(not_a_root)) == ["github_token"]
    result = wftop(not_a_root, "ls", env=private_env(tmp_path))
    assert result.returncode == 2 and result.stderr.startswith("wftop: "), result.stderr
    assert leaks(result.stderr) == [], where(result.stderr)
    assert "[masked:github_token]" in result.stderr


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
    shown = shown_to_a_person(["--json"], first + second, secret_root)
    assert leaks(shown) == [], where(shown)


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
    assert leaks(result.stdout) == [], where(result.stdout)
    assert leaks(result.stderr) == [], where(result.stderr)
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


async def test_tui_screens_mask_every_secret(secret_root, tui_home, monkeypatch):
    from tests.tui.test_tui_snapshots import viewer_ready
    from tests.tui_kit import finished, settle
    from wftop.core.config import Config
    from wftop.tui import clipboard
    from wftop.tui.screens.agent import AgentScreen
    from wftop.tui.screens.copy import CopyScreen
    from wftop.tui.screens.journal import JournalScreen
    from wftop.tui.screens.plan import ResumePlanScreen
    from wftop.tui.screens.run import RunScreen
    from wftop.tui.start import make_app
    from wftop.tui.widgets.call_table import CallTable

    app = make_app(
        [str(secret_root)], config=Config(bell=False), processes=FakeProcessTable(), live=False
    )
    monkeypatch.setattr(clipboard, "copy_elsewhere", lambda text, env, **_kw: ["tmux buffer"])
    seen: dict[str, str] = {}
    async with app.run_test(size=(240, 50)) as pilot:
        await settle(pilot)
        seen["runs"] = screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyScreen))
        seen["copy window"] = screen_text(app)
        for _ in range(4):  # run id, run folder, resume command, session id, journal path
            await pilot.press("down")
        await pilot.press("enter")
        await finished(app)
        await pilot.pause()
        (run,) = app.store.rows.values()
        assert app.clipboard == run.journal  # the real value is copied
        seen["copied toast"] = " ".join(f"{n.title}: {n.message}" for n in app.toasts)
        assert "Copied journal path" in seen["copied toast"]
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
        assert leaks(text) == [], f"{name}:\n{where(text)}"
    assert "[masked:" in seen["agent"] and "[masked:" in seen["journal"]
