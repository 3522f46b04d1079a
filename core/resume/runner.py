"""Detached runner: starts one command, records its pid and exit status, outlives wftop.

Usage::

    python runner.py --status <file> --log <file> --cwd <dir> -- <argv...>
    python -m wftop.core.resume.runner ...   (same, when the package is importable)

It calls ``os.setsid()``, opens the log (created 0600, must not exist), starts
``argv`` in ``cwd`` in a process group of its own (so the whole tree can be signalled
without killing the runner) with stdout and stderr to the log, and keeps the status
file up to date, always atomically (temp file + rename):

* at once: ``runner_pid``, ``runner_start``;
* after the start: ``child_pid``, ``child_start``;
* at the end: ``exit_code`` (or ``signal`` if the command was killed) and ``ended_at``;
  ``error`` (with exit code 126/127) when the command could not be started.

SIGTERM, SIGINT and SIGHUP received by the runner are forwarded to the command's
process group; the runner keeps waiting so that it can record how the command ended.
Standard library only: it must run with ``python -I`` from any working directory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime
from types import FrameType
from typing import Any

FORWARDED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def proc_start_time(pid: int) -> str | None:
    """Field 22 of ``/proc/<pid>/stat``, Claude Code's ``procStart`` (Linux; None elsewhere)."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    tail = raw[raw.rfind(b")") + 2 :].split()
    return tail[19].decode() if len(tail) > 19 else None


def atomic_write(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Replace the file at ``path`` with ``data`` at once: a reader finds the old file or
    the new one, never a part. ``data`` goes to a new file beside it (mode 0600, never
    through a link), is flushed to disk unless ``sync`` is false (a cache that a crash
    may lose), then renamed over ``path``. On failure the old file is left as it was, the
    temporary one removed, and the `OSError` raised."""
    folder, name = os.path.split(os.fspath(path))
    temp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


# `atomic_write` above is a copy of `wftop.core.system.atomic.atomic_write`: the runner
# imports nothing of wftop (it runs by file path, with ``python -I``). A test holds the two
# equal; change both.


def write_status(path: str, status: dict[str, Any]) -> None:
    """Replace the status file at once (0600)."""
    atomic_write(path, json.dumps(status, separators=(",", ":")).encode() + b"\n")


def parse_args(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """Split ``--status S --log L --cwd D -- argv...``; everything after ``--`` is argv.

    Raises:
        ValueError: An option is missing, unknown or repeated, or argv is empty.
    """
    if "--" not in args:
        msg = "expected '--' before the command"
        raise ValueError(msg)
    split = args.index("--")
    head, argv = args[:split], args[split + 1 :]
    if len(head) % 2 or not argv:
        msg = "expected --status, --log and --cwd with values, then -- and a command"
        raise ValueError(msg)
    options: dict[str, str] = {}
    for name, value in zip(head[::2], head[1::2], strict=True):
        key = name.removeprefix("--")
        if name not in ("--status", "--log", "--cwd") or key in options:
            msg = f"unknown or repeated option {name!r}"
            raise ValueError(msg)
        options[key] = value
    if len(options) != 3:
        msg = "expected --status, --log and --cwd"
        raise ValueError(msg)
    return options, argv


def run(options: dict[str, str], argv: list[str]) -> int:
    """Start ``argv`` and record its fate in the status file; return the runner's exit code."""
    with contextlib.suppress(PermissionError):
        os.setsid()  # already a session leader when started with start_new_session=True
    status_path = options["status"]
    status: dict[str, Any] = {
        "version": 1,
        "runner_pid": os.getpid(),
        "runner_start": proc_start_time(os.getpid()),
        "child_pid": None,
        "child_start": None,
        "started_at": _now(),
        "exit_code": None,
        "signal": None,
        "error": None,
        "ended_at": None,
    }
    write_status(status_path, status)
    received: list[int] = []
    child: list[subprocess.Popen[bytes]] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        if child:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child[0].pid, signum)

    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, forward)

    def finish(**values: Any) -> int:
        status.update(values, ended_at=_now())
        write_status(status_path, status)
        return 0

    try:
        log_flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
        log_fd = os.open(options["log"], log_flags | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        return finish(exit_code=126, error=f"could not create the log file: {error.strerror}")
    if received:
        os.close(log_fd)
        return finish(signal=received[0], error="stopped before the command was started")
    if not os.path.isdir(options["cwd"]):
        os.close(log_fd)
        return finish(exit_code=126, error=f"working directory {options['cwd']!r} is missing")
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            cwd=options["cwd"],
            process_group=0,
            close_fds=True,
        )
    except OSError as error:
        code = 127 if error.errno == errno.ENOENT else 126
        return finish(exit_code=code, error=f"could not start {argv[0]!r}: {error.strerror}")
    finally:
        os.close(log_fd)
    child.append(process)
    status.update(child_pid=process.pid, child_start=proc_start_time(process.pid))
    write_status(status_path, status)
    if received:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, received[-1])
    code = process.wait()
    if code < 0:
        return finish(signal=-code)
    return finish(exit_code=code)


def main(args: list[str] | None = None) -> int:
    try:
        options, argv = parse_args(sys.argv[1:] if args is None else args)
    except ValueError as error:
        print(f"runner: {error}", file=sys.stderr)
        return 2
    return run(options, argv)


if __name__ == "__main__":
    sys.exit(main())
