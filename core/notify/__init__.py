"""Telling a person what happened to their runs, where they are, once.

* `events`: what is worth telling (a run died, ended partial or failed, stalled, a resume
  ended, a supervisor decided), found in the change of a run's row (`Tracker`);
* `settings`: the ``[notifications]`` table of the config and ``WFTOP_NOTIFY``;
* `payload`: the bytes and argv of every channel (BEL, OSC 9/99/777 and their tmux
  passthrough, ``tmux display-message``, the desktop's own command, a command's JSON);
* `channels`, `detect`: the channels, and which of them the environment asks for;
* `ledger`: once per event across every wftop process of the user, a cooldown per run;
* `acks`: runs a person has seen, and what still needs them (`attention`);
* `notifier`: the rules and the sending, in a thread of its own.
"""
