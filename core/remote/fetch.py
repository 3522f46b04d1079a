"""A file of a remote run, fetched on demand: its journal or an agent's transcript.

On the host, ``wftop __fetch --session=S --root=R --file=NAME --max-bytes=N -- RUN`` prints
the file, masked (`read_masked`); NAME is ``journal.jsonl`` or ``agent-<id>.jsonl`` of that
run's own folder and nothing else (`file_problem`). Here, what came back is masked again
and written to a private temporary folder (`local_copy`), where the journal and transcript
screens read it as they read a local file. Nothing is written on the host.
"""

from __future__ import annotations

import atexit
import dataclasses
import errno
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from wftop.core.index.listkeep import LIST_KEEP_BYTES
from wftop.core.model import Run
from wftop.core.read.agent_transcript import agent_id_problem
from wftop.core.read.journal import JournalFold
from wftop.core.read.jsonl import read_all
from wftop.core.remote.transport import run_remote
from wftop.core.text.redact import Redactor

FETCH = "__fetch"
"""The hidden command that prints a file of a run (`wftop.cli.main`)."""

CUT_EXIT = 10
"""``__fetch``'s exit code when the file was longer than asked: what it printed is the start."""

MAX_BYTES = 8 * 1024 * 1024
"""How much of a remote file is fetched for browsing."""

MAX_FETCH_BYTES = 256 * 1024 * 1024
"""The most ``__fetch --max-bytes`` takes (its buffer is that large)."""

JOURNAL = "journal.jsonl"


def file_problem(name: str) -> str | None:
    """Why ``name`` is not a file ``__fetch`` prints; None when it is."""
    if name == JOURNAL:
        return None
    if name.startswith("agent-") and name.endswith(".jsonl"):
        problem = agent_id_problem(name[len("agent-") : -len(".jsonl")])
        return None if problem is None else f"{name!r}: {problem}"
    return f"{name!r} is not a file of a run ({JOURNAL} or agent-<id>.jsonl)"


def fetch_args(run: Run, name: str, max_bytes: int = MAX_BYTES) -> list[str]:
    """``wftop __fetch`` on the host for one file of this run (values as ``--name=value`` or
    after ``--``, so nothing the host sent reads as an option)."""
    folder = run.folder
    return [
        FETCH,
        f"--session={folder.session_id}",
        f"--root={folder.root}",
        f"--file={name}",
        f"--max-bytes={max_bytes}",
        "--",
        folder.run_id,
    ]


def mask_lines(data: bytes) -> bytes:
    """Every line masked (`wftop.core.text.redact`); the masks hold no quote, so JSON stays JSON."""
    mask = Redactor()
    return b"".join(
        mask(line.decode("utf-8", "replace")).encode() for line in data.splitlines(keepends=True)
    )


def read_masked(path: str, max_bytes: int) -> tuple[bytes, bool]:
    """The file's first ``max_bytes`` (to the last whole line), masked; and whether it was cut."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO would wait for a writer forever
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file, expected a JSONL file")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    cut = len(data) > max_bytes
    if cut:
        data = data[: data.rfind(b"\n", 0, max_bytes) + 1]
    return mask_lines(data), cut


def local_copy(run: Run, name: str, data: bytes, into: str | None = None) -> Run:
    """``run`` with its folder in a private temporary folder holding ``data`` as ``name``
    (masked again here); the run keeps its identity and host."""
    if file_problem(name) is not None:
        raise ValueError(file_problem(name))
    folder = into or tempfile.mkdtemp(prefix="wftop-remote-")
    if into is None:
        atexit.register(shutil.rmtree, folder, True)  # the copy lives as long as this wftop
    path = Path(folder) / name
    path.write_bytes(mask_lines(data))
    os.chmod(path, 0o600)
    moved = dataclasses.replace(run.folder, path=folder, real_path=folder)
    return dataclasses.replace(run, folder=moved)


@dataclass(frozen=True)
class Fetched:
    """A file of a remote run fetched: the run's local copy, or why there is none."""

    copy: Run | None
    cut: bool = False
    failure: str | None = None


def fetch_copy(argv: list[str], run: Run, name: str, into: str | None = None) -> Fetched:
    """Run ``argv`` (`fetch_args` over SSH) and keep what came as `local_copy`. When ``name``
    is the journal, the copy's fold is the fetched journal's: its calls, with their agents."""
    reply = run_remote(argv, timeout=120.0)
    failure = reply.failure
    cut = failure is not None and failure.reason == f"exit {CUT_EXIT}"
    if failure is not None and not cut:
        return Fetched(None, failure=failure.describe(run.host or ""))
    copy = local_copy(run, name, reply.stdout, into)
    if name == JOURNAL:
        records = read_all(copy.folder.journal, keep_bytes=LIST_KEEP_BYTES).records
        copy = dataclasses.replace(copy, fold=JournalFold().feed_all(records))
    return Fetched(copy, cut)
