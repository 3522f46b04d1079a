"""The TUI's resume plan: the estimate at once, then the exact forecast from a rehearsal run in
a worker (the command line's rehearsal is passed in; a fake one here)."""

from __future__ import annotations

from pathlib import Path

import pytest

import wftop.tui.app
from wftop.cli.main import main


@pytest.mark.parametrize(
    ("config", "flags", "rehearses"),
    [("", [], True), ("", ["--read-only"], False), ("exact_forecast = false\n", [], False)],
)
def test_wftop_hands_the_tui_a_rehearsal_unless_it_is_switched_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tui_root: Path, config, flags, rehearses
) -> None:
    (tmp_path / "config.toml").write_text(config)
    monkeypatch.setenv("WFTOP_CONFIG", str(tmp_path / "config.toml"))
    seen = {}

    def fake_run(self, **kwargs):  # type: ignore[no-untyped-def]
        seen["rehearse"] = self.rehearse

    monkeypatch.setattr(wftop.tui.app.WftopApp, "run", fake_run)
    assert main(["--no-default-root", "--root", str(tui_root), *flags]) == 0
    assert (seen["rehearse"] is not None) is rehearses
