"""Faults around relocation: killed between copy and rename, a full disk, short writes.

The journal is relocated directly, and through ``wftop resume --strategy relocate`` (a
real process, with the fake ``claude`` of ``tests/faults_kit.py``), on a private copy
of the ``killed`` tree.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults_kit import RUN, TOP, WAIT, World, world_at
from wftop.core.index.coldpass import scan_roots
from wftop.core.resume import relocate as relocate_module
from wftop.core.resume.errors import RelocationError
from wftop.core.resume.relocate import relocate_journal


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with world_at(tmp_path) as made:
        yield made


def sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


TARGET_SESSION = "0b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b"


def target_dir(world: World) -> Path:
    return world.journal.parents[4] / TARGET_SESSION


def test_relocation_killed_between_copy_and_rename_leaves_no_target(world):
    source_sha = sha(world.journal)
    code = textwrap.dedent(
        f"""\
        import os, signal, sys
        from pathlib import Path
        from wftop.core.resume import relocate
        real_rename = os.rename
        def rename(src, dst):
            os.kill(os.getpid(), signal.SIGKILL)
        relocate.os.rename = rename
        relocate.relocate_journal(Path({str(world.journal)!r}), Path({str(target_dir(world))!r}),
                                  {RUN!r}, heal=False)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=TOP, timeout=WAIT, check=False)
    assert done.returncode == -signal.SIGKILL
    run_dir = target_dir(world) / "subagents" / "workflows" / RUN
    assert not (run_dir / "journal.jsonl").exists()
    assert sha(world.journal) == source_sha
    # A retry succeeds, and the leftover temp files do not turn into runs.
    result = relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    assert sha(result.target) == source_sha
    runs = scan_roots([str(world.root)]).runs
    assert sorted(run.session_id for run in runs) == sorted([world.session, TARGET_SESSION])


def test_relocation_on_a_full_disk_fails_cleanly(world, monkeypatch):
    source_sha = sha(world.journal)
    real_write = os.write
    budget = [world.journal.stat().st_size + 100]  # the snapshot fits, the copy does not

    def write(fd: int, data: bytes) -> int:
        if budget[0] < len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        budget[0] -= len(data)
        return real_write(fd, data)

    monkeypatch.setattr(relocate_module.os, "write", write)
    with pytest.raises(RelocationError, match="No space left"):
        relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    run_dir = target_dir(world) / "subagents" / "workflows" / RUN
    assert sorted(path.name for path in run_dir.iterdir()) == []
    assert sha(world.journal) == source_sha


def test_relocation_with_short_writes_copies_every_byte(world, monkeypatch):
    """A write may take fewer bytes than asked (a disk filling up): none may be lost."""
    real_write = os.write
    monkeypatch.setattr(
        relocate_module.os,
        "write",
        lambda fd, data: real_write(fd, bytes(data)[: max(1, len(data) // 3)]),
    )
    result = relocate_journal(world.journal, target_dir(world), RUN, heal=False)
    assert sha(result.target) == sha(world.journal) == result.sha256


def test_resume_with_relocation_on_a_full_disk_ends_launch_failed(world):
    """Through ``wftop resume --strategy relocate``: a clear reason, no traceback, no launch."""
    hook = world.base / "enospc.py"
    hook.write_text(
        textwrap.dedent(
            """\
            import errno, os, sys
            from wftop.core.resume import relocate
            def write(fd, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            relocate._write_all = write
            from wftop.cli.main import main
            sys.exit(main())
            """
        )
    )
    argv = world.argv("--strategy", "relocate")
    argv[1:3] = [str(hook)]
    done = subprocess.run(
        argv, cwd=TOP, env=world.env(), capture_output=True, text=True, timeout=WAIT, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert world.pids() == []
    reasons = [line["reason"] for line in world.log()]
    assert any("No space left" in reason for reason in reasons), reasons
    assert world.last_state() in ("launch_failed", "failed", "lost")
