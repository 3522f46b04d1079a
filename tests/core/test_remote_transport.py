"""The SSH transport: the argv that reaches a host, how ``WFTOP_SSH`` splits, why a host
could not be read."""

from __future__ import annotations

import shlex

import pytest

from wftop.core.remote.transport import (
    HostError,
    Unreachable,
    check_host,
    classify_exit,
    remote_argv,
    ssh_prefix,
)


@pytest.mark.parametrize("name", ["alpha", "dev@build-01.example.com", "10.0.0.7", "::1", "a_b"])
def test_host_names_ssh_accepts_pass(name):
    assert check_host(name) == name


@pytest.mark.parametrize(
    "name",
    ["-oProxyCommand=x", "a b", "a;b", "a/b", "$(x)", "`x`", "", "a\x00", "é", "@a", "x" * 300],
)
def test_other_names_are_refused_with_one_line(name):
    with pytest.raises(HostError) as raised:
        check_host(name)
    assert "\n" not in str(raised.value)


def test_the_ssh_prefix_splits_like_a_shell_and_env_beats_the_config():
    env = {"WFTOP_SSH": "ssh -F '/tmp/my config' -o 'ProxyJump=gw'"}
    assert ssh_prefix("ssh -p 2222", env) == ["ssh", "-F", "/tmp/my config", "-o", "ProxyJump=gw"]
    assert ssh_prefix("ssh -p 2222", {}) == ["ssh", "-p", "2222"]
    assert ssh_prefix(None, {}) == ["ssh"]
    with pytest.raises(HostError, match="WFTOP_SSH"):
        ssh_prefix(None, {"WFTOP_SSH": "ssh 'unclosed"})


def test_the_argv_ends_options_before_the_host_and_quotes_every_argument():
    argv = remote_argv(["ssh", "-F", "cfg"], "alpha", ["resume", "wf_x; rm -rf ~", "--json"])
    assert argv[:3] == ["ssh", "-F", "cfg"]
    assert argv[-3:-1] == ["--", "alpha"]
    assert shlex.split(argv[-1]) == ["wftop", "resume", "wf_x; rm -rf ~", "--json"]
    with pytest.raises(HostError):
        remote_argv(["ssh"], "-oProxyCommand=x", ["ls"])


def test_the_remote_command_is_the_users_own_words():
    argv = remote_argv(["ssh"], "alpha", ["ls", "--json"], "~/.local/bin/wftop")
    assert argv[-1] == "~/.local/bin/wftop ls --json"


@pytest.mark.parametrize(
    ("code", "stderr", "reason"),
    [
        (255, "tester@127.0.0.1: Permission denied (publickey).", "auth"),
        (255, "Host key verification failed.", "auth"),
        (255, "ssh: Could not resolve hostname nope: Name or service not known", "dns"),
        (255, "ssh: Could not resolve hostname nope: Temporary failure in name resolution", "dns"),
        (255, "ssh: connect to host 10.1.1.1 port 22: Connection timed out", "timeout"),
        (255, "Connection timed out during banner exchange", "timeout"),
        (255, "Timeout, server 10.1.1.1 not responding.", "timeout"),
        (255, "ssh: connect to host 127.0.0.1 port 1: Connection refused", "refused"),
        (255, "Connection to 127.0.0.1 closed by remote host.", "closed"),
        (127, "sh: 1: wftop: not found", "not installed"),
        (2, "wftop: error: unrecognized arguments: --watch", "exit 2"),
    ],
)
def test_why_a_host_could_not_be_read(code, stderr, reason):
    failure = classify_exit(code, "banner\n" + stderr + "\n")
    assert failure.reason == reason
    assert failure.detail == stderr.strip()


def test_a_host_without_wftop_is_told_how_to_install_it():
    line = Unreachable("not installed").describe("alpha")
    assert line.startswith("alpha: wftop is not installed there")
    assert "--remote-command" in line
