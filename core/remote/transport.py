"""The SSH transport: which host names pass, the argv that reaches them, why one cannot.

A host name is what the user's OpenSSH client accepts as a destination (``user@host``, an
alias from ``~/.ssh/config``), checked before it comes near an argv: no option-like leading
``-``, no whitespace, no shell or path characters. The ``ssh`` prefix is ``$WFTOP_SSH``,
else ``ssh_command`` from the config file, else ``ssh``; it is split as a shell would
(`shlex.split`) and never run by one. The remote side always goes through the remote
user's shell (that is how SSH runs a command), so every argument wftop adds is quoted for
it; ``--remote-command`` is the user's own words for how wftop starts there and is passed
as written.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ENV_SSH = "WFTOP_SSH"
DEFAULT_REMOTE_COMMAND = "wftop"
SSH_OPTIONS = (
    "-T",
    "-o", "BatchMode=yes",
    "-o", "ConnectTimeout=10",
    "-o", "ServerAliveInterval=5",
    "-o", "ServerAliveCountMax=3",
)  # fmt: skip
"""Never prompt (a TUI has no terminal to give ssh), and notice a dead link in ~15 s."""

HOST_NAME = re.compile(r"^(?:[A-Za-z0-9_][A-Za-z0-9._+-]*@)?[A-Za-z0-9_:][A-Za-z0-9._:%-]*$")
MAX_HOST = 255

NOT_INSTALLED = 127
"""The remote shell's exit code for a command it cannot find."""


class HostError(ValueError):
    """A host name or ssh command that cannot be used; the message says which and why."""


def check_host(name: str, where: str = "--host") -> str:
    """``name`` when it is a host name wftop passes to ssh, else `HostError`."""
    if not isinstance(name, str) or len(name) > MAX_HOST or not HOST_NAME.match(name):
        shown = str(name).encode("unicode_escape").decode("ascii")
        raise HostError(
            f"{where} {shown!r}: not a host name wftop passes to ssh (expected [user@]host or "
            "an ssh_config alias: letters, digits and . _ - : %, not starting with -)"
        )
    return name


def ssh_prefix(configured: str | None = None, env: Mapping[str, str] | None = None) -> list[str]:
    """The argv that starts ssh: ``$WFTOP_SSH``, else ``ssh_command``, else ``ssh``."""
    env = os.environ if env is None else env
    text = env.get(ENV_SSH) or configured
    if not text:
        return ["ssh"]
    source = ENV_SSH if env.get(ENV_SSH) else "ssh_command"
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise HostError(f"{source} {text!r}: cannot split it as a shell would ({error})") from None
    if not words:
        raise HostError(f"{source} is empty (expected a command such as 'ssh -F ./config')")
    return words


def remote_argv(
    prefix: Sequence[str], host: str, args: Sequence[str], remote_command: str | None = None
) -> list[str]:
    """The argv that runs ``wftop <args>`` on ``host`` (every arg quoted for the remote shell)."""
    command = remote_command or DEFAULT_REMOTE_COMMAND
    line = " ".join([command, *(shlex.quote(arg) for arg in args)])
    return [*prefix, *SSH_OPTIONS, "--", check_host(host), line]


@dataclass(frozen=True)
class Unreachable:
    """Why a host's runs cannot be read now: ``reason`` is one word, ``detail`` ssh's own."""

    reason: str
    """``auth``, ``dns``, ``timeout``, ``refused``, ``closed``, ``not installed`` or
    ``exit N`` (the remote command's exit code)."""
    detail: str = ""

    def describe(self, host: str) -> str:
        """One line for a person: what is wrong with ``host`` and, if known, what to do."""
        if self.reason == "not installed":
            return (
                f"{host}: wftop is not installed there (the remote shell found no wftop): "
                "install it there as you did here, or say how to start it with --remote-command "
                "(e.g. --remote-command '~/.local/bin/wftop')"
            )
        tail = f": {self.detail}" if self.detail else ""
        return f"{host}: unreachable ({self.reason}){tail}"


SSH_FAILURES = (
    ("auth", ("permission denied", "host key verification failed", "authentication fail",
              "too many authentication failures", "no more authentication methods")),
    ("dns", ("could not resolve hostname", "name or service not known", "nodename nor servname",
             "temporary failure in name resolution", "no address associated")),
    ("timeout", ("timed out", "timeout")),
    ("refused", ("connection refused", "no route to host", "network is unreachable")),
)  # fmt: skip
"""Words of ssh's own messages (exit 255) → the reason a person reads."""


def classify_exit(code: int | None, stderr: str) -> Unreachable:
    """Why a connection ended, from ssh's exit code and the last of its stderr."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    detail = lines[-1][:200] if lines else ""
    lowered = stderr.lower()
    if code == NOT_INSTALLED or "wftop: command not found" in lowered:
        return Unreachable("not installed", detail)
    if code == 255 or code is None:
        for reason, words in SSH_FAILURES:
            if any(word in lowered for word in words):
                return Unreachable(reason, detail)
        return Unreachable("closed", detail)
    if code == 0:
        return Unreachable("closed", detail or "the remote wftop ended its stream")
    return Unreachable(f"exit {code}", detail)


@dataclass(frozen=True)
class Reply:
    """What a one-shot remote command printed, or why the host could not be asked."""

    stdout: bytes
    failure: Unreachable | None = None


def run_remote(argv: Sequence[str], timeout: float = 60.0) -> Reply:
    """Run a one-shot remote command to its end (``ls --json``, ``status``, a plan)."""
    try:
        done = subprocess.run(  # noqa: S603 - an argv list; the host name was checked
            list(argv), stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return Reply(b"", Unreachable("timeout", f"no answer in {timeout:g} s"))
    except OSError as error:
        return Reply(b"", Unreachable("ssh", f"{argv[0]}: {error.strerror or error}"))
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        return Reply(done.stdout, classify_exit(done.returncode, stderr))
    return Reply(done.stdout)
