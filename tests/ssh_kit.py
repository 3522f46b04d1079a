"""Remote "hosts" for the tests: an asyncssh server per host on loopback, reached by the
system ``ssh`` through a throwaway config (``WFTOP_SSH="ssh -F <config>"``).

Each host has its own HOME whose ``.claude`` is a copy of a corpus tree, so two servers on
two ports are two machines to wftop. `SshHosts.kill` drops a host as a crash would (the
server's process group, commands included, gets SIGKILL); `SshHosts.start` brings it back
on the same port.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

from tests.corpus import tree
from tests.leftovers_kit import MARK

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Host:
    name: str
    home: Path
    port: int = 0
    process: subprocess.Popen[str] | None = None
    extra: dict[str, str] = field(default_factory=dict)
    """More of the host's environment (a real CLI there: its binary and the mock's URL)."""

    @property
    def root(self) -> Path:
        return self.home / ".claude"

    @property
    def state(self) -> Path:
        """wftop's state dir there (its resumes' launches, the engine's socket)."""
        return self.home / "state"


@dataclass
class SshHosts:
    base: Path
    hosts: dict[str, Host] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        host_key = asyncssh.generate_private_key("ssh-ed25519")
        host_key.write_private_key(str(self.base / "host_key"))
        user_key = asyncssh.generate_private_key("ssh-ed25519")
        user_key.write_private_key(str(self.base / "id_test"))
        os.chmod(self.base / "id_test", 0o600)
        user_key.write_public_key(str(self.base / "authorized_keys"))
        other = asyncssh.generate_private_key("ssh-ed25519")
        other.write_private_key(str(self.base / "id_stranger"))
        os.chmod(self.base / "id_stranger", 0o600)
        self.bin = self.base / "bin"
        self.bin.mkdir()
        (self.bin / "wftop").symlink_to(Path(sys.executable).parent / "wftop")

    @property
    def config(self) -> Path:
        return self.base / "ssh_config"

    @property
    def env(self) -> dict[str, str]:
        """What a test's wftop needs to reach the hosts."""
        return {"WFTOP_SSH": f"ssh -F {self.config}"}

    def add(
        self,
        name: str,
        corpus: str | None = "killed",
        *,
        home: Path | None = None,
        extra: dict[str, str] | None = None,
    ) -> Host:
        """A host serving a copy of ``corpus``, or the HOME ``home`` as it is (its config dir
        ``home/.claude``), with ``extra`` added to its environment."""
        if home is None:
            home = self.base / "hosts" / name
            home.mkdir(parents=True)
            if corpus is not None:
                shutil.copytree(tree(corpus), home / ".claude", symlinks=True)
            else:
                (home / ".claude" / "projects").mkdir(parents=True)
        host = Host(name, home, extra=dict(extra or {}))
        self.hosts[name] = host
        self.start(name)
        return host

    def host_env(self, host: Host) -> dict[str, str]:
        return {
            "HOME": str(host.home),
            "CLAUDE_CONFIG_DIR": str(host.root),
            "PATH": f"{self.bin}:/usr/local/bin:/usr/bin:/bin",
            "WFTOP_CONFIG": str(host.home / "no-config.toml"),
            "WFTOP_CACHE_DIR": str(host.home / "cache"),
            "WFTOP_STATE_DIR": str(host.state),
            "XDG_CACHE_HOME": str(host.home / ".cache"),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            # The host's shared engine goes a second after its last view, not a minute.
            "WFTOP_ENGINE_LINGER": "1",
            **({MARK: os.environ[MARK]} if MARK in os.environ else {}),
            **host.extra,
        }

    def start(self, name: str) -> None:
        host = self.hosts[name]
        env_file = self.base / f"env-{name}.json"
        env_file.write_text(json.dumps(self.host_env(host)))
        process = subprocess.Popen(
            [
                sys.executable, "-m", "tests.ssh_server",
                "--port", str(host.port),
                "--host-key", str(self.base / "host_key"),
                "--authorized-keys", str(self.base / "authorized_keys"),
                "--env", str(env_file),
                "--parent", str(os.getpid()),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )  # fmt: skip
        assert process.stdout is not None
        ready = process.stdout.readline().split()
        assert ready and ready[0] == "ready", f"the test ssh server did not start: {ready}"
        host.port = int(ready[1])
        host.process = process
        self.write_config()

    def kill(self, name: str) -> None:
        process = self.hosts[name].process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process is not None and process.stdout is not None:
            process.stdout.close()

    def write_config(self) -> None:
        lines = []
        for host in self.hosts.values():
            lines += self.entry(host.name, host.port, "id_test")
        port = next(iter(self.hosts.values())).port if self.hosts else 1
        lines += self.entry("stranger", port, "id_stranger")
        self.config.write_text("\n".join(lines) + "\n")

    def entry(self, alias: str, port: int, key: str) -> list[str]:
        return [
            f"Host {alias}",
            "  HostName 127.0.0.1",
            f"  Port {port}",
            "  User tester",
            f"  IdentityFile {self.base / key}",
            "  IdentitiesOnly yes",
            "  IdentityAgent none",
            "  StrictHostKeyChecking no",
            "  UserKnownHostsFile /dev/null",
            "  LogLevel ERROR",
        ]

    def close(self) -> None:
        for name in self.hosts:
            self.kill(name)
