"""A run's calls read from elsewhere, where its journal is missing or says too little.

The journal is the run's source of truth, but not every run has one, nor one that names its
calls:

* a run whose script threw before its first agent, under a CLI that wrote no ``launched``
  line (before 2.1.265), leaves its snapshot alone, no run folder;
* a run folder can hold agent transcripts and no ``journal.jsonl`` (the cleanup sweep
  deletes old files one by one; a person deletes one);
* journals written before 2.1.265 name no label and no phase.

Then the snapshot's ``workflowProgress`` rows stand in (agents, labels, phases, states), else
the agents' sidecars ``agent-<id>.meta.json`` (label and phase of each agent spawned). The
records made here are the journal's own kinds, so the one fold reads them
(`wftop.core.read.journal.JournalFold`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final

import orjson

from wftop.core.read.agent_transcript import AGENT_ID
from wftop.core.read.journal import JournalFold
from wftop.core.read.snapshot import Snapshot

META_BYTES: Final = 64 * 1024
"""A sidecar larger than this is not read (the CLI writes one short line)."""

ROW_STATES: Final = {"done": "result", "error": "failed"}
"""A snapshot row's state as the journal line it stands for (``start``, ``progress``: the
``started`` line alone)."""


def snapshot_fold(snapshot: Snapshot) -> JournalFold:
    """The calls a snapshot's rows tell of, one per row, with their label, phase and state
    (a done row's result reads as its ``resultPreview``: the snapshot keeps no more)."""
    records: list[tuple[int, dict[str, Any]]] = []
    for number, row in enumerate(snapshot.rows, 1):
        key = f"snapshot:{row.index or number}"
        started = {"type": "started", "key": key, "agentId": row.agent_id, "label": row.label}
        if row.phase:
            started["phase"] = row.phase
        records.append((0, started))
        ending = ROW_STATES.get(row.state)
        if ending == "result":
            records.append((0, {"type": "result", "key": key, "agentId": row.agent_id,
                                "result": row.result_preview}))  # fmt: skip
        elif ending == "failed":
            records.append((0, {"type": "failed", "key": key, "agentId": row.agent_id}))
    return JournalFold().feed_all(records)


def sidecar_fold(folder: str) -> JournalFold:
    """The calls a run folder's agent sidecars tell of: one open call per agent spawned, in
    the order they were spawned (their transcripts' first records), with the label and phase
    the sidecar names."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("agent-") and name.endswith(".meta.json"):
                    agent = name[len("agent-") : -len(".meta.json")]
                    if AGENT_ID.fullmatch(agent):
                        transcript = os.path.join(folder, f"agent-{agent}.jsonl")
                        found.append((first_moment(transcript), agent, entry.path))
    except OSError:
        return JournalFold()
    records: list[tuple[int, dict[str, Any]]] = []
    for _moment, agent, path in sorted(found):
        meta = read_meta(path)
        started: dict[str, Any] = {"type": "started", "key": f"agent:{agent}", "agentId": agent}
        label, phase = meta.get("description"), meta.get("workflowPhase")
        if isinstance(label, str) and label:
            started["label"] = label
        if isinstance(phase, str) and phase:
            started["phase"] = phase
        records.append((0, started))
    return JournalFold().feed_all(records)


def first_moment(transcript: str) -> str:
    """The time of an agent transcript's first record (ISO 8601, which sorts as time does);
    ``""`` when it has none: the agents in the order they were spawned."""
    try:
        with open(transcript, "rb") as handle:
            first = handle.readline(META_BYTES)
        record = orjson.loads(first)
    except (OSError, orjson.JSONDecodeError):
        return ""
    moment = record.get("timestamp") if isinstance(record, dict) else None
    return moment if isinstance(moment, str) else ""


def read_meta(path: str) -> Mapping[str, Any]:
    """An agent's sidecar as an object; empty when it cannot be read as one."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(META_BYTES + 1)
        data = orjson.loads(raw) if len(raw) <= META_BYTES else None
    except (OSError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def name_calls(fold: JournalFold, snapshot: Snapshot | None) -> bool:
    """Give the calls of ``fold`` no line labelled the label and phase of their agent's row in
    ``snapshot`` (a journal before 2.1.265); True when one was named. Every fold of a run's
    journal is named so, so that a call has one label wherever it is shown."""
    if not fold.unlabelled or snapshot is None or not snapshot.agent_rows:
        return False
    return fold.name(row_names(snapshot))


def row_names(snapshot: Snapshot) -> dict[str, tuple[str, str | None]]:
    """Agent id → (label, phase) of a snapshot's rows that name a label."""
    return {
        row.agent_id: (row.label, row.phase)
        for row in snapshot.rows
        if row.agent_id and row.label and row.label != row.agent_id
    }
