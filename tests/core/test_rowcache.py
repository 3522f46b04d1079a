"""The ``ls --json`` rows cache: a kept row is only ever one a fresh read would give."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.corpus import CORPUS, copy_tree, only_journal, tree
from wftop.cli.commands.ls import json_item
from wftop.core.index.cachefile import Stat
from wftop.core.index.coldpass import scan_rows
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept, former_root_file, load_root, root_file, row_naming
from wftop.core.index.scriptlook import NamedScript
from wftop.core.system.procs import FakeProcess, FakeProcessTable
from wftop.core.text.redact import Redactor

NOW = 1_800_000_000.0


def listing(
    roots: list[Path],
    cache: Path | None,
    processes: FakeProcessTable | None = None,
    stat: Stat = os.stat,
) -> tuple[list[dict[str, Any]], int, int]:
    """Rows, cache hits and problems of one ``ls --json`` pass (no owner alive by default;
    ``stat``: how the cache stats paths)."""
    redactor = Redactor()
    names = [str(root) for root in roots]
    rows = RowCache.open(names, cache, stat)
    scan = scan_rows(
        names,
        lambda run: json_item(run, redactor),
        processes=processes or FakeProcessTable(),
        now=lambda: NOW,
        workers=1,
        cache=rows,
    )
    return [orjson.loads(row) for row in scan.rows], rows.hits, len(scan.problems)


def corpus_roots() -> list[Path]:
    return sorted(path for path in CORPUS.iterdir() if (path / "projects").is_dir())


def test_a_row_read_now_comes_with_its_naming_read_where_it_was_printed() -> None:
    """The parent parsed every row read just now once more to name the listing's projects,
    and again to keep it (5,000 rows: about 0.05 s each, after its workers were done): the
    process that printed a row reads its naming."""
    redactor = Redactor()
    scan = scan_rows(
        [str(root) for root in corpus_roots()],
        lambda run: json_item(run, redactor),
        processes=FakeProcessTable(),
        now=lambda: NOW,
        workers=1,
    )
    assert len(scan.rows) == len(corpus_roots())  # a run each
    assert scan.namings == [row_naming(row) for row in scan.rows]
    assert None not in scan.namings


def test_a_second_listing_reads_no_run_and_says_the_same(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "rows"
    uncached, _, _ = listing(corpus_roots(), None)
    first, first_hits, _ = listing(corpus_roots(), cache)
    second, second_hits, _ = listing(corpus_roots(), cache)
    assert first == uncached == second
    assert first_hits == 0
    assert second_hits == len(second) > 5


def test_an_appended_line_is_read(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows"
    (before,), _, _ = listing([root], cache)
    with only_journal(root).open("a") as journal:
        line = {"type": "started", "key": "k-new", "agentId": "n1", "label": "a9"}
        journal.write(json.dumps(line) + "\n")
    (after,), hits, _ = listing([root], cache)
    assert hits == 0
    assert after["started"] == before["started"] + 1
    assert after["in_flight"] == [*before["in_flight"], "a9"]


def test_a_snapshot_written_later_makes_the_run_completed(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    kept = snapshot.read_bytes()
    snapshot.unlink()
    cache = tmp_path / "rows"
    (dead,), _, _ = listing([root], cache)
    snapshot.write_bytes(kept)
    (done,), hits, _ = listing([root], cache)
    assert (dead["status"], done["status"], hits) == ("dead", "completed", 0)


def test_a_run_whose_owner_comes_alive_is_read_not_kept(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows"
    (dead,), _, _ = listing([root], cache)
    (session,) = {path.parent.name for path in root.glob("projects/*/*/subagents")}
    (root / "sessions").mkdir(exist_ok=True)
    record = {"pid": 4242, "sessionId": session, "procStart": "777"}
    (root / "sessions" / "4242.json").write_text(json.dumps(record))
    alive = FakeProcessTable({4242: FakeProcess("777")})
    (live,), hits, _ = listing([root], cache, alive)
    (again,), hits_again, _ = listing([root], cache, alive)
    assert dead["status"] == "dead" and dead["owner"] == "absent"
    assert live["owner"] == "alive" and live["status"] in ("running", "stalled")
    assert live == again and hits == hits_again == 0


def test_runs_with_unreadable_lines_are_read_and_reported_every_time(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    with only_journal(root).open("a") as journal:
        journal.write("this is not json\n")
    cache = tmp_path / "rows"
    _, _, first_problems = listing([root], cache)
    _, hits, second_problems = listing([root], cache)
    assert first_problems == second_problems == 1 and hits == 0


def test_a_missing_session_transcript_is_never_kept(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    (transcript,) = root.glob("projects/*/*.jsonl")
    transcript.unlink()
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    second, hits, _ = listing([root], cache)
    assert first == second and hits == 0


def test_a_damaged_cache_is_ignored_and_replaced_privately(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "cache" / "rows"
    cache.mkdir(parents=True)
    kept = root_file(cache, str(root))
    kept.write_text('{"version": 1, "runs": {"x": [1, 2]}')
    truth, _, _ = listing([root], None)
    rows, hits, _ = listing([root], cache)
    assert rows == truth and hits == 0
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert listing([root], cache)[1] == 1
    kept.write_text(json.dumps({"version": 1, "runs": {str(only_journal(root)): ["wrong"]}}))
    assert listing([root], cache)[:2] == (truth, 0)


def test_a_cache_kept_for_another_root_survives_listing_this_one(tmp_path: Path) -> None:
    one, two = copy_tree("killed", tmp_path), copy_tree("clean", tmp_path)
    cache = tmp_path / "rows"
    listing([one], cache)
    listing([two], cache)
    assert listing([one], cache)[1] == 1
    assert listing([two], cache)[1] == 1


def test_a_listing_loads_the_rows_of_its_own_roots_and_no_others(tmp_path: Path) -> None:
    roots = corpus_roots()
    copies = [copy_tree(root.name, tmp_path) for root in roots[:3]]
    cache = tmp_path / "rows"
    rows, _, _ = listing(copies, cache)
    each = [len(listing([root], cache)[0]) for root in copies]
    assert sum(each) == len(rows)
    for root, count in zip(copies, each, strict=True):
        assert RowCache.open([str(root)], cache).held == count
    assert RowCache.open([str(copies[0]), str(copies[2])], cache).held == each[0] + each[2]
    assert RowCache.open([str(tmp_path / "elsewhere")], cache).held == 0


def test_a_script_the_snapshot_names_appearing_is_seen(tmp_path: Path) -> None:
    root = copy_tree("clean", tmp_path)
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    named = tmp_path / "elsewhere" / "flow.js"
    data = json.loads(snapshot.read_text())
    data["scriptPath"] = str(named)
    snapshot.write_text(json.dumps(data))
    cache = tmp_path / "rows"
    (before,), _, _ = listing([root], cache)
    named.parent.mkdir()
    named.write_text("export const meta = { name: 'x' }\n")
    (after,), hits, _ = listing([root], cache)
    assert before["script_path"] != str(named)
    assert (after["script_path"], hits) == (str(named), 0)


def test_ls_keeps_rows_in_the_cache_dir_and_no_cache_reads_everything(
    tmp_path: Path,
) -> None:
    roots = [arg for root in corpus_roots() for arg in ("--root", str(root))]
    # One fixed clock for every listing: the tables' ages are then equal, not merely close.
    env = {**os.environ, "WFTOP_CACHE_DIR": str(tmp_path / "cache"), "WFTOP_NOW": str(NOW)}

    def ls(*extra: str, top: tuple[str, ...] = ()) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "wftop.cli", *top, "ls", "--no-default-root", *roots, *extra],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    uncached = ls("--json", "--no-cache")
    assert ls("--json", top=("--read-only",)) == uncached
    assert not (tmp_path / "cache").exists()
    assert ls("--json") == uncached
    assert len(list((tmp_path / "cache" / "ls-rows").glob("*.json"))) == len(corpus_roots())
    assert ls("--json") == uncached
    table = ls("--no-cache")
    assert ls() == table and len(table.splitlines()) == len(json.loads(uncached)) + 1


def scandirs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every folder listed from now on."""
    listed: list[str] = []
    scandir = os.scandir

    def seen(path: str) -> Any:
        listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", seen)
    return listed


