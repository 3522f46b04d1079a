"""Scale the real trees of ``tests/data/corpus`` to a config dir holding N runs.

Every generated run is a copy of one real run folder (journal, agent transcripts and
their ``.meta.json``, end-of-run snapshot, persisted script, session transcript) with
fresh, consistent ids: a new session UUID, a new run id ``wf_<8hex>-<3hex>``, new
agent ids and a new project (slug and cwd), rewritten everywhere they occur (inside
journals, snapshots, transcripts and in paths). Runs are spread over projects and
sessions; a session holds one to four runs.

    python bench/make_corpus.py OUT --runs 5000 [--agent-files 20] [--thin-agents]
                                    [--usage-lines] [--big-results K] [--seed 1]

``--agent-files`` is the number of ``agent-*`` files per run (transcript plus meta):
real agents are duplicated under new ids to reach it. ``--thin-agents`` writes agent
transcripts as one small line instead of the real ~80 KB; with ``--usage-lines`` too, each
thin transcript also keeps the real one's lines that carry a response's ``usage`` (its model,
tokens and time: what a listing prices), as a user's transcripts do, where thin transcripts
alone never make a listing load the price data. ``--big-results K`` gives the
first K runs (in generation order) one ``result`` value of 1 MB.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import orjson

TOP = Path(__file__).resolve().parent.parent
SOURCE = TOP / "tests" / "data" / "corpus"
BIG_RESULT_BYTES = 1024 * 1024


@dataclass
class Template:
    """One real run folder and the files around it, as bytes."""

    name: str
    slug: str
    session_id: str
    run_id: str
    cwd: str
    config_prefix: str | None
    transcript: bytes
    journal: bytes
    snapshot: bytes | None
    scripts: list[tuple[str, bytes]]
    agents: list[tuple[str, bytes, bytes | None]] = field(default_factory=list)
    """(agent id, transcript, meta) of every agent."""


def load_templates(source: Path = SOURCE) -> list[Template]:
    templates = []
    for tree in sorted(source.iterdir()):
        for journal in sorted(tree.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")):
            templates.append(_load(tree.name, journal))
    if not templates:
        sys.exit(f"make_corpus: no run folders under {source}")
    return templates


def _load(name: str, journal: Path) -> Template:
    run_dir = journal.parent
    session_dir = run_dir.parent.parent.parent
    project_dir = session_dir.parent
    transcript = (project_dir / f"{session_dir.name}.jsonl").read_bytes()
    snapshot_path = session_dir / "workflows" / f"{run_dir.name}.json"
    snapshot = snapshot_path.read_bytes() if snapshot_path.exists() else None
    scripts_dir = session_dir / "workflows" / "scripts"
    scripts = (
        [(p.name, p.read_bytes()) for p in sorted(scripts_dir.iterdir()) if p.is_file()]
        if scripts_dir.is_dir()
        else []
    )
    agents = []
    for path in sorted(run_dir.glob("agent-*.jsonl")):
        agent_id = path.name[len("agent-") : -len(".jsonl")]
        meta = run_dir / f"agent-{agent_id}.meta.json"
        agents.append((agent_id, path.read_bytes(), meta.read_bytes() if meta.exists() else None))
    cwd_match = re.search(rb'"cwd":"([^"]+)"', transcript)
    cwd = cwd_match.group(1).decode() if cwd_match else "/home/dev/work/proj"
    slug = project_dir.name
    prefix_match = re.search(
        rb'(/[^"\s\\]*?)/projects/' + re.escape(slug.encode()), (snapshot or b"") + transcript
    )
    return Template(
        name=name,
        slug=slug,
        session_id=session_dir.name,
        run_id=run_dir.name,
        cwd=cwd,
        config_prefix=prefix_match.group(1).decode() if prefix_match else None,
        transcript=transcript,
        journal=journal.read_bytes(),
        snapshot=snapshot,
        scripts=scripts,
        agents=agents,
    )


def rewrite(data: bytes, mapping: dict[str, str]) -> bytes:
    """Replace every old id by its new one, longest first (ids may nest)."""
    for old in sorted(mapping, key=len, reverse=True):
        data = data.replace(old.encode(), mapping[old].encode())
    return data


def new_run_id(rng: random.Random) -> str:
    return f"wf_{rng.getrandbits(32):08x}-{rng.getrandbits(12):03x}"


def new_agent_id(rng: random.Random) -> str:
    return f"a{rng.getrandbits(64):016x}"


def new_session_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def big_result_journal(journal: bytes) -> bytes:
    """The journal with its first ``result`` value replaced by 1 MB of text."""
    lines = journal.split(b"\n")
    for index, raw in enumerate(lines):
        if b'"type":"result"' in raw:
            record = orjson.loads(raw)
            record["result"] = {"blob": "x" * BIG_RESULT_BYTES}
            lines[index] = orjson.dumps(record)
            break
    return b"\n".join(lines)


def write(path: Path, data: bytes, mtime: float) -> None:
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))


@dataclass
class Plan:
    runs: int
    agent_files: int = 20
    thin_agents: bool = False
    usage_lines: bool = False
    """Thin transcripts keep the real ones' usage lines (`usage_lines`)."""
    big_results: int = 0
    sessions_per_project: int = 50
    seed: int = 1


def plan_facts(plan: Plan) -> dict[str, object]:
    """The plan as a corpus records it (`common.ensure_corpus`): ``usage_lines`` left out
    when not asked, so the corpora made before it existed are still their plan's."""
    facts = dict(sorted(plan.__dict__.items()))
    if not plan.usage_lines:
        del facts["usage_lines"]
    return facts


