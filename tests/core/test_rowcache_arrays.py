"""The rows cache keeps each row twice: as ``ls`` prints it, and as the engine's stream sends
it (an array of its values, `wftop.core.row.array_line`), so that a warm engine sends its
kept rows without parsing one; a file an earlier wftop wrote without the arrays is a miss,
written again."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.core.test_rowcache import corpus_roots, listing
from wftop.core.index.rowcache import RowCache
from wftop.core.index.rowfile import Kept, load_root, root_file
from wftop.core.index.scriptlook import NamedScript
from wftop.core.row import RunRow, array_line


def written_without_arrays(cache: Path, root: str) -> None:
    """The root's rows file as the wftop before the arrays wrote it (its version 15): each
    entry's key, last activity, row length, script and naming, then the rows alone."""
    entries, listed, _former = load_root(cache, root)
    heads = {
        journal: [*entry[:2], len(entry[2]), *entry[3:8]] for journal, entry in entries.items()
    }
    head = orjson.dumps({"version": 15, "runs": heads, "listed": listed})
    rows = b"".join(entry[2] for entry in entries.values())
    root_file(cache, root).write_bytes(head + b"\n" + rows)


def test_each_kept_row_is_kept_with_its_array_as_the_stream_sends_it(tmp_path: Path) -> None:
    cache = tmp_path / "rows"
    roots = corpus_roots()
    listing(roots, cache)
    for root in map(str, roots):
        entries, _listed, _former = load_root(cache, root)
        assert entries
        for entry in entries.values():
            data = orjson.loads(entry[2])
            assert entry[8] == array_line(data)
            assert RunRow.from_array(orjson.loads(entry[8])) == RunRow.from_json(data)


def test_a_rows_file_without_the_arrays_is_a_miss_and_written_again(tmp_path: Path) -> None:
    cache = tmp_path / "rows"
    roots = corpus_roots()
    first, _, _ = listing(roots, cache)
    for root in map(str, roots):
        written_without_arrays(cache, root)
    again, hits, _ = listing(roots, cache)
    assert (again, hits) == (first, 0)
    third, hits, _ = listing(roots, cache)
    assert (third, hits) == (first, len(first))
    for root in map(str, roots):
        for entry in load_root(cache, root)[0].values():
            assert entry[8] == array_line(orjson.loads(entry[2]))


def test_a_row_kept_without_its_array_is_saved_with_it(tmp_path: Path) -> None:
    cache = tmp_path / "rows"
    roots = corpus_roots()
    listing(roots, cache)
    names = [str(root) for root in roots]
    again = RowCache.open(names, cache)
    again.keep_loaded()
    (journal, entry), *_ = again.entries()
    late = journal.replace("journal.jsonl", "late/journal.jsonl")
    again.put(late, [1, 2], Kept(entry[1], entry[2]), NamedScript.of(None))  # no array given
    again.save()
    saved = {j: e for root in names for j, e in load_root(cache, root)[0].items()}
    assert saved[late][8] == saved[journal][8] == array_line(orjson.loads(entry[2]))
