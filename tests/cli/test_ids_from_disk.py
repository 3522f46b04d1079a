"""An id read from disk never reaches a path call unchecked.

The ``killed`` run's in-flight call gets an ``agentId`` with a NUL in it (``\\u0000`` in
the journal), then one that climbs out of the run folder. Every command that turns agent
ids into transcript paths (``scan``, ``stats``, ``resume --dry-run``, ``export``) runs as
a real process: none raises, the run is still listed, and ``export`` says why that call's
transcript is not readable.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.corpus import copy_tree, only_journal
from tests.faults_kit import RUN, SESSION, wftop

A5_AGENT = "abb884cc08bd3d085"

COMMANDS = [
    ["scan", "--session", SESSION, "--json"],
    ["scan", "--session", SESSION],
    ["scan", "--list-sessions", "--json"],
    ["stats", "--json"],
    ["stats"],
    ["resume", RUN, "--dry-run", "--json"],
]


def with_agent_id(tmp_path: Path, agent_id: str) -> Path:
    root = copy_tree("killed", tmp_path)
    journal = only_journal(root)
    escaped = json.dumps(agent_id)[1:-1].encode()
    info = journal.stat()
    journal.write_bytes(journal.read_bytes().replace(A5_AGENT.encode(), escaped))
    os.utime(journal, ns=(info.st_atime_ns, info.st_mtime_ns))  # an old, dead run
    return root


@pytest.mark.parametrize("agent_id", [f"{A5_AGENT}\x00x", "../../../../../../etc/passwd\x00"])
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_commands_survive_a_bad_agent_id(tmp_path, agent_id, argv):
    done = wftop(with_agent_id(tmp_path, agent_id), *argv)
    assert "Traceback" not in done.stderr, done.stderr
    refused = 3  # a plan the guard refuses (the tree's script is not on this machine)
    assert done.returncode in (0, refused) if argv[0] == "resume" else done.returncode == 0
    assert RUN in done.stdout or SESSION[:8] in done.stdout, done.stderr


def test_stats_count_the_call_and_export_says_why_its_transcript_is_not_read(tmp_path):
    root = with_agent_id(tmp_path, f"{A5_AGENT}\x00x")
    stats = json.loads(wftop(root, "stats", "--json").stdout)
    assert (stats["started"], stats["returned"], stats["runs_with_gaps"]) == (5, 4, 1)
    done = wftop(root, "export", RUN, "--format", "json")
    calls = json.loads(done.stdout)["calls"]
    assert [(call["label"], call["transcript"]) for call in calls if call["state"] != "done"] == [
        ("a5", None)
    ]
    assert "the transcript of 'a5' is not readable: agent id" in done.stderr