def three_runs_in_one_session(tmp_path: Path) -> Path:
    """The ``clean`` tree with its run copied twice more into its session (new run ids)."""
    root = copy_tree("clean", tmp_path)
    folder = only_journal(root).parent
    (snapshot,) = root.glob("projects/*/*/workflows/wf_*.json")
    for copy in ("wf_0000aaaa-001", "wf_0000aaaa-002"):
        shutil.copytree(folder, folder.parent / copy)
        shutil.copy(snapshot, snapshot.with_name(f"{copy}.json"))
    return root


class Counted:
    """``os.stat``, with every path it was asked for."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    def __call__(self, path: str) -> os.stat_result:
        self.paths.append(path)
        return os.stat(path)


def test_an_ended_run_is_checked_by_one_stat_of_its_folder_and_three_of_its_session(
    tmp_path: Path,
) -> None:
    """A cached listing checked each row with a stat of its journal and of its folder, and
    its session's transcript, snapshots folder and scripts folder once for all its runs
    (16,003 stats for 5,000 runs): an ended run's journal is no longer stamped (a resume
    writes the session transcript before it appends), so a row costs its folder's stat."""
    root = three_runs_in_one_session(tmp_path)
    (session,) = {path.parent for path in root.glob("projects/*/*/subagents")}
    for snapshot in session.glob("workflows/wf_*.json"):  # named where the CLI wrote it
        data = json.loads(snapshot.read_text())
        data["scriptPath"] = str(session / "workflows/scripts" / Path(data["scriptPath"]).name)
        snapshot.write_text(json.dumps(data))
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    assert [row["status"] for row in first] == ["completed"] * 3
    counted = Counted()
    again, hits, _ = listing([root], cache, stat=counted)
    assert again == first and hits == 3
    folders = {str(session / "subagents/workflows" / row["run_id"]) for row in first}
    shared = {f"{session}.jsonl", str(session / "workflows"), str(session / "workflows/scripts")}
    assert sorted(counted.paths) == sorted([*folders, *shared])
    written_over_in_place(tmp_path / "in-place")


