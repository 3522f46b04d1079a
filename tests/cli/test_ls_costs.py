"""``wftop ls --json`` says what every run spent, and it agrees with an independent sum.

The sum here is written apart from wftop's reader: every line of every agent transcript of
the run folder is parsed, each assistant message counted once by its id and request id, and
priced alone with genai-prices' public ``calc_price`` at the time it was answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price

from tests.corpus import CORPUS, DATA, VERSIONS

TREES = sorted(
    [p for p in CORPUS.iterdir() if (p / "projects").is_dir()]
    + [p for p in VERSIONS.iterdir() if (p / "projects").is_dir()]
    + [DATA / name for name in ("costs", "fanout-failure", "six-mid-failure")]
)


def independent_cost(folder: Path) -> tuple[Decimal | None, dict[str, int]]:
    messages: dict[tuple[str, str], dict] = {}
    for transcript in sorted(folder.glob("agent-*.jsonl")):
        for line in transcript.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message")
            if record.get("type") != "assistant" or not isinstance(message, dict):
                continue
            if "usage" not in message:
                continue
            messages[(message.get("id"), record.get("requestId"))] = record
    cost: Decimal | None = Decimal(0)
    tokens = {"input": 0, "output": 0, "cache_read": 0, "cache_write_5m": 0, "cache_write_1h": 0}
    for record in messages.values():
        usage = record["message"]["usage"]
        split = usage.get("cache_creation") or {}
        hour = split.get("ephemeral_1h_input_tokens", 0)
        five = usage.get("cache_creation_input_tokens", 0) - hour
        tokens["input"] += usage["input_tokens"]
        tokens["output"] += usage["output_tokens"]
        tokens["cache_read"] += usage.get("cache_read_input_tokens", 0)
        tokens["cache_write_5m"] += five
        tokens["cache_write_1h"] += hour
        model = record["message"]["model"]
        if model == "<synthetic>":
            continue
        when = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
        billed = Usage(
            input_tokens=usage["input_tokens"]
            + usage.get("cache_read_input_tokens", 0)
            + usage.get("cache_creation_input_tokens", 0),
            output_tokens=usage["output_tokens"],
            cache_read_tokens=usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=usage.get("cache_creation_input_tokens", 0),
            cache_write_5m_tokens=five,
            cache_write_1h_tokens=hour,
        )
        try:
            priced = calc_price(
                billed, model, provider_id="anthropic", genai_request_timestamp=when
            ).total_price
        except LookupError:
            cost = None
            continue
        if cost is not None:
            cost += priced
    return cost, tokens


@pytest.mark.parametrize("root", TREES, ids=lambda p: p.name)
def test_ls_json_cost_is_the_sum_over_the_transcripts(root: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "ls", "--json", "--no-default-root", "--root", root],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WFTOP_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows
    for row in rows:
        cost, tokens = independent_cost(Path(row["journal"]).parent)
        assert row["tokens"] == tokens
        if cost is None:
            assert row["cost_usd"] is None and row["unpriced_models"]
        else:
            assert row["unpriced_models"] == []
            assert cost > 0 and row["cost_usd"] == pytest.approx(float(cost), rel=0.005)


def test_the_cost_column_of_the_table(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wftop.cli", "ls", "--no-default-root", "--root", DATA / "costs"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WFTOP_CACHE_DIR": str(tmp_path / "cache")},
    )
    header, line = done.stdout.splitlines()
    assert "COST" in header
    assert " $? " in line  # a4 answered as a model without a price


def test_prices_come_without_the_network(tmp_path: Path) -> None:
    """Dollars with every socket refused: the price data is the one the package ships."""
    script = (
        "import sys\n"
        "def refuse(event, args):\n"
        "    if event in ('socket.connect', 'socket.getaddrinfo', 'socket.sendto'):\n"
        "        raise OSError(f'no network in this test: {event}')\n"
        "sys.addaudithook(refuse)\n"
        "from wftop.cli.main import main\n"
        f"sys.exit(main(['ls', '--json', '--no-default-root', '--root', {str(DATA / 'costs')!r},"
        f" '--root', {str(CORPUS / 'clean')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "WFTOP_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    costs = [row["cost_usd"] for row in json.loads(done.stdout)]
    assert None in costs and any(isinstance(cost, float) and cost > 0 for cost in costs)
