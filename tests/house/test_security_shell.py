"""No shell anywhere: argv lists only, and hostile ids are refused or passed inert.

The first test reads the source of ``core/`` and ``tui/`` (the AST, not a grep) for
every way to reach a shell. The others feed run ids, session ids, script paths and
labels holding quotes, ``$()``, backticks, ``;``, newlines, a leading ``-`` and ``..``
segments to the validators (``wftop.core.resume.ids``), the prompt and argv builders
(``wftop.core.resume.command``) and ``wftop resume --dry-run --json`` on a copied tree whose
names were rewritten, and check that each is refused with a message naming what was
wrong, or ends up inside exactly one argv element (the prompt, JSON-quoted) and nowhere
else.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from tests.faults_kit import TIMEOUT, wftop
from wftop.core.resume.command import Strategy, build_argv, build_fresh_prompt, build_prompt
from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.ids import validate_agent_id, validate_run_id, validate_session_id
from wftop.core.text.gate import gate

TOP = Path(__file__).resolve().parent.parent.parent
RUN = "wf_c4e8dc39-03f"
SESSION = "e5c99c64-96da-45a1-841d-2b381f965487"

NASTY = ["'", '"', "$(touch pwned)", "`id`", ";", "\n", " ", "|", "&", ">"]
"""Pieces a shell would act on."""

SUBPROCESS_CALLS = {"run", "Popen", "call", "check_call", "check_output"}


def python_files() -> list[Path]:
    return sorted(p for top in ("core", "tui", "cli", "mockapi") for p in (TOP / top).rglob("*.py"))


def shell_uses(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(
            func.value, ast.Name
        ) else ""  # fmt: skip
        for keyword in node.keywords:
            if keyword.arg == "shell" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                found.append(f"line {node.lineno}: shell={ast.unparse(keyword.value)}")
        if owner == "os" and (name in {"system", "popen"} or name.startswith("spawn")):
            found.append(f"line {node.lineno}: os.{name}")
        if name in {"getoutput", "getstatusoutput", "create_subprocess_shell"}:
            found.append(f"line {node.lineno}: {name}")
        if name in SUBPROCESS_CALLS and owner in {"subprocess", ""} and node.args:
            first = node.args[0]
            if isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp)) and not (
                isinstance(first, ast.Constant) and not isinstance(first.value, str)
            ):
                found.append(f"line {node.lineno}: {name}() with a string command")
    return found


def test_no_shell_anywhere_in_core_and_tui():
    files = python_files()
    assert len(files) > 50
    found = {}
    for path in files:
        uses = shell_uses(ast.parse(path.read_bytes(), filename=str(path)))
        if uses:
            found[str(path.relative_to(TOP))] = uses
    assert found == {}


def test_the_checker_sees_every_shell_form():
    source = """
