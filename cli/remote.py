"""What ``ls``, ``status`` and the TUI share about other hosts: the argv per host, the
links the TUI follows, and one-shot remote commands asked of every host at once.

Each host named with ``--host`` (repeatable) is checked (`wftop.core.remote.transport`) and
reached with ``$WFTOP_SSH`` (else ``ssh_command`` from the config file, else ``ssh``);
``--remote-command`` says how wftop starts over there (default ``wftop``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from wftop.cli.output import fail
from wftop.core.remote.transport import (
    HostError,
    Reply,
    check_host,
    remote_argv,
    run_remote,
    ssh_prefix,
)

if TYPE_CHECKING:
    from wftop.core.remote.link import RemoteHub

EXIT_UNREACHABLE = 1
"""``ls``: a host could not be read (the rows of every other host are printed)."""


def host_argvs(
    hosts: Sequence[str],
    args: Sequence[str],
    *,
    remote_command: str | None = None,
    ssh_command: str | None = None,
) -> dict[str, list[str]]:
    """The argv running ``wftop <args>`` on each host, in order, without repeats.

    Raises:
        HostError: a host name or the ssh command cannot be used.
    """
    prefix = ssh_prefix(ssh_command)
    argvs: dict[str, list[str]] = {}
    for host in hosts:
        argvs.setdefault(check_host(host), remote_argv(prefix, host, args, remote_command))
    return argvs


def argvs_or_exit(args: argparse.Namespace, remote: Sequence[str]) -> dict[str, list[str]] | None:
    """`host_argvs` for the command line's ``--host``s, or None after saying why not."""
    try:
        return host_argvs(args.host, remote, remote_command=args.remote_command)
    except HostError as error:
        fail(str(error))
        return None


def hub_for(
    hosts: Sequence[str], remote_command: str | None, ssh_command: str | None
) -> RemoteHub | None:
    """The links the TUI follows, one per host (None without hosts).

    Raises:
        HostError: a host name or the ssh command cannot be used.
    """
    if not hosts:
        return None
    from wftop.core.remote.link import WATCH_ARGS, RemoteHub

    argvs = host_argvs(hosts, WATCH_ARGS, remote_command=remote_command, ssh_command=ssh_command)
    prefix = ssh_prefix(ssh_command)

    def command(host: str, args: Sequence[str]) -> list[str]:
        return remote_argv(prefix, host, args, remote_command)

    return RemoteHub(argvs, command=command)


def ask_hosts(argvs: dict[str, list[str]], timeout: float = 60.0) -> dict[str, Reply]:
    """Every host's reply to its one-shot command, asked all at once."""
    if not argvs:
        return {}
    with ThreadPoolExecutor(max_workers=min(16, len(argvs))) as pool:
        futures = {host: pool.submit(run_remote, argv, timeout) for host, argv in argvs.items()}
        return {host: future.result() for host, future in futures.items()}
