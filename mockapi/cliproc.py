"""Starting the real ``claude`` CLI in isolation: where the binary is, its environment, and a
process wrapper that always kills the whole process group when it is done.

Used by ``wftop demo`` and ``wftop drill`` and by the end-to-end tests. Standard library only;
nothing here talks to anything but the loopback mock whose URL it is given.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Parent variables that would leak a real account, config or sandbox setting into the CLI.
_DROPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE")
_DROPPED_NAMES = ("HOME", "IS_SANDBOX", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "AWS_PROFILE")


class RealCliError(RuntimeError):
    """A CLI run did not do what the helper needed (it timed out, or never reached a point)."""


def find_claude(local: Path | None = None) -> str | None:
    """``$WFTOP_CLAUDE``, then ``local`` when given and executable, then ``claude`` on PATH;
    None when there is none."""
    wanted = os.environ.get("WFTOP_CLAUDE")
    if wanted:
        return shutil.which(wanted)  # a path or a command name; None if not executable
    if local is not None and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("claude")


@dataclass(frozen=True)
class CliHome:
    """An isolated place for the CLI: HOME, its config dir, its temp dir and a working dir."""

    root: Path
    home: Path
    config_dir: Path
    tmp_dir: Path
    cwd: Path

    @classmethod
    def create(cls, root: Path, cwd: Path | None = None) -> CliHome:
        root = Path(root)
        made = cls(
            root, root / "home", root / "home" / ".claude", root / "tmp", cwd or root / "proj"
        )
        for d in (made.config_dir, made.tmp_dir, made.cwd):
            d.mkdir(parents=True, exist_ok=True)
        return made

    @property
    def projects(self) -> Path:
        return self.config_dir / "projects"

    def __fspath__(self) -> str:
        return str(self.config_dir)


def cli_env(home: CliHome, base_url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent environment minus ANTHROPIC_*/CLAUDE* and home settings, pointed at the mock."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_DROPPED_PREFIXES) and k not in _DROPPED_NAMES
    }
    env.update(
        {
            "HOME": str(home.home),
            "CLAUDE_CONFIG_DIR": str(home.config_dir),
            "CLAUDE_CODE_TMPDIR": str(home.tmp_dir),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-dummy",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "IS_SANDBOX": "1",  # exactly "1": lets --dangerously-skip-permissions run as root
        }
    )
    env.update(extra or {})
    return env


def claude_argv(
    claude: str, prompt: str, resume: str | None = None, extra_args: Sequence[str] = ()
) -> list[str]:
    argv = [
        claude,
        "-p",
        "--dangerously-skip-permissions",
        "--output-format",
        "stream-json",
        "--verbose",
    ]
    if resume:
        argv += ["--resume", resume]
    return [*argv, *extra_args, prompt]


class CliProcess:
    """One ``claude`` process in a new process group; stdout/stderr go to files."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, log_prefix: Path):
        self.argv = list(argv)
        self.stdout_path = log_prefix.with_name(log_prefix.name + ".stream.jsonl")
        self.stderr_path = log_prefix.with_name(log_prefix.name + ".stderr")
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        self.killed_with: int | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (ignored when it is gone already)."""
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return
        self.killed_with = self.killed_with or sig

    def wait(self, timeout: float) -> int:
        """The exit code; on timeout the group is killed and :class:`RealCliError` raised."""
        try:
            return self.proc.wait(timeout=max(timeout, 0.0))
        except subprocess.TimeoutExpired:
            self.close()
            raise RealCliError(
                f"claude did not finish within {timeout:.0f}s\n{self.tail()}"
            ) from None

    def close(self) -> None:
        """SIGKILL the group (stray children too) and reap the process."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)

    def __enter__(self) -> CliProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def events(self) -> list[dict[str, Any]]:
        """The stream-json events printed so far."""
        out = []
        for line in self.stdout_path.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                out.append(event)
        return out

    def session_id(self) -> str | None:
        events = self.events()
        init = [e for e in events if e.get("type") == "system" and e.get("subtype") == "init"]
        return next((e.get("session_id") for e in init + events if e.get("session_id")), None)

    def final_result(self) -> str | None:
        results = [e.get("result") for e in self.events() if e.get("type") == "result"]
        return next((r for r in reversed(results) if r), None)

    def tail(self, chars: int = 1500) -> str:
        err = self.stderr_path.read_text(errors="replace")[-chars:]
        out = self.stdout_path.read_text(errors="replace")[-chars:]
        return f"argv: {self.argv[1:-1]}\nstderr: {err}\nstdout tail: {out}"


def cli_version(claude: str, timeout: float = 60.0) -> str:
    """``claude --version``'s number, e.g. ``2.1.332``."""
    done = subprocess.run(
        [claude, "--version"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_PREFIXES)},
        check=False,
    )
    return done.stdout.strip().split(" ")[0]
