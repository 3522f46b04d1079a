"""A table row's line of segments, made from its cells at once.

A row was drawn by copying each cell, cutting or padding the copy to its column, appending
it to one `Text` with a space after it, and rendering that `Text`: a third of a key's own
drawing at 20,000 runs went to those copies and to the render's sorting of every span. Here
the same segments are made from the cells as they are: each cell's spans split it where
`Text.render` splits the line, a cell's style and its spans' combine as they do there, and
the stretches no span covers (plain cells, the spaces between) make one segment together.
A cell that must be cut, or whose spans leave its text, is drawn the old way (`None`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text

PIECES_KEPT = 4096
"""Cells whose stretches a table keeps (`Pieces`): a list's statuses, ages, parities and
costs repeat from row to row."""

Resolve = Callable[[str | Style], Style]
"""A style by name or as it is (`rich.console.Console.get_style`)."""
Pieces = dict[tuple[object, ...], list[tuple[str, Style | None]]]
"""A styled cell's stretches (`_cell_pieces`) by its text, style and spans, as its table's
styles resolve them (let go when the theme changes)."""


def row_segments(
    cells: Sequence[Text], widths: Sequence[int], base: Style, resolve: Resolve, kept: Pieces
) -> list[Segment] | None:
    """The segments of ``cells``, each padded to its width with a space after it, drawn
    over ``base``: those `Text.render` gives the line `line_of` makes (each styled one over
    ``base``); None when a cell is wider than its column or holds a span off its text.
    ``kept``: the styled cells' stretches made before, with ``resolve``."""
    segments: list[Segment] = []
    plain: list[str] = []
    """Text no span covers, not yet made a segment (it joins what follows it)."""
    for cell, width in zip(cells, widths, strict=True):
        text = cell.plain
        length = cell_len(text)
        if length > width:
            return None
        if length < width:
            text += " " * (width - length)
        spans = cell.spans
        style = cell.style
        if not spans and not style:
            plain.append(text)
            plain.append(" ")
            continue
        key = (text, style, *spans)
        pieces = kept.get(key)
        if pieces is None:
            pieces = _cell_pieces(text, style, spans, resolve)
            if pieces is None:
                return None
            if len(kept) >= PIECES_KEPT:
                kept.clear()
            kept[key] = pieces
        for piece, combined in pieces:
            if combined is None:
                plain.append(piece)
                continue
            if plain:
                segments.append(Segment("".join(plain), base))
                plain.clear()
            segments.append(Segment(piece, base + combined if combined else base))
        plain.append(" ")
    if plain or not segments:  # a row of no cells is one empty segment, as rendered
        segments.append(Segment("".join(plain), base))
    return segments


def _cell_pieces(
    text: str, style: str | Style, spans: list[Span], resolve: Resolve
) -> list[tuple[str, Style | None]] | None:
    """A padded cell's stretches between the edges of its spans, each with the style
    its spans combine to over the cell's (None: no span covers it, nor a cell's style)."""
    size = len(text)
    cuts = {0, size}
    for start, end, _ in spans:
        if not 0 <= start < end <= size:
            return None
        cuts.add(start)
        cuts.add(end)
    edges = sorted(cuts)
    outer = resolve(style) if style else None
    inner = [(start, end, resolve(span_style)) for start, end, span_style in spans]
    pieces: list[tuple[str, Style | None]] = []
    for start, end in zip(edges, edges[1:], strict=False):
        over = [span[2] for span in inner if span[0] <= start and end <= span[1]]
        if outer is None and not over:
            pieces.append((text[start:end], None))
        else:
            pieces.append((text[start:end], Style.combine([outer, *over] if outer else over)))
    return pieces


def line_of(cells: Sequence[Text], widths: Sequence[int]) -> Text:
    """The row as one `Text`: each cell cut (with an ellipsis) or padded to its width, a
    space after each."""
    line = Text(no_wrap=True)
    for cell, width in zip(cells, widths, strict=True):
        cell = cell.copy()
        cell.truncate(width, overflow="ellipsis", pad=True)
        line.append_text(cell)
        line.append(" ")
    return line
