"""A table row is drawn from its cells at once (`wftop.tui.widgets.row_line.row_segments`): the
same segments, cut at the same places and in the same styles, as the line of cells each cut
or padded to its column and rendered by Rich, for cells of any text, style and spans; a
cell wider than its column, or with a span off its text, is left to that line."""

from __future__ import annotations

from functools import partial

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

from wftop.tui.widgets.row_line import PIECES_KEPT, Pieces, line_of, row_segments

CONSOLE = Console()
RESOLVE = partial(CONSOLE.get_style, default=Style.null())
BASE = Style(color="white", bgcolor="black")
STYLES = st.sampled_from(
    ["", "dim", "bold red", Style(), Style(italic=True), Style(color="green"), Style(bold=True)]
)
# one cell wide, two cells wide (CJK), none (a combining mark), and a space
TEXT = st.text(st.sampled_from([*"ab ", "界", "\u0301"]), max_size=7)


@st.composite
def cells(draw: st.DrawFn) -> tuple[Text, int]:
    """A cell and its column's width: mostly spans on its text and a column it fits, now
    and then a span off it (or of no length) and a column too narrow."""
    text = Text(draw(TEXT), style=draw(STYLES))
    size = len(text)
    for _ in range(draw(st.integers(0, 3))):
        if size and draw(st.integers(0, 4)):
            start = draw(st.integers(0, size - 1))
            end = draw(st.integers(start + 1, size))
        else:
            start = draw(st.integers(-1, size + 1))
            end = draw(st.integers(start - 1, size + 2))
        text.spans.append(Span(start, end, draw(STYLES)))
    return text, max(1, text.cell_len + draw(st.integers(-1, 3)))


def rendered(row: list[Text], widths: list[int]) -> list[Segment]:
    """What the table drew before: the line of cells, rendered, each piece over the base."""
    return [
        Segment(piece.text, BASE + piece.style if piece.style else BASE)
        for piece in line_of(row, widths).render(CONSOLE)
    ]


@given(st.lists(cells(), max_size=6))
def test_a_row_is_the_segments_of_its_rendered_line(row: list[tuple[Text, int]]) -> None:
    texts, widths = [cell for cell, _ in row], [width for _, width in row]
    kept: Pieces = {}
    for _ in range(2):  # made, then from the cells' stretches kept
        made = row_segments(texts, widths, BASE, RESOLVE, kept)
        if made is not None:
            assert made == rendered(texts, widths)


def test_a_row_of_plain_fitting_cells_is_always_made_and_one_segment() -> None:
    row = [Text("abc"), Text("界"), Text("")]
    made = row_segments(row, [5, 3, 1], BASE, RESOLVE, {})
    assert made == [Segment("abc   界    ", BASE)] == rendered(row, [5, 3, 1])


def test_a_cell_wider_than_its_column_is_left_to_the_rendered_line() -> None:
    assert row_segments([Text("abcdef")], [4], BASE, RESOLVE, {}) is None
    assert rendered([Text("abcdef")], [4]) == [Segment("abc… ", BASE)]


def test_the_cells_kept_are_bounded() -> None:
    kept: Pieces = {}
    for number in range(PIECES_KEPT + 10):
        row_segments([Text(f"{number}", style="dim")], [8], BASE, RESOLVE, kept)
    assert 0 < len(kept) <= PIECES_KEPT
