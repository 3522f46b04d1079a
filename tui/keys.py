"""Every key binding of wftop, by stable id: the single source for screens, help and config.

A binding id never changes once released: the ``[keys]`` table of the config file
maps ids to keys. Screens build their ``BINDINGS`` from this table with `binding`,
the help screen lists it, and `wftop.core.config` checks a remap against it for
conflicts. No Textual import at module level, so the config can be checked
before the app starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from wftop.core.compared import record
from wftop.core.config import Config, ConfigError, at_line, shown_value

if TYPE_CHECKING:
    from textual.binding import Binding, BindingType

ALL = frozenset({"runs", "run", "agent", "journal"})
LISTS = frozenset({"runs", "run"})
VIEWS = frozenset({"agent", "journal"})


@record
class KeySpec:
    """One binding: default keys, the action it runs, and where it is active."""

    keys: str
    """Default keys, comma separated, in Textual's key names."""
    action: str
    description: str
    screens: frozenset[str]
    """Screens where it is active; two bindings sharing a screen may not share a key."""
    show: bool = True
    """Shown in the footer."""
    priority: bool = False
    key_display: str | None = None
    general: bool = False
    """Listed under "general" in the help screen."""
    long: str = ""
    """The description in the help screen and the palette, when the footer's is too terse."""
    palette: bool = True
    """Offered in the command palette (cursor moves are not)."""

    @property
    def words(self) -> str:
        return self.long or self.description


