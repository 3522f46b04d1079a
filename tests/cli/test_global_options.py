"""Global options count the same before or after the command (``wftop --root DIR ls`` and
``wftop ls --root DIR``), and roots given on both sides add up."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.corpus import tree
from wftop.cli.main import COMMANDS, parse
from wftop.cli.options import top_parser

NEEDS = {"resume": ["wf_x"], "export": ["wf_x"], "completion": ["bash"]}
"""What a command needs besides options to parse."""

GIVEN = {
    "--root": ["/some/dir"],
    "--no-default-root": [],
    "--no-mouse": [],
    "--read-only": [],
    "--stall-window": ["42"],
}
"""A value for every global option (test_every_global_option_is_tested keeps it complete)."""
HOST_OPTIONS = {"--host": ["build-01"], "--remote-command": ["~/bin/wftop"]}
"""Top-level options of the TUI that only ``ls`` and ``status`` take as well."""


def test_every_global_option_is_tested():
    flags = set(re.findall(r"\[(--[a-z-]+)", top_parser().format_usage())) - {"--version"}
    assert flags == set(GIVEN) | set(HOST_OPTIONS)


@pytest.mark.parametrize("name", ["ls", "status"])
@pytest.mark.parametrize("flag", list(HOST_OPTIONS))
def test_host_options_read_the_same_before_and_after_ls_and_status(name, flag):
    option = [flag, *HOST_OPTIONS[flag]]
    plain = vars(parse([name]))
    before = vars(parse([*option, name]))
    after = vars(parse([name, *option]))
    assert before == after != plain
    assert not hasattr(parse([name, "--host", "a"]), "hosts_after")


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("flag", list(GIVEN))
def test_a_global_option_reads_the_same_before_and_after_the_command(name, flag):
    option = [flag, *GIVEN[flag]]
    plain = vars(parse([name, *NEEDS.get(name, [])]))
    before = vars(parse([*option, name, *NEEDS.get(name, [])]))
    after = vars(parse([name, *NEEDS.get(name, []), *option]))
    assert before == after != plain
    changed = {key for key in before if before[key] != plain[key]}
    assert len(changed) == 1


def test_roots_before_and_after_the_command_add_up():
    args = parse(["--root", "/a", "ls", "--root", "/b", "--root", "/c"])
    assert args.root == ["/a", "/b", "/c"]
    assert not hasattr(args, "roots_after")


def wftop(*args: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "WFTOP_NOW": "1800000000"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, object]] = json.loads(done.stdout)
    return rows


def test_ls_reads_the_roots_named_before_the_command():
    clean, killed = str(tree("clean")), str(tree("killed"))
    before = wftop("--root", clean, "--no-default-root", "ls", "--json")
    after = wftop("ls", "--root", clean, "--no-default-root", "--json")
    assert before == after
    assert [row["root"] for row in before] == [clean]
    both = wftop("--root", clean, "ls", "--no-default-root", "--root", killed, "--json")
    assert sorted(row["root"] for row in both) == sorted([clean, killed])


def test_the_demo_resumes_under_its_own_root():
    """The demo parses its ``wftop resume`` line itself: its --root (after the command) counts."""
    from types import SimpleNamespace

    from wftop.cli.commands.demo import resume_args

    demo = SimpleNamespace(root="/demo/root", killed=SimpleNamespace(run_id="wf_abc"))
    args = resume_args(demo)
    assert args.root == ["/demo/root"] and args.no_default_root


def test_a_command_line_parsed_elsewhere_keeps_its_roots(tmp_path):
    from wftop.cli.main import build_parser
    from wftop.cli.options import roots_or_exit

    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    raw = build_parser().parse_args(
        ["--root", str(first), "ls", "--root", str(second), "--no-default-root"]
    )
    assert roots_or_exit(raw) == [str(first), str(second)]
