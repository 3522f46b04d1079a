"""The engine: one process that keeps every run under the roots current, and the link views
use to it.

The engine (``python -m wftop.core.engine``) owns discovery, the rows cache, the cold pass
(its fork fan-out before any thread starts), the watch and the follow, and streams
versioned change sets of rows (`wftop.core.row.RunRow`) as JSON lines
(`wftop.core.engine.protocol`). Views share one engine per user and what it serves, over a
Unix socket in the state dir, started by the first view that needs it and gone when none
has listened for a while (`wftop.core.engine.place`, `wftop.core.engine.serve`); where a
socket cannot be used, each view runs its own over stdio pipes. ``wftop ls --watch
--json``, ``wftop status`` (which only asks a running one: `wftop.core.engine.ask`) and the
TUI are views.

How a view uses it::

    from wftop.core.engine.feed import Delta
    from wftop.core.engine.link import EngineLost, EngineUp, open_link

    link = open_link(roots, stall_window)
    async for update in link.updates():      # on the view's own event loop
        if isinstance(update, Delta):        # rows added, changed (by ident), removed
            draw(update.added, update.changed, update.removed)
            if update.complete:              # every run is known now
                ...
        elif isinstance(update, EngineLost): # the engine died: say so; the link
            say(update.why)                  # starts another and resyncs
    await link.close()

``link.rows`` holds every run by ident as the last update left it. A row has what a list
shows; a run's details (its calls, journal, transcripts) are read from the files the row
names when a screen opens them (`wftop.core.index.reader.RunReader` on the run's folder),
in the view's background, not asked of the engine. `tests/core/test_engine_link.py` is a
view in miniature.
"""
