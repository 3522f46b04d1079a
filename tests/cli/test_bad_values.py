"""A value wftop cannot use, on the command line or in the config file, is refused with one
line saying which and what was expected (exit 2), before it is used: never a traceback, and
never taken (``nan`` seconds used to pass the "positive number of seconds" check)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.corpus import tree
from wftop.core.config import FIELDS, MAX_SECONDS, ConfigError, load_config, parse_config

KILLED = tree("killed")
RUN_ID = "wf_c4e8dc39-03f"


def wftop(*args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WFTOP_CONFIG": str(config or "/nonexistent/config.toml")}
    return subprocess.run(
        [sys.executable, "-m", "wftop.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The refusal's last line (argparse's usage lines come before it)."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stdout == ""
    return done.stderr.splitlines()[-1]


HOST_REFUSAL = (
    "wftop: --host '--': not a host name wftop passes to ssh (expected [user@]host or an "
    "ssh_config alias: letters, digits and . _ - : %, not starting with -)"
)


@pytest.mark.parametrize(
    "argv",
    [
        ["--host=--", "ls"],
        ["ls", "--host=--"],
        ["--host=--", "status"],
        ["status", "--host=--"],
        ["--host=--"],
        ["--host", "ok", "--host=--", "ls"],
    ],
)
def test_host_dash_dash_gets_the_one_line_refusal_of_any_bad_host(argv):
    done = wftop(*argv, "--no-default-root", "--root", str(KILLED))
    assert refused(done) == HOST_REFUSAL
    assert done.stderr.count("\n") == 1


def test_other_bad_hosts_are_refused_when_read_too():
    done = wftop("ls", "--host", "ok-host", "--host=-oProxyCommand=x")
    assert refused(done).startswith("wftop: --host '-oProxyCommand=x': not a host name")
    assert done.stderr.count("\n") == 1


SECONDS = "a number of seconds above 0 and at most 31622400 (a year)"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--stall-window=nan", "ls"], f"argument --stall-window: expected {SECONDS}, got 'nan'"),
        (["ls", "--stall-window=inf"], f"argument --stall-window: expected {SECONDS}, got 'inf'"),
        (["--stall-window=-1", "status"], f"argument --stall-window: expected {SECONDS}"),
        (["--stall-window=0", "ls"], f"argument --stall-window: expected {SECONDS}"),
        (["--stall-window=1e400", "ls"], f"argument --stall-window: expected {SECONDS}"),
        (
            ["resume", RUN_ID, "--dry-run", "--timeout=nan"],
            f"argument --timeout: expected {SECONDS}",
        ),
        (["resume", RUN_ID, "--dry-run", "--exact", "--exact-timeout=inf"], "--exact-timeout"),
        (["scan", "--list-sessions", "--limit=-1"], "argument --limit: expected a whole number"),
        (["scan", "--list-sessions", "--limit=0"], "from 1 to 100000, got '0'"),
        (["scan", "--list-sessions", "--limit=" + "9" * 40], "from 1 to 100000"),
    ],
)
def test_numbers_out_of_range_or_not_finite_are_refused(argv, says):
    line = refused(wftop(*argv, "--no-default-root", "--root", str(KILLED)))
    assert says in line


@pytest.mark.parametrize("value", ["99999999999999999999", "-5", "0", "1e3", "268435457"])
def test_fetch_max_bytes_out_of_range_is_one_line(value):
    done = wftop("__fetch", f"--max-bytes={value}", "--session=s", "--root=r", "--file=x", "wf_x")
    assert refused(done) == (
        f"wftop __fetch: argument --max-bytes: expected a whole number from 1 to 268435456, "
        f"got '{value}'"
    )
    assert done.stderr.count("\n") == 1


# -- the config file ---------------------------------------------------------------------------

BAD_CONFIGS = {
    "stall_window = nan\n": f"stall_window must be {SECONDS}, got nan",
    "stall_window = inf\n": f"stall_window must be {SECONDS}, got inf",
    "attention_window = -inf\n": f"attention_window must be {SECONDS}, got -inf",
    "stall_window = 1e300\n": f"stall_window must be {SECONDS}, got 1e+300",
    "stall_window = " + "[" * 3_000 + "]" * 3_000 + "\n": (
        "config.toml:1: stall_window is nested 3000 levels deep (expected at most 16 "
        "levels of arrays and tables)"
    ),
    'theme = "x"\n\nresume_flags = ' + "[{a = " * 2_000 + "1" + "}]" * 2_000 + "\n": (
        "config.toml:3: resume_flags is nested 4000 levels deep"
    ),
    'hosts = ["ok", "-oProxyCommand=x"]\n': "hosts: '-oProxyCommand=x': not a host name",
    "[keys]\nresume = [[1]]\n": "[keys] resume must be a key or a list of keys, got [[1]]",
    "roots = [" + '"x", ' * 5_000 + "3]\n": "roots must be a list of directories, got ['x', ",
}


@pytest.fixture(params=list(BAD_CONFIGS), ids=range(len(BAD_CONFIGS)))
def bad_config(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "config.toml"
    path.write_text(request.param)
    return path, BAD_CONFIGS[request.param]


@pytest.mark.parametrize(
    "argv",
    [["resume", RUN_ID, "--dry-run"], ["resume", RUN_ID, "--dry-run", "--json"], []],
    ids=["resume", "resume-json", "tui"],
)
def test_a_bad_config_is_one_line_naming_the_key_from_every_command_reading_it(bad_config, argv):
    path, says = bad_config
    done = wftop(*argv, "--no-default-root", "--root", str(KILLED), config=path)
    line = refused(done)
    assert done.stderr.count("\n") == 1
    assert line.startswith(f"wftop: {path}")
    assert says in line
    assert len(line) < 400


def test_a_config_not_utf8_names_its_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"bell = true\n\xff = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_config(str(path))
    assert str(caught.value) == f"{path}:2: not valid TOML (expected UTF-8 text)"


toml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.just(float("nan")),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from([*FIELDS, "other"]), toml_values, max_size=4))
def test_a_config_of_any_shape_is_a_config_or_one_line_naming_the_key(data):
    try:
        config = parse_config(data, "config.toml")
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 400
        assert any(key in message for key in data)
    else:
        for seconds in (config.stall_window, config.attention_window):
            assert math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS


def test_a_keymap_the_tui_cannot_use_stops_the_tui_and_no_command(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('bell = false\n\n[keys]\nresume = "y"\n')
    line = refused(wftop("--no-default-root", "--root", str(KILLED), config=path))
    assert line == (
        f"wftop: {path}:4: [keys] 'y' would be bound to both 'resume' and 'copy' "
        "(on the run, runs screen); give one of them another key"
    )
    listed = wftop("ls", "--json", "--no-default-root", "--root", str(KILLED), config=path)
    assert listed.returncode == 0 and RUN_ID in listed.stdout  # a binding is the TUI's own
