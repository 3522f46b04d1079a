"""How a plan names the calls of one fate: every label of a short list; a long one counted,
named by its ranges of numbered labels that follow each other, the middle ones elided."""

from __future__ import annotations

from wftop.core.resume.table import LISTED, RANGES, labels_text


def test_a_short_list_names_every_label() -> None:
    labels = [f"a{n}" for n in range(1, LISTED + 1)]
    assert labels_text(labels) == ", ".join(labels)
    assert labels_text(["a1", "a2", "a5"]) == "a1, a2, a5"


def test_a_long_list_is_counted_with_its_ranges() -> None:
    labels = [*(f"w-{n}" for n in range(100_000)), "a1", "a2", "a3", "a4"]
    assert labels_text(labels) == "100,004 calls (w-0–w-99999, a1–a4)"
    assert labels_text(["x", "a1", "a2", *(f"b{n}" for n in range(10))]) == (
        "13 calls (x, a1, a2, b0–b9)"
    )


def test_numbers_follow_each_other_only_under_the_same_prefix() -> None:
    labels = [*(f"a{n}" for n in range(5)), *(f"b{n}" for n in range(5, 10)), "a10", "a11", "x"]
    assert labels_text(labels) == "13 calls (a0–a4, b5–b9, a10, a11, x)"
    padded = [f"a{n:02d}" for n in range(1, 14)]  # a09 is a0 and 9, a10 is a and 10
    assert labels_text(padded) == "13 calls (a01–a09, a10–a13)"


def test_past_so_many_ranges_the_middle_ones_are_counted() -> None:
    labels = [f"c{n}" for n in range(0, 40, 2)]  # no two follow each other
    assert RANGES == 4
    assert labels_text(labels) == "20 calls (c0, c2, c4, … 16 more, c38)"
