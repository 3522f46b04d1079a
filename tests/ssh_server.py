"""A throwaway SSH server for the remote tests: ``python -m tests.ssh_server``.

The machine has the OpenSSH client but no sshd, so the tests run this one (asyncssh) on a
loopback port: it accepts one user key, and runs each command the way sshd does, through
``/bin/sh -c``, in the environment of its "host" (its own HOME and CLAUDE_CONFIG_DIR).
It prints ``ready <port>`` once it listens. Killing its process group drops every
connection and every command it started, as a host going away does; it does so itself once
the test's process (``--parent``) has gone, which a suite killed mid-test (its timeout) leaves
without any teardown.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import Any

import asyncssh


async def serve_command(process: Any, env: dict[str, str]) -> None:
    """Run the session's command as sshd would and copy its output to the channel."""
    command = process.command or "true"
    child = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=env["HOME"],
    )

    async def copy(source: asyncio.StreamReader, sink: Any) -> None:
        while chunk := await source.read(65536):
            sink.write(chunk)
            with contextlib.suppress(Exception):
                await sink.drain()

    assert child.stdout is not None and child.stderr is not None
    pumps = asyncio.gather(copy(child.stdout, process.stdout), copy(child.stderr, process.stderr))
    closed = asyncio.ensure_future(process.channel.wait_closed())  # the client left
    done, _ = await asyncio.wait({pumps, closed}, return_when=asyncio.FIRST_COMPLETED)
    if closed in done and child.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            child.terminate()
    code = await child.wait()
    with contextlib.suppress(Exception):
        await pumps
    closed.cancel()
    with contextlib.suppress(Exception):
        process.exit(code)


async def end_with(parent: int) -> None:
    """Once ``parent`` is no longer this server's parent (it ended: this process was handed
    to another), end the server's process group, every command it runs included."""
    while os.getppid() == parent:
        await asyncio.sleep(0.5)
    os.killpg(0, signal.SIGKILL)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host-key", required=True)
    parser.add_argument("--authorized-keys", required=True)
    parser.add_argument("--env", required=True, help="a JSON file: the host's environment")
    parser.add_argument("--parent", type=int, required=True, help="the test's process id")
    args = parser.parse_args()
    orphaned = asyncio.ensure_future(end_with(args.parent))
    with open(args.env) as handle:
        env = json.load(handle)
    server = await asyncssh.create_server(
        asyncssh.SSHServer,
        "127.0.0.1",
        args.port,
        server_host_keys=[args.host_key],
        authorized_client_keys=args.authorized_keys,
        process_factory=lambda process: serve_command(process, env),
        encoding=None,
        line_editor=False,
    )
    port = server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    await stop.wait()
    orphaned.cancel()
    server.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
