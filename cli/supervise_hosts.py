"""``wftop supervise --host NAME``: the supervisor runs where the runs live.

The same command line (less the roots, ``--claude`` and the hosts) runs on each host over
ssh, every host at once; each line it prints comes back as it is written, a text line led
by the host's name, a JSON line with ``host`` added. The exit code is the worst of the
hosts' (a host that cannot be reached: one line why, exit 1).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import IO

from wftop.cli.output import fail, print_json
from wftop.core.read.jsonline import UnreadableLine, parse_line
from wftop.core.remote.transport import classify_exit
from wftop.core.text.gate import shown

EXIT_UNREACHABLE = 1


def _relay(host: str, stream: IO[bytes], out: IO[str], as_json: bool, lock: threading.Lock) -> None:
    for raw in stream:
        text = raw.decode("utf-8", "replace").rstrip("\n")
        if as_json and out is sys.stdout:
            try:
                record = parse_line(text.encode())  # any depth, as journals are read
            except UnreadableLine:
                record = None
            if isinstance(record, dict):
                with lock:
                    print_json({"host": host, **record}, indent=False)
                    sys.stdout.flush()
                continue
        with lock:
            print(shown(f"{host}  {text}"), file=out, flush=True)


def on_hosts(argvs: dict[str, list[str]], *, as_json: bool) -> int:
    """Run each host's argv to its end, relaying what it prints; the worst exit code."""
    lock = threading.Lock()
    running = []
    for host, argv in argvs.items():
        try:
            process = subprocess.Popen(  # noqa: S603 - an argv list; the host name was checked
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as error:
            fail(f"{host}: {argv[0]}: {error.strerror}", prefix="wftop supervise")
            return EXIT_UNREACHABLE
        threads = [
            threading.Thread(target=_relay, args=(host, pipe, out, as_json, lock), daemon=True)
            for pipe, out in ((process.stdout, sys.stdout), (process.stderr, sys.stderr))
        ]
        for thread in threads:
            thread.start()
        running.append((host, process, threads))
    worst = 0
    for host, process, threads in running:
        code = process.wait()
        for thread in threads:
            thread.join()
        if code in (127, 255):
            why = classify_exit(code, "").describe(host)
            fail(why, prefix="wftop supervise")
            code = EXIT_UNREACHABLE
        worst = max(worst, code)
    return worst
