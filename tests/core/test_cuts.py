"""A path cut from its start fits the cells it is given, wide characters included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from wftop.core.text.cuts import cell_width, cut_start

PARTS = st.text(alphabet=st.sampled_from("ab/-.作業プロジェクト😀é\u0301"), max_size=40)


def test_wide_characters_take_two_cells_and_a_combining_mark_none():
    assert cell_width("/home/me") == 8
    assert cell_width("作業") == 4
    assert cell_width("e\u0301") == 1


def test_a_path_of_wide_characters_is_cut_to_its_cells_and_keeps_its_end():
    assert cut_start("/home/me/作業/プロジェクト", 16) == "…/プロジェクト"
    assert cut_start("/家/作業/プロジェクト", 8) == "…ェクト"
    assert cut_start("/家/作業/プロジェクト", 10) == "…ジェクト"  # 9 cells: no half of one


@given(PARTS, st.integers(min_value=1, max_value=50))
def test_a_cut_path_never_takes_more_cells_than_it_is_given(path, limit):
    cut = cut_start(path, limit)
    if cut == path:
        assert cell_width(path) <= limit
    else:
        assert cut.startswith("…")
        assert path.endswith(cut[1:])
        assert cell_width(cut) <= limit