def test_a_run_that_has_not_ended_is_checked_by_its_journal_too(tmp_path: Path) -> None:
    """A dead run (killed, no snapshot) may have a writer no registry shows: its journal is
    stamped besides its folder, and a line appended to it is read
    (`test_an_appended_line_is_read`)."""
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows"
    (dead,), _, _ = listing([root], cache)
    counted = Counted()
    (again,), hits, _ = listing([root], cache, stat=counted)
    journal = only_journal(root)
    assert (again, hits, dead["status"]) == (dead, 1, "dead")
    assert counted.paths.count(str(journal)) == 1
    assert counted.paths.count(str(journal.parent)) == 1


@pytest.mark.parametrize("change", ["deleted", "made"])
def test_a_transcript_made_or_deleted_in_an_ended_run_is_seen(tmp_path: Path, change: str) -> None:
    """The folder's stamp is what checks an ended run: an agent transcript deleted (what it
    spent is then missing) or made in it reads the run again."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "rows"
    (before,), _, _ = listing([root], cache)
    folder = only_journal(root).parent
    agents = sorted(folder.glob("agent-*.jsonl"))
    if change == "deleted":
        agents[0].unlink()
    else:
        (folder / "agent-a0000000000000000.jsonl").write_bytes(agents[0].read_bytes())
    (after,), hits, _ = listing([root], cache)
    fresh, _, _ = listing([root], None)
    assert before["status"] == "completed" and hits == 0 and [after] == fresh
    if change == "deleted":
        assert after["missing_transcripts"] == before["missing_transcripts"] + 1


def written_over_in_place(tmp_path: Path) -> None:
    """The snapshots folder's stamp does not move when a snapshot is written over in place (as
    the CLI writes it); a resume that does so wrote the session transcript first."""
    root = copy_tree("killed", tmp_path)
    cache = tmp_path / "rows"
    (dead,), _, _ = listing([root], cache)
    (source,) = tree("clean").glob("projects/*/*/workflows/wf_*.json")
    data = json.loads(source.read_text())
    folder = only_journal(root).parent
    data["runId"] = folder.name
    data["workflowProgress"] = [
        {"type": "workflow_agent", "agentId": name[6:-6], "state": "done"}
        for name in os.listdir(folder)
        if name.startswith("agent-") and name.endswith(".jsonl")
    ]
    (transcript,) = root.glob("projects/*/*.jsonl")
    with transcript.open("a") as handle:
        handle.write(json.dumps({"type": "user", "message": {"content": "resume it"}}) + "\n")
    snapshots = folder.parents[2] / "workflows"
    snapshots.mkdir(exist_ok=True)
    before = snapshots.stat().st_mtime_ns
    target = snapshots / f"{folder.name}.json"
    if not target.exists():
        target.write_text("{}")
        os.utime(snapshots, ns=(before, before))
    with target.open("r+") as handle:  # in place: the folder keeps its time
        handle.truncate(0)
        handle.write(json.dumps(data))
    assert snapshots.stat().st_mtime_ns == before
    (done,), hits, _ = listing([root], cache)
    assert (dead["status"], done["status"], hits) == ("dead", "completed", 0)


def test_a_session_s_snapshots_are_listed_again_only_when_their_folder_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk listed every session's snapshots folder (2,001 listings at 5,000 runs, a
    fifth of a cached listing's walk): its names are kept with the folder's stamp, which
    the session's key stamps anyway, and listed again when a snapshot is made or removed."""
    root = three_runs_in_one_session(tmp_path)
    (session,) = {path.parent for path in root.glob("projects/*/*/subagents")}
    snapshots = str(session / "workflows")
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    listed = scandirs(monkeypatch)
    again, hits, _ = listing([root], cache)
    assert (again, hits) == (first, 3) and snapshots not in listed
    (session / "workflows" / "wf_0000aaaa-001.json").unlink()
    changed, hits, _ = listing([root], cache)
    assert snapshots in listed and hits == 0  # the session's key moved: its runs read again
    assert sorted(row["status"] for row in changed) == ["completed", "completed", "dead"]


