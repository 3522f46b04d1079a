"""A run's script and its one name, as every surface names it.

The snapshot's ``workflowName``; else the ``meta.name`` its script declares; else the name in
the script's file name; else its session's launch receipt's (`RunNames.name`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from wftop.core.index.scriptlook import NamedScript
from wftop.core.read.receipt import launched_name
from wftop.core.read.runfolder import RunFolder
from wftop.core.read.snapshot import Snapshot

_META_NAME = re.compile(r"""\bname\s*:\s*(['"`])((?:(?!\1).){1,200})\1""")


def sorted_listing(folder: str) -> list[str]:
    """The names in a folder, sorted; none when it cannot be listed."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


class RunNames:
    """Where one run's script is, and what names the run (kept by its reader)."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self.script_path: str | None = None
        self.script_name: str | None = None
        self._slug: str | None = None
        self._listed = True
        """False where `find` did not list the session's scripts folder (the snapshot names
        the run and its script, which exists): `script_slug` lists it if it is ever asked."""
        self.launched_name: str | None = None
        """The ``workflowName`` of the run's launch receipt in its session transcript, read
        when nothing else names the run (`wftop.core.read.receipt`)."""
        self._receipt_looked: int | None = None
        """The session transcript's size when it was last read for that name."""
        self.named = NamedScript(None, False)
        """The script the snapshot names, and whether it was a file when last looked at
        (what a rows cache keeps with a row: the look `find` took, not one more)."""

    def find(
        self, snapshot: Snapshot | None, listing: Callable[[str], list[str]] = sorted_listing
    ) -> None:
        """The persisted script of the run, and its name.

        The snapshot's ``scriptPath`` wins while that file exists (a tree copied from
        another machine names paths that do not), else ``scripts/*-<runId>.js``.
        ``listing`` lists the session's scripts folder (a cold pass lists each once). The
        name is the one the CLI gave that file (`name`).
        """
        named = snapshot.script_path if snapshot is not None else None
        self.named = NamedScript(named, bool(named and os.path.isfile(named)))
        if self.named.exists and snapshot is not None and snapshot.name:
            # Its script and its name are the snapshot's: the session's scripts folder need
            # not be listed (most ended runs; a first listing of 5,000 runs lists a folder
            # for each of 2,000 sessions).
            self.script_path, self._listed = named, False
            return
        matches = self._matches(listing)
        if self.named.exists:
            self.script_path = named
        elif self.script_path is None or not os.path.isfile(self.script_path):
            self.script_path = self.script_path or named
            if matches:
                self.script_path = os.path.join(self.folder.scripts_dir, matches[0])
        has_name = snapshot is not None and snapshot.name
        if self.script_name is None and self.script_path and not has_name:
            try:
                fd = os.open(self.script_path, os.O_RDONLY | os.O_NONBLOCK)
                try:
                    head = os.read(fd, 4096).decode("utf-8", errors="replace")
                finally:
                    os.close(fd)
                match = _META_NAME.search(head)
                self.script_name = match.group(2) if match else None
            except (OSError, ValueError):  # ValueError: a NUL in a path read from a snapshot
                pass
        if self.name(snapshot) is None:
            self.look_for_launch()

    def _matches(self, listing: Callable[[str], list[str]]) -> list[str]:
        """The session's scripts of this run (``<name>-<runId>.js``), `script_slug` kept."""
        suffix = f"-{self.folder.run_id}.js"
        matches = [name for name in listing(self.folder.scripts_dir) if name.endswith(suffix)]
        self._slug = matches[0][: -len(suffix)] if matches else None
        self._listed = True
        return matches

    @property
    def script_slug(self) -> str | None:
        """The name in the file name the CLI gave the run's script, as `find` last listed
        it (listed now where it did not)."""
        if not self._listed:
            self._matches(sorted_listing)
        return self._slug

    def look_for_launch(self) -> None:
        """The name the session's launch receipt gives the run, when nothing in its folder
        does (a run launched with ``scriptPath``, as ``R`` launches one): read once, and again
        when the session transcript grew."""
        transcript = self.folder.transcript
        try:
            size = os.stat(transcript).st_size
        except (OSError, ValueError):
            return
        if size == self._receipt_looked:
            return
        self._receipt_looked = size
        self.launched_name = launched_name(transcript, self.folder.run_id)

    def name(self, snapshot: Snapshot | None) -> str | None:
        """The run's one name, every surface's: the snapshot's ``workflowName``; else the
        ``meta.name`` its script declares; else the one in the file name the CLI gave its
        script (``workflows/scripts/<name>-<runId>.js``: ``meta.name`` lowercased, each run of
        other characters a ``-``), for a script that cannot be read; else the name its
        session's launch receipt gives it (`look_for_launch`)."""
        return (
            (snapshot.name if snapshot else None)
            or self.script_name
            or self.script_slug
            or self.launched_name
        )