KEYS: Final[dict[str, KeySpec]] = {
    # general
    "quit": KeySpec("q", "app.quit", "quit", ALL, general=True),
    "help": KeySpec("question_mark", "app.help", "help", ALL, key_display="?", general=True),
    "command-palette": KeySpec(
        "ctrl+p", "app.command_palette", "palette", ALL, priority=True, general=True
    ),
    "back": KeySpec("escape", "back", "back", ALL - {"runs"}, general=True, key_display="esc"),
    "sessions": KeySpec(
        "S",
        "app.sessions",
        "sessions",
        ALL,
        show=False,
        general=True,
        long="recent sessions and their dead workers",
    ),
    "cursor-down": KeySpec(
        "j,down", "cursor_down", "down", ALL, show=False, general=True, palette=False
    ),
    "cursor-up": KeySpec("k,up", "cursor_up", "up", ALL, show=False, general=True, palette=False),
    "page-down": KeySpec(
        "pagedown", "page_down", "page down", ALL, show=False, general=True, palette=False
    ),
    "page-up": KeySpec(
        "pageup", "page_up", "page up", ALL, show=False, general=True, palette=False
    ),
    "half-page-down": KeySpec(
        "ctrl+d",
        "half_page_down",
        "half a page down",
        ALL,
        show=False,
        general=True,
        palette=False,
    ),
    "half-page-up": KeySpec(
        "ctrl+u",
        "half_page_up",
        "half a page up",
        ALL,
        show=False,
        general=True,
        palette=False,
    ),
    "first": KeySpec(
        "g,home,ctrl+home", "first", "first row", LISTS, show=False, general=True, palette=False
    ),
    "last": KeySpec(
        "G,end,ctrl+end", "last", "last row", LISTS, show=False, general=True, palette=False
    ),
    "top": KeySpec(
        "g,home,ctrl+home",
        "top",
        "top",
        VIEWS,
        show=False,
        long="go to the first line (g, or g g as in less and vim)",
    ),
    "bottom": KeySpec(
        "G,end,ctrl+end", "bottom", "bottom", VIEWS, show=False, long="go to the last line"
    ),
    "search": KeySpec(
        "slash", "search", "search", VIEWS, key_display="/", long="search the file for a text"
    ),
    "search-next": KeySpec(
        "n", "search_next", "next", VIEWS, show=False, long="the next line the search finds"
    ),
    "search-previous": KeySpec(
        "N", "search_previous", "previous", VIEWS, show=False, long="the previous line it finds"
    ),
    "detail": KeySpec(
        "enter",
        "detail",
        "whole line",
        VIEWS,
        key_display="⏎",
        long="show or hide the whole line under the cursor",
    ),
    # runs and run
    "open": KeySpec(
        "enter",
        "open",
        "open",
        LISTS,
        key_display="⏎",
        long="open the run or call under the cursor",
    ),
    "resume": KeySpec("r", "resume", "resume", LISTS, long="plan and resume the run"),
    "relaunch": KeySpec("R", "relaunch", "relaunch fresh", LISTS, show=False),
    "copy": KeySpec("y", "copy", "copy", ALL, long="copy run id, a path or the resume command"),
    "journal": KeySpec("J", "journal", "journal", LISTS, long="show the journal as a table"),
    "ack": KeySpec(
        "a", "ack", "seen", LISTS, show=False, long="mark the run seen, until it changes"
    ),
    "ack-all": KeySpec(
        "A", "ack_all", "all seen", LISTS, show=False, long="mark every run that needs you seen"
    ),
    # runs only
    "filter": KeySpec(
        "slash",
        "filter",
        "filter",
        frozenset({"runs"}),
        key_display="/",
        long="filter by name, run id, project or label",
        # taken before the key is passed to the list: the letters typed with it (a paste, a
        # burst) are then the box's, not the list's keys (p, r, …)
        priority=True,
    ),
    "clear-filter": KeySpec(
        "escape",
        "clear_filter",
        "clear filter",
        frozenset({"runs"}),
        show=False,
        long="clear the text, status and project filters",
    ),
    "filter-status": KeySpec(
        "s", "cycle_status", "status", frozenset({"runs"}), long="cycle the status filter"
    ),
    "filter-project": KeySpec(
        "p",
        "cycle_project",
        "project",
        frozenset({"runs"}),
        show=False,
        long="cycle the project filter",
    ),
    "group": KeySpec(
        "v",
        "cycle_group",
        "group",
        frozenset({"runs"}),
        show=False,
        long="group by nothing, status or project",
    ),
    "sort": KeySpec(
        "o",
        "cycle_sort",
        "sort",
        frozenset({"runs"}),
        long="sort by activity, status, name or project",
    ),
    "rerun-column": KeySpec(
        "t",
        "toggle_rerun_column",
        "re-run tokens",
        frozenset({"runs"}),
        show=False,
        long="show or hide RE-RUN: tokens spent twice",
    ),
    "auto-resume": KeySpec(
        "m",
        "auto_resume",
        "auto",
        frozenset({"runs"}),
        show=False,
        long="mark or unmark the run for wftop supervise",
    ),
    "supervisor": KeySpec(
        "M",
        "supervisor",
        "supervisor",
        frozenset({"runs"}),
        show=False,
        long="what wftop supervise decided: its audit log",
    ),
    # the two small windows
    "help-close": KeySpec(
        "escape,q,question_mark", "close", "close", frozenset({"help"}), palette=False
    ),
    "copy-close": KeySpec("escape,q", "dismiss_copy", "close", frozenset({"copy"}), palette=False),
    "supervisor-close": KeySpec(
        "escape,q", "close", "close", frozenset({"supervisor"}), palette=False
    ),
    # journal
    "raw": KeySpec(
        "v",
        "toggle_raw",
        "raw",
        frozenset({"journal"}),
        long="switch between the table and the raw lines",
    ),
    "line-filter": KeySpec(
        "ampersand",
        "line_filter",
        "only",
        frozenset({"journal"}),
        key_display="&",
        long="show only the lines whose event, label or phase hold a text (as & in less)",
    ),
    # run
    "timeline": KeySpec(
        "t",
        "timeline",
        "timeline",
        frozenset({"run"}),
        long="the run's timeline: a lane per call, its deaths and resumes",
    ),
    # agent
    "follow": KeySpec(
        "f", "toggle_follow", "follow", frozenset({"agent"}), long="follow the growing transcript"
    ),
}
"""Binding id → what it does. Ids are kebab-case and stable."""


