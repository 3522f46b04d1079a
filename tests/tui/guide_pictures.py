"""The pictures of ``docs/guide.md``: every screen at 100 and 60 columns, as SVG files under
``docs/screens/``, copied from the snapshot baselines of ``tests/tui/test_tui_every_screen.py``
(the app itself, drawn over copies of real trees with a fixed clock).

Make them again after the baselines change::

    .venv/bin/python -m pytest tests/tui/test_tui_every_screen.py --snapshot-update
    .venv/bin/python -m tests.tui.guide_pictures

``test_guide_pictures_are_the_baselines`` fails while a picture differs from its baseline.
"""

from __future__ import annotations

import shutil
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
BASELINES = TOP / "snapshots" / "test_tui_every_screen"
PICTURES = TOP / "docs" / "screens"
WIDTHS = {"100x30": "100", "60x20": "60"}


def pictures() -> dict[Path, Path]:
    """docs/screens/<screen>-<columns>.svg → the baseline it copies."""
    out: dict[Path, Path] = {}
    for baseline in sorted(BASELINES.glob("test_screen[[]*[]].svg")):
        screen, size = baseline.stem.removeprefix("test_screen[").removesuffix("]").rsplit("-", 1)
        if size in WIDTHS:
            out[PICTURES / f"{screen}-{WIDTHS[size]}.svg"] = baseline
    return out


def main() -> None:
    PICTURES.mkdir(exist_ok=True)
    wanted = pictures()
    for stale in set(PICTURES.glob("*.svg")) - set(wanted):
        stale.unlink()
    for picture, baseline in wanted.items():
        shutil.copyfile(baseline, picture)
    print(f"{len(wanted)} pictures in {PICTURES.relative_to(TOP)}")


if __name__ == "__main__":
    main()
