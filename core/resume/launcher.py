"""The launch seam: the detached process, plus the command and identifier checks it uses.

`build_prompt`, `build_argv` and `Strategy` live in ``wftop.core.resume.command`` and the
identifier checks in ``wftop.core.resume.ids``; both are re-exported here. No shell is ever
used: the command is an argv list.

A launch starts ``core/resume/runner.py`` (by file path, with ``python -I``, so it
runs from any cwd whether or not wftop is installed) in a new session; the runner
starts the real command and writes the status file that lets a restarted wftop find
the process again and read its exit code (`Launch.attach`). Liveness goes through the
``wftop.core.system.procs.ProcessTable`` seam so tests can fake it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, Protocol

import orjson

from wftop.core.compared import compared
from wftop.core.resume.command import (
    CONFLICTING_FLAGS,
    Strategy,
    build_argv,
    build_prompt,
    validate_script_path,
)
from wftop.core.resume.errors import LaunchError
from wftop.core.resume.ids import validate_agent_id, validate_run_id, validate_session_id
from wftop.core.system.procs import ProcessTable

__all__ = [
    "CONFLICTING_FLAGS",
    "RUNNER_PATH",
    "Launch",
    "LaunchPoll",
    "Launcher",
    "RunnerStatus",
    "Strategy",
    "SubprocessLauncher",
    "build_argv",
    "build_prompt",
    "read_runner_status",
    "validate_agent_id",
    "validate_run_id",
    "validate_script_path",
    "validate_session_id",
]

RUNNER_PATH: Final = Path(__file__).with_name("runner.py")

# -- the detached process ------------------------------------------------------------------


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RunnerStatus:
    """The runner's status file, parsed."""

    runner_pid: int
    runner_start: str | None
    child_pid: int | None
    child_start: str | None
    exit_code: int | None
    signal: int | None
    error: str | None

    @property
    def ended(self) -> bool:
        return self.exit_code is not None or self.signal is not None


@compared
@dataclass(frozen=True, slots=True, eq=False, repr=False)
class LaunchPoll:
    """What `Launch.poll` found."""

    state: Literal["running", "exited", "lost"]
    exit_code: int | None = None
    """Exit status when the command exited normally (126/127: could not start it)."""
    signal: int | None = None
    """The signal that killed the command, if one did."""
    error: str | None = None
    """Why the command could not be started, if it could not."""
    child_alive: bool = False
    """For ``lost``: the command itself still runs although its runner is gone."""


def read_runner_status(path: str | os.PathLike[str]) -> RunnerStatus | None:
    """Parse a status file; None if it is missing or unreadable (it is replaced atomically)."""
    try:
        with open(path, "rb") as handle:
            raw = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("runner_pid"), int):
        return None

    def whole(name: str) -> int | None:
        value = raw.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def text(name: str) -> str | None:
        value = raw.get(name)
        return value if isinstance(value, str) else None

    return RunnerStatus(
        runner_pid=raw["runner_pid"],
        runner_start=text("runner_start"),
        child_pid=whole("child_pid"),
        child_start=text("child_start"),
        exit_code=whole("exit_code"),
        signal=whole("signal"),
        error=text("error"),
    )


def _alive(table: ProcessTable, pid: int | None, start: str | None) -> bool:
    if pid is None or pid <= 0:
        return False
    now = table.start_time(pid)
    return now is not None and (start is None or now == start)