import os, subprocess, asyncio
subprocess.run("ls -l", shell=True)
subprocess.Popen(f"ls {x}")
subprocess.check_output("a" + b)
os.system("x")
os.popen("x")
os.spawnlp(0, "x")
subprocess.getoutput("x")
asyncio.create_subprocess_shell("x")
subprocess.run(["ls"], shell=flag)
"""
    assert len(shell_uses(ast.parse(source))) == 10
    assert shell_uses(ast.parse("subprocess.run(['ls', x], shell=False)")) == []


# -- the validators and builders ---------------------------------------------------------------

HOSTILE_RUN_IDS = [
    *(f"wf_abc{piece}def" for piece in NASTY),
    "-wf_abcdef",
    "--help",
    "../wf_abcdef",
    "wf_abcdef/../../etc",
    "wf_abcdef/..",
    "..",
    "",
    "WF_ABCDEF",
    "wf_abcdef\0",
]
HOSTILE_SESSION_IDS = [
    *(SESSION[:-1] + piece for piece in NASTY),
    "-" + SESSION[1:],
    "../" + SESSION,
    SESSION + "/..",
    SESSION.upper(),
    "",
]


@pytest.mark.parametrize("value", HOSTILE_RUN_IDS, ids=repr)
def test_hostile_run_ids_are_refused_everywhere(value):
    for call in (
        lambda: validate_run_id(value),
        lambda: build_prompt(value, "/tmp/s.js"),
        lambda: build_prompt(value, "/tmp/s.js", {"a": 1}),
    ):
        with pytest.raises(InvalidIdentifier, match=r"invalid run id: expected .*got "):
            call()
    with pytest.raises(InvalidIdentifier, match="invalid agent id"):
        validate_agent_id(value + "!")


@pytest.mark.parametrize("value", HOSTILE_SESSION_IDS, ids=repr)
def test_hostile_session_ids_are_refused_everywhere(value):
    with pytest.raises(InvalidIdentifier, match=r"invalid session id: expected .*got "):
        validate_session_id(value)
    for strategy in Strategy:
        with pytest.raises(InvalidIdentifier, match="invalid session id"):
            build_argv(strategy, "claude", value, "resume it")


@pytest.mark.parametrize(
    "path",
    ["s.js", "-s.js", "./s.js", "/tmp/../s.js", "/tmp/./s.js", "/tmp/s\n.js", "//tmp/s.js", ""],
    ids=repr,
)
def test_script_paths_that_are_not_plain_absolute_paths_are_refused(path):
    with pytest.raises(InvalidIdentifier, match="invalid script path"):
        build_prompt(RUN, path)
    with pytest.raises(InvalidIdentifier, match="invalid script path"):
        build_fresh_prompt(path)


@pytest.mark.parametrize("piece", [p for p in NASTY if p != "\n"] + ["-", "--x"], ids=repr)
def test_odd_script_paths_and_args_are_passed_inert_in_the_prompt(piece):
    path = f"/tmp/{piece}dir/-{piece}s.js"
    args = {"label": f"-{piece}", "n": [piece]}
    prompt = build_prompt(RUN, path, args)
    # The path and args are JSON inside the prompt: it reads back exactly.
    quoted = re.search(r'scriptPath: ("(?:[^"\\]|\\.)*")', prompt)
    assert quoted is not None and json.loads(quoted.group(1)) == path
    assert json.dumps(args, separators=(",", ":")) in prompt
    for strategy in (Strategy.RESUME_OWNER, Strategy.RELOCATE, Strategy.SURGICAL):
        argv = build_argv(strategy, "claude", SESSION, prompt)
        assert argv[-2:] == ["--", prompt]
        assert all(piece not in element for element in argv[:-1] if piece.strip("-"))


@pytest.mark.parametrize(
    "flag", ["--resume", "-p", "--", "--session-id=x", "--output-format=json", "a\nb", "a\0b"]
)
def test_extra_flags_that_change_the_command_are_refused(flag):
    with pytest.raises(InvalidIdentifier, match="flag"):
        build_argv(Strategy.RESUME_OWNER, "claude", SESSION, "go", [flag])


def test_a_prompt_starting_with_a_dash_stays_the_prompt():
    argv = build_argv(Strategy.RELOCATE, "claude", SESSION, "-p --dangerously-skip-permissions")
    assert argv[-2:] == ["--", "-p --dangerously-skip-permissions"]
    assert argv.count("-p") == 1


# -- through the CLI -----------------------------------------------------------------------------


def resume_dry_run(root: Path, run_id: str) -> subprocess.CompletedProcess[str]:
    """``wftop resume --dry-run --json`` with the run id after ``--`` (it may start with -)."""
    argv = [sys.executable, "-m", "wftop.cli", "resume", "--dry-run", "--json"]
    argv += ["--no-default-root", "--root", str(root), "--", run_id]
    return subprocess.run(argv, cwd=TOP, capture_output=True, text=True, timeout=TIMEOUT)


@pytest.mark.parametrize("value", [v for v in HOSTILE_RUN_IDS if v and "\0" not in v], ids=repr)
def test_wftop_resume_refuses_hostile_run_ids(tmp_path, value):
    root = copy_tree("killed", tmp_path)
    result = resume_dry_run(root, value)
    assert result.returncode == 2
    assert result.stdout == ""
    assert f"no run {gate(value)} under" in result.stderr  # a line break shows as ↵
    assert result.stderr.count("\n") == 1
    assert not (TOP / "pwned").exists() and not (tmp_path / "pwned").exists()


def test_wftop_resume_on_a_tree_with_hostile_names(tmp_path):
    """Labels, phases, the script name and an extra run folder hold shell syntax."""
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    hostile = "x'\"$(touch pwned)`id`;|&> -rf ../.."
    text = journal.read_text()
    text = re.sub(r'"label":"(a\d)"', lambda m: f'"label":{json.dumps("-" + hostile)}', text)
    text = text.replace('"phase":"Fan"', f'"phase":{json.dumps(hostile)}')
    journal.write_text(text)
    (script,) = root.glob("projects/*/*/workflows/scripts/*.js")
    odd_script = script.with_name(f"-{hostile.replace('/', '_')}-{RUN}.js")
    script.rename(odd_script)
    workflows = journal.parents[1]
    for name in (f"{RUN};id", f"{RUN}$(id)", f"-{RUN}", f"{RUN}\nx"):
        (workflows / name).mkdir()
        (workflows / name / "journal.jsonl").write_bytes(journal.read_bytes())
    past = 1_700_000_000
    for path in root.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)

    listed = json.loads(wftop(root, "ls", "--json").stdout)
    assert [run["run_id"] for run in listed] == [RUN]
    result = wftop(root, "resume", "--dry-run", "--json", RUN)
    assert result.returncode in (0, 3), result.stderr  # 3: the guard refuses (cwd gone)
    plan = json.loads(result.stdout)
    assert plan["script_path"] == str(odd_script)
    fixed = ["claude", "-p", "--resume", SESSION, "--allowedTools", "Workflow"]
    fixed += ["--output-format", "stream-json", "--verbose", "--"]
    assert plan["argv"][:-1] == fixed
    assert json.dumps(str(odd_script)) in plan["argv"][-1]
    assert hostile not in plan["argv"][-1].replace(json.dumps(str(odd_script)), "")
    for name in (f"{RUN};id", f"{RUN}$(id)"):
        refused = resume_dry_run(root, name)
        assert refused.returncode == 2 and f"no run {name} under" in refused.stderr
    assert not any(tmp_path.rglob("pwned")) and not (TOP / "pwned").exists()
