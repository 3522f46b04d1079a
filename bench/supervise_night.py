"""One night under ``wftop supervise``, simulated: its audit log, as ``wftop supervise --log``
prints it.

Six copies of runs the real CLI left (`tests.supervise_kit.long_night`), a clock moved by
the script from 22:00 to 02:00 UTC, a fake launcher whose launches end as the night says
(the storm's 429 clears at its second resume, one run keeps failing, the others return), a
TCP probe that fails until 22:20, caps of $1.00 a run and $0.10 a day. Nothing runs
``claude`` and nothing is timed: the point is the decisions, every one written down.

    python bench/supervise_night.py [--json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["TZ"] = "UTC"  # the day's cap starts again at midnight UTC
time.tzset()

from tests.supervise_kit import long_night  # noqa: E402
from wftop.core.text.gate import shown  # noqa: E402
from wftop.core.text.jsonout import dumps  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="the audit log's JSON lines")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WFTOP_STATE_DIR"] = str(Path(tmp) / "state")
        night = long_night(Path(tmp))
        for line in night.store.audit.read():
            print(dumps(line.to_json()).decode() if args.json else shown(line.text()))
        if not args.json:
            print(f"\n{len(night.launcher.launches)} launches; told a person:")
            for note in night.notes.notes:
                print(shown(f"  {note.line()}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
