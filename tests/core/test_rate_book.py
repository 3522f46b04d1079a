"""The rates genai-prices gave a model on a day are kept between processes (`RateBook`), so a
plan after a listing prices its one message without importing the package, and every price
made from them is the package's own: every transcript under ``tests/data`` priced from a
book another process wrote is priced as the package prices it, message for message, and so
is what resending each session's conversation adds when its cache is cold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import DATA, copy_tree
from wftop.core.cost import prices
from wftop.core.cost.prices import keep_rates
from wftop.core.cost.ratebook import RATES, RateBook
from wftop.core.cost.spendbook import SpendBook
from wftop.core.cost.usage import spend_of_bytes
from wftop.core.forecast.costs import cold_cache_cost

TRANSCRIPTS = sorted(path for path in DATA.rglob("*.jsonl") if b'"usage"' in path.read_bytes())


@pytest.fixture(autouse=True)
def no_rates_after() -> Any:
    yield
    keep_rates(None)


def spends_of(paths: list[Path]) -> list[Any]:
    return [spend_of_bytes(path.read_bytes()) for path in paths]


def test_every_price_from_kept_rates_is_the_packages_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(TRANSCRIPTS) >= 20
    keep_rates(None)
    asked = spends_of(TRANSCRIPTS)
    colds = [cold_cache_cost(str(path)) for path in TRANSCRIPTS]
    SpendBook(tmp_path).rates.save()  # nothing learned: nothing written
    assert not (tmp_path / RATES).exists()
    learner = SpendBook(tmp_path)
    assert spends_of(TRANSCRIPTS) == asked
    learner.save()
    assert json.loads((tmp_path / RATES).read_bytes())["rates"]

    package, asked_for = prices._model, []

    def counted(model: str) -> Any:
        asked_for.append(model)
        return package(model)

    SpendBook(tmp_path)  # another process: the rates read from the file
    monkeypatch.setattr(prices, "_model", counted)
    assert spends_of(TRANSCRIPTS) == asked
    assert [cold_cache_cost(str(path)) for path in TRANSCRIPTS] == colds
    assert any(spend.cost_usd for spend in asked) and any(colds)
    assert all(package(model) is None for model in asked_for)  # asked: models it does not know


def test_a_plan_after_a_listing_imports_no_price_package(tmp_path: Path) -> None:
    root = copy_tree("killed", tmp_path)
    (journal,) = root.glob("projects/*/*/subagents/workflows/wf_*/journal.jsonl")
    env = dict(os.environ, WFTOP_STATE_DIR=str(tmp_path / "state"))
    env["WFTOP_CACHE_DIR"] = str(tmp_path / "cache")
    where = ["--no-default-root", "--root", str(root)]
    listing = [sys.executable, "-m", "wftop.cli", "ls", "--json", *where]
    subprocess.run(listing, env=env, check=True, capture_output=True)
    code = (
        "import sys; from wftop.cli.main import main; main(sys.argv[1:]); "
        "print('genai_prices' in sys.modules, file=sys.stderr)"
    )
    plan = [sys.executable, "-c", code, "resume", journal.parent.name, "--dry-run", *where]
    done = subprocess.run(plan, env=env, capture_output=True, text=True)
    assert "owner's cache cold (writing it again adds" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "False"


def test_rates_of_a_model_whose_prices_change_within_a_day_are_not_kept() -> None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    by_hour = snapshot.find_provider_model("deepseek-chat", None, "deepseek", None)[1]
    by_day = snapshot.find_provider_model("claude-opus-4-1", None, "anthropic", None)[1]
    assert not prices._by_day(by_hour)
    assert prices._by_day(by_day)


def test_a_damaged_or_foreign_rates_file_is_read_as_none_and_written_again(tmp_path: Path) -> None:
    path = tmp_path / RATES
    good = '{"version": 1, "prices": "9.9.9", "rates": {"d m": ["1", "1", "1", "1", "1"]}}'
    path.write_text(good)
    assert RateBook(path, "9.9.9").get("m", "d") == (Decimal(1),) * 5
    for text in (
        "{",
        "[]",
        good.replace("9.9.9", "0.0.0"),  # of other price data
        good.replace('"1"]', '"NaN"]'),
        good.replace('"1"]', "1]"),
        good.replace(', "1"]', "]"),
    ):
        path.write_text(text)
        book = RateBook(path, "9.9.9")
        assert book.get("m", "d") is None
    rates = tuple(Decimal(n) for n in ("1", "2", "3", "4", "5.5"))
    book.put("m", "2026-01-01", rates)
    book.save()
    assert RateBook(path, "9.9.9").get("m", "2026-01-01") == rates
    assert RateBook(path, "1.0.0").get("m", "2026-01-01") is None