def generate(out: Path, plan: Plan, templates: list[Template] | None = None) -> dict[str, int]:
    """Write the corpus; returns counts of what was written."""
    templates = templates or load_templates()
    rng = random.Random(plan.seed)
    now = time.time()
    projects_dir = out / "projects"
    projects_dir.mkdir(parents=True, exist_ok=True)
    counts = {"runs": 0, "sessions": 0, "projects": 0, "agent_files": 0, "bytes": 0}
    made = 0
    project_index = -1
    sessions_in_project = plan.sessions_per_project
    while made < plan.runs:
        if sessions_in_project >= plan.sessions_per_project:
            project_index += 1
            sessions_in_project = 0
            counts["projects"] += 1
        sessions_in_project += 1
        cwd = f"/home/dev/work/bench/p{project_index:04d}"
        slug = cwd.replace("/", "-")
        session_id = new_session_id(rng)
        session_time = now - rng.uniform(0, 30 * 86400)
        in_session = min(rng.randint(1, 4), plan.runs - made)
        first = templates[rng.randrange(len(templates))]
        session_dir = projects_dir / slug / session_id
        (session_dir / "workflows" / "scripts").mkdir(parents=True, exist_ok=True)
        config = str(out)
        for run_no in range(in_session):
            template = first if run_no == 0 else templates[rng.randrange(len(templates))]
            run_id = new_run_id(rng)
            mapping = {
                template.session_id: session_id,
                template.run_id: run_id,
                template.cwd: cwd,
                template.slug: slug,
            }
            if template.config_prefix:
                mapping[template.config_prefix] = config
            for agent_id, _, _ in template.agents:
                mapping[agent_id] = new_agent_id(rng)
            run_time = session_time + run_no * 600 + rng.uniform(0, 300)
            run_dir = session_dir / "subagents" / "workflows" / run_id
            run_dir.mkdir(parents=True)
            journal = rewrite(template.journal, mapping)
            if made < plan.big_results:
                journal = big_result_journal(journal)
            write(run_dir / "journal.jsonl", journal, run_time)
            counts["bytes"] += len(journal)
            counts["agent_files"] += _write_agents(run_dir, template, mapping, plan, rng, run_time)
            if template.snapshot is not None:
                snapshot = rewrite(template.snapshot, mapping)
                write(session_dir / "workflows" / f"{run_id}.json", snapshot, run_time + 1)
            for name, script in template.scripts:
                script_name = os.fsdecode(rewrite(name.encode(), mapping))
                target = session_dir / "workflows" / "scripts" / script_name
                write(target, rewrite(script, mapping), run_time - 5)
            if run_no == 0:
                transcript = rewrite(template.transcript, mapping)
                transcript_path = projects_dir / slug / f"{session_id}.jsonl"
                write(transcript_path, transcript, session_time + in_session * 600)
                counts["bytes"] += len(transcript)
            made += 1
            counts["runs"] += 1
        counts["sessions"] += 1
    return counts


def _write_agents(
    run_dir: Path,
    template: Template,
    mapping: dict[str, str],
    plan: Plan,
    rng: random.Random,
    run_time: float,
) -> int:
    written = 0
    wanted = max(plan.agent_files, 0)
    index = 0
    while written < wanted and template.agents:
        old_id, transcript, meta = template.agents[index % len(template.agents)]
        fresh = index >= len(template.agents)
        agent_id = new_agent_id(rng) if fresh else mapping[old_id]
        local = {**mapping, old_id: agent_id}
        if plan.thin_agents:
            body = orjson.dumps(
                {"type": "system", "thin": True, "agentId": agent_id, "sessionId": "-"}
            )
            body = body.replace(b'"-"', orjson.dumps(mapping[template.session_id])) + b"\n"
            if plan.usage_lines:
                body += usage_lines(rewrite(transcript, local))
        else:
            body = rewrite(transcript, local)
        mtime = run_time - rng.uniform(1, 120)
        write(run_dir / f"agent-{agent_id}.jsonl", body, mtime)
        written += 1
        if meta is not None and written < wanted:
            write(run_dir / f"agent-{agent_id}.meta.json", meta, mtime)
            written += 1
        index += 1
    return written


def usage_lines(transcript: bytes) -> bytes:
    """The lines of ``transcript`` that carry a response's usage (each with its newline)."""
    return b"".join(
        line + b"\n"
        for line in transcript.split(b"\n")
        if b'"usage":{' in line and b'"assistant"' in line
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the config dir to create (holds projects/)")
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--agent-files", type=int, default=20, help="agent-* files per run")
    parser.add_argument("--thin-agents", action="store_true", help="one small line per agent")
    parser.add_argument(
        "--usage-lines", action="store_true", help="thin agents keep their usage lines"
    )
    parser.add_argument("--big-results", type=int, default=0, metavar="K")
    parser.add_argument("--sessions-per-project", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        sys.exit(f"make_corpus: {args.out} is not empty")
    plan = Plan(
        runs=args.runs,
        agent_files=args.agent_files,
        thin_agents=args.thin_agents,
        usage_lines=args.usage_lines,
        big_results=args.big_results,
        sessions_per_project=args.sessions_per_project,
        seed=args.seed,
    )
    started = time.perf_counter()
    counts = generate(args.out, plan)
    took = time.perf_counter() - started
    print(orjson.dumps({**counts, "seconds": round(took, 2)}).decode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
