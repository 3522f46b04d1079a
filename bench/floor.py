"""The least work that can answer "which runs exist and what do their journals say".

Walk ``<root>/projects/<slug>/<session>/subagents/workflows/wf_*/`` and orjson-parse
every line of every ``journal.jsonl``; count started/result/failed lines per run and
print one JSON summary. No statuses, no snapshots, no owners, no agent transcripts:
whatever wftop does on top of this is its overhead.

``--transcripts``: the second floor, the least work behind every field ``ls --json`` prints
(what each run spent among them): besides the journals, read every file its output depends
on, without parsing it: each run's snapshot and agent transcripts (``agent-*.jsonl`` in its
folder) whole, and the head of each session's transcript (`HEAD`: where its working
directory is written; wftop reads no more of it for a list).

    python bench/floor.py [--transcripts] ROOT [ROOT...]
"""

from __future__ import annotations

import os
import sys

import orjson

HEAD = 4096


def read_whole(path: str, most: int = -1) -> int:
    """The bytes of file ``path`` read (``most`` at most), 0 when it cannot be."""
    try:
        with open(path, "rb") as handle:
            return len(handle.read(most))
    except OSError:
        return 0


def floor(roots: list[str], transcripts: bool = False) -> dict[str, int]:
    runs = lines = started = returned = failed = files = size = 0
    for root in roots:
        projects = os.path.join(root, "projects")
        for project in os.scandir(projects):
            if not project.is_dir():
                continue
            for session in os.scandir(project.path):
                if not session.is_dir():
                    continue
                if transcripts:
                    size += read_whole(session.path + ".jsonl", HEAD)
                    files += 1
                workflows = os.path.join(session.path, "subagents", "workflows")
                try:
                    folders = list(os.scandir(workflows))
                except FileNotFoundError:
                    continue
                for folder in folders:
                    if not folder.name.startswith("wf_") or not folder.is_dir():
                        continue
                    runs += 1
                    if transcripts:
                        snapshot = os.path.join(session.path, "workflows", folder.name + ".json")
                        size += read_whole(snapshot)
                        files += 1
                        for item in os.scandir(folder.path):
                            if item.name.startswith("agent-") and item.name.endswith(".jsonl"):
                                size += read_whole(item.path)
                                files += 1
                    try:
                        with open(os.path.join(folder.path, "journal.jsonl"), "rb") as handle:
                            data = handle.read()
                    except OSError:
                        continue
                    for raw in data.split(b"\n"):
                        if not raw:
                            continue
                        record = orjson.loads(raw)
                        lines += 1
                        kind = record.get("type")
                        if kind == "started":
                            started += 1
                        elif kind == "result":
                            returned += 1
                        elif kind == "failed":
                            failed += 1
    return {
        "runs": runs,
        "lines": lines,
        "started": started,
        "returned": returned,
        "failed": failed,
        "other_files": files,
        "other_bytes": size,
    }


def main() -> int:
    args = sys.argv[1:]
    transcripts = "--transcripts" in args
    roots = [arg for arg in args if arg != "--transcripts"]
    sys.stdout.buffer.write(orjson.dumps(floor(roots, transcripts)) + b"\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