def binding(binding_id: str) -> Binding:
    """The Textual `Binding` for an id of `KEYS`."""
    from textual.binding import Binding

    spec = KEYS[binding_id]
    return Binding(
        spec.keys,
        spec.action,
        spec.description,
        show=spec.show,
        priority=spec.priority,
        key_display=spec.key_display,
        id=binding_id,
    )


def bindings_for(screen: str, *, exclude: frozenset[str] = frozenset()) -> list[BindingType]:
    """Bindings active on a screen, minus the general ones the app itself holds."""
    return [
        binding(binding_id)
        for binding_id, spec in KEYS.items()
        if screen in spec.screens and binding_id not in exclude
    ]


APP_IDS: Final = frozenset({"quit", "help", "command-palette", "sessions"})
"""Bindings that live on the App rather than on a screen."""

LIST_WIDGET_IDS: Final = frozenset(
    {
        "cursor-down",
        "cursor-up",
        "page-down",
        "page-up",
        "half-page-down",
        "half-page-up",
        "first",
        "last",
    }
)
"""Bindings that live on the focused list or view widget."""


def normalize_key(key: str) -> str:
    """One key name in Textual's long form (``?`` → ``question_mark``), as Textual names a
    key it reads: a letter or digit is itself, any other character its Unicode name in
    lower case with ``_`` for spaces and dashes, then Textual's own replacements (its
    public tables, ``textual.keys.KEY_NAME_REPLACEMENTS`` and ``ASCII_KEY_NAMES``)."""
    import unicodedata

    from textual.keys import ASCII_KEY_NAMES, KEY_NAME_REPLACEMENTS

    key = key.strip()
    if len(key) != 1:
        return key
    if key.isalnum():
        name = key
    else:
        try:
            name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            name = ASCII_KEY_NAMES.get(key, key)
    return KEY_NAME_REPLACEMENTS.get(name, name)


def key_list(keys: str) -> list[str]:
    return [normalize_key(key) for key in keys.split(",") if key.strip()]


def check_keymap(config: Config) -> dict[str, str]:
    """The config's ``[keys]`` in Textual's key names, checked when the TUI starts:
    `ConfigError` naming the file, the line and the key of an id no binding has, or of two
    bindings that would share a key on one screen (the defaults of those not remapped
    counted too), so that no binding silently wins."""
    if not config.keys:  # the defaults share no key: nothing to check (nor Textual to import)
        return {}
    path = config.path or "config.toml"
    lines = config.key_lines
    keymap: dict[str, str] = {}
    for binding_id, keys in config.keys.items():
        if binding_id not in KEYS:
            where = at_line(path, lines.get(binding_id))
            raise ConfigError(
                f"{where}: [keys] has an unknown binding id {shown_value(binding_id)}"
            )
        keymap[binding_id] = ",".join(key_list(keys))
    effective = {
        binding_id: key_list(keymap.get(binding_id, spec.keys)) for binding_id, spec in KEYS.items()
    }
    ids = list(KEYS)
    for at, first in enumerate(ids):
        for second in ids[at + 1 :]:
            shared_screens = KEYS[first].screens & KEYS[second].screens
            shared_keys = set(effective[first]) & set(effective[second])
            if shared_screens and shared_keys and (first in keymap or second in keymap):
                key = sorted(shared_keys)[0]
                remapped = [lines.get(name) for name in (first, second) if name in keymap]
                where = at_line(path, max((line for line in remapped if line), default=None))
                screens = ", ".join(sorted(shared_screens))
                msg = (
                    f"{where}: [keys] {key!r} would be bound to both {first!r} and {second!r}"
                    f" (on the {screens} screen); give one of them another key"
                )
                raise ConfigError(msg)
    return keymap
