"""Run one command and report its own cost: ``python bench/launch.py FD -- ARGV...``.

Linux counts in a child's peak RSS whatever its parent had resident when it forked
(the pages are shared until ``exec``), so a benchmark process that has grown would
inflate every command it measures. This launcher is a small process that forks and
execs the command at once, waits for it with ``wait4`` and writes
``{"seconds", "cpu_seconds", "max_rss_kb", "returncode"}`` as JSON to file descriptor FD.
The command inherits stdin, stdout and stderr. Only the standard library's ``os`` and
``time`` are imported, so the launcher itself stays at a few MB.
"""

import os
import sys
import time


def main() -> None:
    report_fd = int(sys.argv[1])
    argv = sys.argv[sys.argv.index("--") + 1 :]
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(report_fd)
        try:
            os.execvp(argv[0], argv)  # noqa: S606 - argv as given, no shell
        finally:
            os._exit(127)
    _pid, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    report = (
        f'{{"seconds": {seconds!r}, "cpu_seconds": {usage.ru_utime + usage.ru_stime!r}, '
        f'"max_rss_kb": {usage.ru_maxrss}, "returncode": {os.waitstatus_to_exitcode(status)}}}'
    )
    os.write(report_fd, report.encode())
    os.close(report_fd)


if __name__ == "__main__":
    main()