def test_scripts_named_under_a_missing_folder_cost_one_look_for_all(tmp_path: Path) -> None:
    """A tree copied from another machine names its scripts where that machine kept them
    (3,851 of 5,000 in the bench's corpus, one ``stat`` each on every listing): once a
    folder above one is found missing, the others under it are not looked for."""
    root = three_runs_in_one_session(tmp_path)
    (session,) = {path.parent for path in root.glob("projects/*/*/subagents")}
    elsewhere = tmp_path / "gone" / "home" / "scripts"
    for snapshot in session.glob("workflows/wf_*.json"):
        data = json.loads(snapshot.read_text())
        data["scriptPath"] = str(elsewhere / f"{snapshot.stem}.js")  # one script a run
        snapshot.write_text(json.dumps(data))
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    counted = Counted()
    again, hits, _ = listing([root], cache, stat=counted)
    assert (again, hits) == (first, 3)
    looked = [path for path in counted.paths if not path.startswith(str(root))]
    named = {
        json.loads(snapshot.read_text())["scriptPath"]
        for snapshot in session.glob("workflows/wf_*.json")
    }
    assert looked == [
        *sorted(named)[:1],
        str(elsewhere),
        str(elsewhere.parent),
        str(elsewhere.parent.parent),
        str(tmp_path),
    ]
    elsewhere.mkdir(parents=True)
    for path in named:
        Path(path).write_text("// here now\n")
    shown, hits, _ = listing([root], cache)
    assert hits == 0 and {row["script_path"] for row in shown} == named


def test_rows_kept_where_an_earlier_wftop_kept_them_are_used_and_moved(tmp_path: Path) -> None:
    """The rows file was named by SHA-256 of its root: a listing after the upgrade uses the
    rows kept there, saves them under the new name and removes the former file (44 MB at
    20,000 runs), where it read every run again and left the file behind."""
    root = copy_tree("clean", tmp_path)
    cache = tmp_path / "rows"
    first, _, _ = listing([root], cache)
    former = former_root_file(cache, str(root))
    root_file(cache, str(root)).rename(former)
    again, hits, _ = listing([root], cache)
    assert (again, hits) == (first, 1)
    assert [path.name for path in cache.iterdir()] == [root_file(cache, str(root)).name]
    assert listing([root], cache)[:2] == (first, 1)


def test_a_cache_opened_again_to_keep_a_row_keeps_every_row_and_listing_it_held(
    tmp_path: Path,
) -> None:
    """The engine lets go of its rows cache once saved, before its live index is built, and
    opens it again to keep a row the index read: what was saved, rows and listings, is
    saved again with that row."""
    cache = tmp_path / "cache" / "rows"
    roots = corpus_roots()
    first, _, _ = listing(roots, cache)
    names = [str(root) for root in roots]
    saved = {root: load_root(cache, root)[:2] for root in names}
    again = RowCache.open(names, cache)
    again.keep_loaded()
    (journal, entry), *_ = again.entries()
    late = journal.replace("journal.jsonl", "late/journal.jsonl")
    again.put(late, [1, 2], Kept(entry[1], entry[2]), NamedScript.of(None))
    again.save()
    for root, (entries, listed) in saved.items():
        now, listed_now, _ = load_root(cache, root)
        assert listed_now == listed and {j: now[j] for j in entries} == entries
    assert (names[0], late) in RowCache.open(names, cache).journals()
    second, hits, _ = listing(roots, cache)
    assert second == first and hits == len(second)
