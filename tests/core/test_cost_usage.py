"""What transcripts the real CLI wrote say was spent: tokens folded once per message, priced
with the price data of genai-prices, per call and per run.

``tests/data/costs`` is a run of six.js by the real CLI against the mock, each agent
answering with a usage of its own (``facts.json``; ``python -m tests.make_costs``), killed
while a5 was in flight (its transcript holds no answer yet).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.corpus import tree
from wftop.core.cost.prices import SYNTHETIC, price
from wftop.core.cost.runs import run_spend
from wftop.core.cost.tokens import Tokens
from wftop.core.cost.usage import Spends, transcript_spend
from wftop.core.index.coldpass import scan_roots

FACTS = json.loads((tree("costs") / "facts.json").read_text())


def costs_run(tmp_path: Path):
    root = tmp_path / "costs"
    shutil.copytree(tree("costs"), root)
    (run,) = scan_roots([str(root)]).runs
    return run


def call(run, label):
    return next(c for c in run.fold.ordered_calls() if c.label == label)


def test_per_call_tokens_equal_a_hand_written_sum(tmp_path):
    run = costs_run(tmp_path)
    spent = run_spend(run)
    # a1 answered 1,200 input, 340 output and wrote 15,000 tokens to the 1-hour cache.
    assert spent.of(call(run, "a1")).tokens == Tokens(1200, 340, 0, 0, 15000)
    # a2: 800 input, 95 output, read 15,000 from the cache and wrote 2,000 for 5 minutes.
    assert spent.of(call(run, "a2")).tokens == Tokens(800, 95, 15000, 2000, 0)
    assert spent.of(call(run, "a3")).tokens == Tokens(50, 7, 9000, 0, 0)
    # The run: a1 + a2 + a3 + a4 (a5 was killed before its answer was written).
    assert spent.total.tokens == Tokens(
        1200 + 800 + 50 + 300, 340 + 95 + 7 + 60, 15000 + 9000, 2000, 15000
    )


def test_a_message_written_over_several_lines_is_counted_once(tmp_path):
    run = costs_run(tmp_path)
    agent = call(run, "a2").agent_ids[0]
    path = Path(run.folder.path) / f"agent-{agent}.jsonl"
    lines = [
        json.loads(line) for line in path.read_text().splitlines() if '"type":"assistant"' in line
    ]
    assert len(lines) == 2  # a text block and the StructuredOutput, one message
    assert len({line["message"]["id"] for line in lines}) == 1
    spent = transcript_spend(str(path))
    assert spent is not None and spent.messages == 1
    assert spent.tokens == Tokens(800, 95, 15000, 2000, 0)


def test_one_hour_and_five_minute_writes_are_priced_apart(tmp_path):
    million = 1_000_000
    hour = price("claude-opus-5-5", Tokens(cache_write_1h=million)).cost_usd
    five = price("claude-opus-5-5", Tokens(cache_write_5m=million)).cost_usd
    assert hour == pytest.approx(8.0) and five == pytest.approx(5.0)  # 2× and 1.25× of $4
    run = costs_run(tmp_path)
    # a1 on claude-opus-5-5 ($4 input, $20 output, $8 a 1-hour write, per million tokens).
    a1 = run_spend(run).of(call(run, "a1")).cost_usd
    assert a1 == pytest.approx((1200 * 4 + 340 * 20 + 15000 * 8) / million)


def test_an_unknown_model_leaves_dollars_unknown_and_names_it(tmp_path):
    run = costs_run(tmp_path)
    spent = run_spend(run)
    a4 = spent.of(call(run, "a4"))
    assert a4.cost_usd is None and a4.unpriced_models == ("claude-unreleased-0",)
    assert a4.tokens == Tokens(300, 60, 0, 0, 0)  # its tokens still count
    assert spent.total.cost_usd is None
    assert spent.total.unpriced_models == ("claude-unreleased-0",)
    assert spent.total.to_json()["cost_usd"] is None
    assert spent.of(call(run, "a3")).cost_usd == pytest.approx((50 * 4 + 7 * 20 + 9000 * 0.2) / 1e6)


def test_a_transcript_with_no_usage_spent_nothing(tmp_path):
    run = costs_run(tmp_path)
    a5 = call(run, "a5")
    path = Path(run.folder.path) / f"agent-{a5.agent_ids[0]}.jsonl"
    assert path.is_file() and '"assistant"' not in path.read_text()
    spent = transcript_spend(str(path))
    assert spent is not None
    assert (spent.messages, spent.tokens.total, spent.cost_usd) == (0, 0, 0.0)
    assert run_spend(run).of(a5).cost_usd == 0.0


def test_an_api_error_message_costs_nothing_and_is_priced(tmp_path):
    run = scan_roots([str(tree("mid-failure"))]).runs[0]
    failed = call(run, "a3")
    path = Path(run.folder.path) / f"agent-{failed.agent_ids[-1]}.jsonl"
    assert SYNTHETIC in path.read_text()
    spent = transcript_spend(str(path))
    assert spent is not None and spent.messages == 1
    assert (spent.tokens.total, spent.cost_usd, spent.unpriced_models) == (0, 0.0, ())
    assert run_spend(run).total.cost_usd is not None


def test_a_transcript_is_read_again_only_when_it_changed(tmp_path):
    run = costs_run(tmp_path)
    path = str(Path(run.folder.path) / f"agent-{call(run, 'a3').agent_ids[0]}.jsonl")
    spends = Spends()
    first = spends.of(path)
    assert first is not None and spends.of(path) is first
    with open(path, "a") as handle:
        handle.write("\n")
    assert spends.of(path) is not first


def test_a_missing_transcript_is_none():
    assert transcript_spend("/nonexistent/agent-a1.jsonl") is None
    assert Spends().of("/nonexistent/agent-a1.jsonl") is None


def test_prices_with_tiers_price_each_message_alone():
    """claude-sonnet-4-5 charges every token of a request past 200k input tokens at its long
    context rate ($6 input, $22.50 output a million): two messages of 150k input each are
    each below the threshold, although their sum is above it."""
    from wftop.core.cost.prices import Bill

    bill = Bill()
    bill.add("claude-sonnet-4-5", Tokens(input=150_000, output=1000), when=1.8e9)
    bill.add("claude-sonnet-4-5", Tokens(input=150_000, output=1000), when=1.8e9)
    assert bill.spend().cost_usd == pytest.approx(2 * (150_000 * 3 + 1000 * 15) / 1e6)
    alone = price("claude-sonnet-4-5", Tokens(input=300_000, output=2000), when=1.8e9)
    assert alone.cost_usd == pytest.approx((300_000 * 6 + 2000 * 22.5) / 1e6)
