"""The least work that can answer "which runs exist and what do their journals say".

Walk ``<root>/projects/<slug>/<session>/subagents/workflows/wf_*/`` and orjson-parse
every line of every ``journal.jsonl``; count started/result/failed lines per run and
print one JSON summary. No statuses, no snapshots, no owners, no agent transcripts:
whatever wftop does on top of this is its overhead.

    python bench/floor.py ROOT [ROOT...]
"""

from __future__ import annotations

import os
import sys

import orjson


def floor(roots: list[str]) -> dict[str, int]:
    runs = lines = started = returned = failed = 0
    for root in roots:
        projects = os.path.join(root, "projects")
        for project in os.scandir(projects):
            if not project.is_dir():
                continue
            for session in os.scandir(project.path):
                if not session.is_dir():
                    continue
                workflows = os.path.join(session.path, "subagents", "workflows")
                try:
                    folders = list(os.scandir(workflows))
                except FileNotFoundError:
                    continue
                for folder in folders:
                    if not folder.name.startswith("wf_") or not folder.is_dir():
                        continue
                    runs += 1
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
    }


def main() -> int:
    sys.stdout.buffer.write(orjson.dumps(floor(sys.argv[1:])) + b"\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
