"""Identifier checks, the resume prompt, and the claude argv built from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wftop.core.resume.errors import InvalidIdentifier
from wftop.core.resume.launcher import (
    Strategy,
    build_argv,
    build_prompt,
    validate_agent_id,
    validate_run_id,
    validate_script_path,
    validate_session_id,
)

SID = "90d71506-c5e0-41d4-aa81-561580cc57e4"
RUN = "wf_6838482f-c9a"
SCRIPT = "/home/dev/.claude/projects/-p/90d71506/workflows/scripts/six-wf_6838482f-c9a.js"
HOSTILE = [
    'a"b',
    "a'b",
    "$(touch pwned)",
    "`touch pwned`",
    "a; rm -rf /",
    "a\nb",
    "-rf",
    "--resume",
    "../../etc/passwd",
    "a b",
    "",
    "a\0b",
    "wf_abcdef; ls",
    "wf_abcdef\n",
]

# -- identifiers --------------------------------------------------------------------------------


def test_good_identifiers_pass():
    assert validate_session_id(SID) == SID
    assert validate_run_id(RUN) == RUN
    assert validate_run_id("wf_abcdef") == "wf_abcdef"
    assert validate_agent_id("a08e490b8127484d2") == "a08e490b8127484d2"
    assert validate_agent_id("alabel-0123456789abcdef") == "alabel-0123456789abcdef"


@pytest.mark.parametrize(
    "value",
    [
        *HOSTILE,
        SID.upper(),
        SID + "0",
        "wf_ABCDEF",
        "wf_abc",
        "00000000-0000-0000-0000-000000000000",
        None,
        7,
    ],
)
def test_hostile_identifiers_are_refused(value):
    for check in (validate_session_id, validate_run_id):
        with pytest.raises(InvalidIdentifier, match="invalid"):
            check(value)


@pytest.mark.parametrize("value", ["", "a" * 129, "a/b", "a.b", "..", "-", "é", "a\n"])
def test_bad_agent_ids_are_refused(value):
    if value == "-":
        assert validate_agent_id(value) == "-"  # the CLI's own pattern allows it
        return
    with pytest.raises(InvalidIdentifier):
        validate_agent_id(value)


@pytest.mark.parametrize(
    "path",
    [
        "relative/x.js",
        "/a/../b.js",
        "/a/./b.js",
        "/a//b.js",
        "/a/b\n.js",
        "/a/\x1b[2J.js",
        "//server/share/x.js",
        "",
    ],
)
def test_bad_script_paths_are_refused(path):
    with pytest.raises(InvalidIdentifier, match="script path"):
        validate_script_path(path)


# -- prompt ----------------------------------------------------------------------------------


def test_prompt_names_the_run_and_the_absolute_script_literally():
    prompt = build_prompt(RUN, SCRIPT)
    assert prompt.startswith("Resume the workflow run wf_6838482f-c9a by calling Workflow(")
    assert f'scriptPath: "{SCRIPT}", resumeFromRunId: "{RUN}"}})' in prompt
    assert "exactly once" in prompt and "Do not edit the script." in prompt
    assert "args" not in prompt


def test_prompt_carries_args_as_json_and_keeps_hostile_values_inert():
    args = {"topic": 'say "hi"\n$(rm -rf /); `x`', "n": [1, 2.5, None, True]}
    prompt = build_prompt(RUN, Path(SCRIPT), args)
    start = prompt.index("args: ") + len("args: ")
    decoded, _end = json.JSONDecoder().raw_decode(prompt[start:])
    assert decoded == args
    assert "\n" not in prompt
    assert not prompt.startswith("-")


def test_prompt_quotes_an_unusual_path_as_json():
    path = '/tmp/we"ird dir/x.js'
    prompt = build_prompt(RUN, path)
    assert 'scriptPath: "/tmp/we\\"ird dir/x.js"' in prompt


@pytest.mark.parametrize(
    "bad",
    [
        {"run_id": "wf_x"},
        {"script_path": "x.js"},
        {"args": {1: "non-string key"}},
        {"args": {"s": {1, 2}}},
    ],
)
def test_prompt_refuses_bad_input(bad):
    kwargs = {"run_id": RUN, "script_path": SCRIPT, "args": None, **bad}
    with pytest.raises(InvalidIdentifier):
        build_prompt(kwargs["run_id"], kwargs["script_path"], kwargs["args"])


# -- argv ------------------------------------------------------------------------------------


def test_argv_of_each_strategy():
    prompt = build_prompt(RUN, SCRIPT)
    tail = ["--allowedTools", "Workflow", "--output-format", "stream-json", "--verbose"]
    assert build_argv(Strategy.RESUME_OWNER, "claude", SID, prompt) == [
        "claude",
        "-p",
        "--resume",
        SID,
        *tail,
        "--",
        prompt,
    ]
    for strategy in (Strategy.RELOCATE, "surgical"):
        assert build_argv(strategy, "/opt/claude", SID, prompt, ["--model", "opus"]) == [
            "/opt/claude",
            "-p",
            "--session-id",
            SID,
            *tail,
            "--model",
            "opus",
            "--",
            prompt,
        ]


@pytest.mark.parametrize("value", HOSTILE)
def test_argv_refuses_hostile_session_ids(value):
    with pytest.raises(InvalidIdentifier):
        build_argv("resume-owner", "claude", value, "Resume it")


def test_argv_keeps_a_dash_prompt_and_odd_flags_inert():
    prompt = "-p --resume x; $(touch pwned)\n`id`"
    argv = build_argv("relocate", "claude", SID, prompt, ["--add-dir", "/a b/$(x);"])
    assert argv[-2:] == ["--", prompt]
    assert argv[-4:-2] == ["--add-dir", "/a b/$(x);"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"strategy": "fork"}, "strategy"),
        ({"claude_bin": ""}, "binary"),
        ({"claude_bin": "cl\naude"}, "binary"),
        ({"prompt": "a\0b"}, "prompt"),
        ({"prompt": "  "}, "prompt"),
        ({"extra_flags": ["--resume", SID]}, "conflicts"),
        ({"extra_flags": ["--session-id=" + SID]}, "conflicts"),
        ({"extra_flags": ["--fork-session"]}, "conflicts"),
        ({"extra_flags": ["--"]}, "conflicts"),
        ({"extra_flags": ["--model\nx"]}, "extra flag"),
    ],
)
def test_argv_refuses_bad_parts(kwargs, match):
    values = {
        "strategy": "resume-owner",
        "claude_bin": "claude",
        "session_id": SID,
        "prompt": "Resume it",
        "extra_flags": (),
        **kwargs,
    }
    with pytest.raises(InvalidIdentifier, match=match):
        build_argv(**values)
