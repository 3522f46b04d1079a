"""The tools users have today, on the same generated corpus: how long, and what they get wrong.

    python bench/peers.py [--runs 5000] [--timeout 900] [--venv DIR]

Installs ``workflow-studio`` and ``claude-code-log`` from PyPI into a throwaway venv
(``--venv``, default under the bench work dir), then runs each over the corpus with
HOME pointed at a scratch folder whose ``.claude`` is the corpus:

* workflow-studio: its own run discovery (``serve.discover()``, what its ``/runs`` page
  serves), timed in a fresh interpreter; its per-run ``status`` and ``done`` count are
  compared with ``wftop ls --json`` on the same tree (wftop's answers are checked
  against the real CLI's trees by the test suite).
* claude-code-log: ``--all-projects`` over ``projects/`` into a scratch output folder;
  it renders session transcripts, so the check is which runs it shows at all.

Anything a peer writes into the corpus is reported and removed. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import WFTOP, default_workdir, ensure_corpus, measure
from make_corpus import Plan

PEERS = ("workflow-studio", "claude-code-log")
ENDED = {"completed", "failed", "killed", "superseded"}

DISCOVER = """
import json, sys, time
started = time.perf_counter()
from workflow_studio import serve
runs, _index = serve.discover()
took = time.perf_counter() - started
json.dump({"seconds": took, "runs": runs}, sys.stdout)
"""


def ensure_venv(venv: Path) -> dict[str, Any]:
    """The peers installed in their own venv; versions, or why they could not be."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    found: dict[str, Any] = {}
    for name in PEERS:
        shown = subprocess.run(
            [str(python), "-m", "pip", "show", name], capture_output=True, text=True
        )
        if shown.returncode != 0:
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "-q", name], capture_output=True, text=True
            )
            if done.returncode != 0:
                found[name] = {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
                continue
            shown = subprocess.run(
                [str(python), "-m", "pip", "show", name], capture_output=True, text=True
            )
        version = re.search(r"^Version: (.+)$", shown.stdout, re.M)
        found[name] = {"version": version.group(1) if version else "?"}
    return found


def scratch_home(root: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="wftop-peer-home-"))
    (home / ".claude").symlink_to(root)
    return home


def top_level(root: Path) -> set[str]:
    found = set()
    for base in (root, root / "projects"):
        with os.scandir(base) as entries:
            found.update(entry.path for entry in entries)
    return found


def clean_up(root: Path, before: set[str]) -> list[str]:
    """Remove what a peer added next to the corpus's projects; the names of what it was."""
    added = sorted(top_level(root) - before)
    for path in added:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    return [os.path.relpath(path, root) for path in added]


def run_group(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int | None, bytes]:
    """Run a command in its own process group; on timeout the whole group is killed
    (claude-code-log forks workers that would outlive their parent)."""
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        out, _err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None, b""
    return process.returncode, out


def workflow_studio(venv: Path, root: Path, truth: dict[str, dict[str, Any]], timeout: float):
    home = scratch_home(root)
    env = {**os.environ, "HOME": str(home), "WORKFLOW_STUDIO_NO_OPEN": "1"}
    before = top_level(root)
    started = time.perf_counter()
    code, out = run_group([str(venv / "bin" / "python"), "-c", DISCOVER], env, timeout)
    wall = time.perf_counter() - started
    shutil.rmtree(home, ignore_errors=True)
    if code is None:
        return {"seconds": None, "timed_out_after_s": timeout, "wrote": clean_up(root, before)}
    result: dict[str, Any] = {"seconds": round(wall, 2), "wrote": clean_up(root, before)}
    if code != 0:
        result["error"] = f"exit {code}"
        return result
    runs = json.loads(out)["runs"]
    result["runs_listed"] = len(runs)
    result["statuses"] = dict(collections.Counter(run["status"] for run in runs))
    wrong_status: collections.Counter[str] = collections.Counter()
    wrong_done = 0
    for run in runs:
        ours = truth.get(f"{run['sessionId']}/{run['runId']}")
        if ours is None:
            continue
        said_ended = run["status"] == "done"
        if said_ended != (ours["status"] in ENDED):
            wrong_status[f"{ours['status']} shown as {run['status']}"] += 1
        if run["done"] != ours["returned"]:
            wrong_done += 1
    result["status_disagreements"] = dict(wrong_status)
    result["returned_count_disagreements"] = wrong_done
    return result


def claude_code_log(venv: Path, root: Path, truth: dict[str, dict[str, Any]], timeout: float):
    home = scratch_home(root)
    out = Path(tempfile.mkdtemp(prefix="wftop-peer-ccl-"))
    env = {**os.environ, "HOME": str(home)}
    before = top_level(root)
    argv = [
        str(venv / "bin" / "claude-code-log"),
        "--all-projects",
        "--projects-dir",
        str(root / "projects"),
        "-o",
        str(out),
    ]
    started = time.perf_counter()
    code, _out = run_group(argv, env, timeout)
    timed_out = code is None
    wall = time.perf_counter() - started
    shown: set[str] = set()
    pages = 0
    for page in out.rglob("*.html"):
        pages += 1
        shown.update(re.findall(r"wf_[0-9a-f]{8}-[0-9a-f]{3}", page.read_text(errors="replace")))
    result = {
        "seconds": None if timed_out else round(wall, 2),
        "timed_out_after_s": timeout if timed_out else None,
        "exit_code": code,
        "html_pages": pages,
        "run_ids_mentioned": len(shown & {ident.split("/")[1] for ident in truth}),
        "statuses": None,
        "wrote": clean_up(root, before),
    }
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(home, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--workdir", type=Path, default=default_workdir())
    parser.add_argument("--venv", type=Path, default=None)
    args = parser.parse_args(argv)
    venv = args.venv or args.workdir / "peers-venv"
    root = ensure_corpus(
        args.workdir / f"corpus-{args.runs}", Plan(runs=args.runs, thin_agents=True)
    )
    report: dict[str, Any] = {"installed": ensure_venv(venv)}
    ours = measure([*WFTOP, "ls", "--json", "--no-default-root", "--root", str(root)])
    rows = json.loads(ours.stdout)
    truth = {f"{row['session_id']}/{row['run_id']}": row for row in rows}
    report["wftop"] = {
        "seconds": round(ours.seconds, 2),
        "runs_listed": len(rows),
        "statuses": dict(collections.Counter(row["status"] for row in rows)),
    }
    if "version" in report["installed"]["workflow-studio"]:
        report["workflow-studio"] = workflow_studio(venv, root, truth, args.timeout)
    if "version" in report["installed"]["claude-code-log"]:
        report["claude-code-log"] = claude_code_log(venv, root, truth, args.timeout)
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
