"""A throwaway SSH server for the remote tests: ``python -m tests.ssh_server``.

The machine has the OpenSSH client but no sshd, so the tests run this one (asyncssh) on a
loopback port: it accepts one user key, and runs each command the way sshd does, through
``/bin/sh -c``, in the environment of its "host" (its own HOME and CLAUDE_CONFIG_DIR).
It prints ``ready <port>`` once it listens. Killing its process group drops every
connection and every command it started, as a host going away does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
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


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host-key", required=True)
    parser.add_argument("--authorized-keys", required=True)
    parser.add_argument("--env", required=True, help="a JSON file: the host's environment")
    args = parser.parse_args()
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
    server.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
