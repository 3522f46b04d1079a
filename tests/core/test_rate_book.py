"""The rates genai-prices gave a model on a day are kept between processes (`RateBook`), so a
plan after a listing prices its one message without importing the package, and every price
made from them is the package's own: every transcript under ``tests/data`` priced from a
book another process wrote is priced as the package prices it, message for message, and so
is what resending each session's conversation adds when its cache is cold."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import DATA, copy_tree
from wftop.core.cost import prices
from wftop.core.cost.prices import keep_rates
from wftop.core.cost.ratebook import RATES, RateBook, on_day
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
    assert json.loads((tmp_path / RATES).read_bytes())["models"]

    package, asked_for = prices._model, []

    def counted(model: str) -> Any:
        asked_for.append(model)
        return package(model)

    SpendBook(tmp_path)  # another process: the rates read from the file
    monkeypatch.setattr(prices, "_model", counted)
    assert spends_of(TRANSCRIPTS) == asked
    assert [cold_cache_cost(str(path)) for path in TRANSCRIPTS] == colds
    assert any(spend.cost_usd for spend in asked) and any(colds)
    assert asked_for == []  # the models it does not know are kept as such too


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
    good = (
        '{"version": 2, "prices": "9.9.9", "models": {"m": [[null, ["1", "1", "1", "1", "1"]], '
        '["2026-03-01", null]], "gone": []}}'
    )
    path.write_text(good)
    assert RateBook(path, "9.9.9").get("m", "2026-02-28") == (Decimal(1),) * 5
    assert RateBook(path, "9.9.9").get("m", "2026-03-01") is None  # tiers: asked
    assert RateBook(path, "9.9.9").schedule("gone") == ()
    for text in (
        "{",
        "[]",
        good.replace("9.9.9", "0.0.0"),  # of other price data
        good.replace('"version": 2', '"version": 1'),
        good.replace('"1"]', '"NaN"]'),
        good.replace('"1"]', "1]"),
        good.replace(', "1"]', "]"),
        good.replace("2026-03-01", "March 1"),
        good.replace('[null, ["1"', '[7, ["1"'),
    ):
        path.write_text(text)
        book = RateBook(path, "9.9.9")
        assert book.get("m", "2026-02-28") is None
    rates = tuple(Decimal(n) for n in ("1", "2", "3", "4", "5.5"))
    book.put("m", (("2026-01-01", rates),))
    book.save()
    assert RateBook(path, "9.9.9").get("m", "2026-01-01") == rates
    assert RateBook(path, "1.0.0").get("m", "2026-01-01") is None


def models_of_the_trees() -> set[str]:
    found = set()
    for path in TRANSCRIPTS:
        found |= set(re.findall(rb'"model":"([^"]+)"', path.read_bytes()))
    return {model.decode() for model in found} - {prices.SYNTHETIC}


def test_a_kept_schedule_gives_each_day_the_packages_rates() -> None:
    """Every model of the test trees and every one the package prices by day for
    Anthropic: the schedule kept gives, on each day its prices start, the day before, and
    days long before and after, the rates of the prices the package gives that day."""
    from genai_prices import data_snapshot

    provider = next(p for p in data_snapshot.get_snapshot().providers if p.id == "anthropic")
    named = models_of_the_trees()
    assert {"claude-opus-5-5", "claude-opus-4-7", "claude-unreleased-0"} <= named
    infos = {model: prices._model(model) for model in named}
    infos |= {model.id: model for model in provider.models}
    assert len([info for info in infos.values() if info is not None]) >= 20
    dated = 0
    for model, info in infos.items():
        if info is None:
            continue
        assert prices._by_day(info), model
        schedule = prices.schedule_of(info)
        starts = {date.fromisoformat(start) for start, _ in schedule if start is not None}
        dated += bool(starts)
        days = {date(2001, 1, 1), date(2099, 12, 31)}
        days |= {day + timedelta(days=shift) for day in starts for shift in (-1, 0, 1)}
        for day in days:
            moment = datetime.combine(day, time(12), UTC)
            wanted = prices.rates(info.get_prices(moment))
            assert on_day(schedule, day.isoformat()) == wanted, (model, day)
    assert dated  # some model's prices change on a day


def test_a_model_kept_on_one_day_is_priced_on_any_other_without_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (transcript,) = [path for path in TRANSCRIPTS if b'"claude-opus-5-5"' in path.read_bytes()][:1]
    data = transcript.read_bytes()
    days = set(re.findall(rb'"timestamp":"(\d{4}-\d{2}-\d{2})T', data))
    assert len(days) == 1
    (day,) = days
    later = data.replace(b'"timestamp":"' + day, b'"timestamp":"2031-07-09')
    keep_rates(None)
    asked = spends_of_bytes([later, data])
    assert asked[0].cost_usd
    learner = SpendBook(tmp_path)
    assert spend_of_bytes(data) == asked[1]  # its model kept, learned on its own day
    learner.save()
    SpendBook(tmp_path)  # another process
    package, asked_for = prices._model, []
    monkeypatch.setattr(prices, "_model", lambda model: asked_for.append(model) or package(model))
    assert spends_of_bytes([later, data]) == asked
    assert asked_for == []


def spends_of_bytes(datas: list[bytes]) -> list[Any]:
    return [spend_of_bytes(data) for data in datas]


def test_a_listing_with_no_cache_prices_from_the_rate_book_of_a_listing_before(
    tmp_path: Path,
) -> None:
    root = copy_tree("clean", tmp_path)
    env = dict(os.environ, WFTOP_STATE_DIR=str(tmp_path / "state"))
    env["WFTOP_CACHE_DIR"] = str(tmp_path / "cache")
    code = (
        "import sys; from wftop.cli.main import main; main(sys.argv[1:]); "
        "print('genai_prices' in sys.modules, file=sys.stderr)"
    )
    where = ["--no-default-root", "--root", str(root)]
    listing = [sys.executable, "-c", code, "ls", "--json", "--no-cache", *where]
    first = subprocess.run(listing, env=env, capture_output=True, text=True, check=True)
    assert first.stderr.strip().splitlines()[-1] == "True"  # no rate book yet
    assert '"cost_usd": null' not in first.stdout and '"cost_usd"' in first.stdout
    again = subprocess.run(listing, env=env, capture_output=True, text=True, check=True)
    assert again.stdout == first.stdout
    assert again.stderr.strip().splitlines()[-1] == "False"
    kept = sorted(path.name for path in (tmp_path / "state" / "spends").iterdir())
    assert kept == [RATES]  # what its runs spent is not kept