class Launch:
    """A detached runner (and the command it started), found again by its status file."""

    def __init__(
        self,
        *,
        pid: int | None,
        proc_start: str | None,
        log_path: Path,
        status_path: Path,
        process: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.pid = pid
        """Pid of the runner (None when re-attached before the runner wrote its status)."""
        self.proc_start = proc_start
        """The runner's start time, to tell it from a recycled pid."""
        self.log_path = log_path
        self.status_path = status_path
        self._process = process

    @classmethod
    def attach(
        cls,
        status_path: Path,
        log_path: Path,
        *,
        pid: int | None = None,
        proc_start: str | None = None,
    ) -> Launch:
        """Re-attach to a launch made earlier (perhaps by another wftop process)."""
        status = read_runner_status(status_path)
        if status is not None and pid is None:
            pid, proc_start = status.runner_pid, status.runner_start
        return cls(pid=pid, proc_start=proc_start, log_path=log_path, status_path=status_path)

    def runner_status(self) -> RunnerStatus | None:
        return read_runner_status(self.status_path)

    def poll(self, table: ProcessTable) -> LaunchPoll:
        """Running, exited (with exit code or signal), or lost.

        Lost means the runner is gone (or its pid now names another process) and no
        exit status was written: the command's fate is unknown.
        """
        if self._process is not None:
            self._process.poll()  # reap our own child, so it does not linger as a zombie
        status = self.runner_status()
        if status is not None and status.ended:
            return _exited(status)
        if self.pid is None and status is not None:  # attached before the runner wrote it
            self.pid, self.proc_start = status.runner_pid, status.runner_start
        if _alive(table, self.pid, self.proc_start):
            return LaunchPoll("running")
        status = self.runner_status()  # it may have finished between the two reads
        if status is not None and status.ended:
            return _exited(status)
        child_alive = status is not None and _alive(table, status.child_pid, status.child_start)
        return LaunchPoll("lost", child_alive=child_alive)

    def wait(self, table: ProcessTable, timeout: float, *, interval: float = 0.05) -> LaunchPoll:
        """Poll until the launch is no longer running or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.poll(table)
            if result.state != "running" or time.monotonic() >= deadline:
                return result
            time.sleep(interval)

    def stop(
        self, table: ProcessTable, *, grace: float = 5.0, kill_grace: float = 2.0
    ) -> LaunchPoll:
        """Stop the command's process group: SIGTERM, then SIGKILL after ``grace`` seconds.

        The runner survives the command, records how it ended, and exits; if it does not
        within ``kill_grace`` more seconds it is killed too (the launch then reads lost).

        Raises:
            LaunchError: A signal could not be sent (other than to a vanished process).
        """
        status = self.runner_status()
        if status is not None and status.ended:
            return _exited(status)
        child = (status.child_pid, status.child_start) if status else (None, None)
        if _alive(table, *child):
            _signal_group(child[0], signal.SIGTERM)
        elif _alive(table, self.pid, self.proc_start):
            _signal_pid(self.pid, signal.SIGTERM)  # forwarded, or stops it before it starts
        result = self.wait(table, grace)
        status = self.runner_status()
        child = (status.child_pid, status.child_start) if status else (None, None)
        if _alive(table, *child) and not (status and status.ended):
            _signal_group(child[0], signal.SIGKILL)
            result = self.wait(table, kill_grace)
        if result.state == "running" and _alive(table, self.pid, self.proc_start):
            _signal_pid(self.pid, signal.SIGKILL)
            result = self.wait(table, kill_grace)
        return result


def _exited(status: RunnerStatus) -> LaunchPoll:
    return LaunchPoll(
        "exited", exit_code=status.exit_code, signal=status.signal, error=status.error
    )


def _signal_group(pid: int | None, signum: int) -> None:
    if pid is None:
        return
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass
    except OSError as error:
        msg = f"could not signal process group {pid}: {error.strerror}"
        raise LaunchError(msg) from error


def _signal_pid(pid: int | None, signum: int) -> None:
    if pid is None:
        return
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
    except OSError as error:
        msg = f"could not signal process {pid}: {error.strerror}"
        raise LaunchError(msg) from error


class Launcher(Protocol):
    """Starts a command detached from wftop; tests substitute a fake."""

    def launch(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        status_path: Path,
        env: Mapping[str, str] | None = None,
    ) -> Launch: ...


class SubprocessLauncher:
    """The real launcher: the only code in ``wftop.core.resume`` that starts processes.

    Args:
        table: Process table used to read the runner's start time.
        python: Interpreter that runs the runner (default: this one).
    """

    def __init__(self, table: ProcessTable, *, python: str | None = None) -> None:
        self.table = table
        self.python = python or sys.executable

    def launch(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        log_path: Path,
        status_path: Path,
        env: Mapping[str, str] | None = None,
    ) -> Launch:
        """Start ``argv`` through the runner, in ``cwd``, in a new session.

        Args:
            argv: The command (e.g. from `build_argv`).
            cwd: Working directory of the command (the session's original cwd).
            log_path: Where the command's stdout and stderr go (created 0600, must not exist).
            status_path: The runner's status file.
            env: Environment of the command; None means this process's (the user's).

        Raises:
            LaunchError: Bad argv or paths, or the runner could not be started.
        """
        command = list(argv)
        if not command or not all(isinstance(part, str) and "\0" not in part for part in command):
            msg = f"invalid argv: expected non-empty strings without NUL, got {command!r}"
            raise LaunchError(msg)
        if not self.python:
            msg = "no Python interpreter to run the runner with"
            raise LaunchError(msg)
        if not cwd.is_dir():
            msg = f"working directory {str(cwd)!r} is not a directory"
            raise LaunchError(msg)
        if log_path.exists() or status_path.exists():
            msg = f"launch files already exist: {str(log_path)!r} / {str(status_path)!r}"
            raise LaunchError(msg)
        runner = [
            self.python,
            "-I",
            str(RUNNER_PATH),
            "--status",
            str(status_path),
            "--log",
            str(log_path),
            "--cwd",
            str(cwd),
            "--",
            *command,
        ]
        try:
            process = subprocess.Popen(
                runner,
                cwd=cwd,
                env=None if env is None else dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as error:
            msg = f"could not start the runner {self.python!r}: {error.strerror}"
            raise LaunchError(msg) from error
        return Launch(
            pid=process.pid,
            proc_start=self.table.start_time(process.pid),
            log_path=log_path,
            status_path=status_path,
            process=process,
        )
