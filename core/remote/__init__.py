"""Runs on other machines, read over the user's own SSH.

wftop runs the system ``ssh`` (or ``$WFTOP_SSH``) with an argv list and, on the other side,
``wftop ls --watch --json``: the change-set stream the local TUI already consumes. Nothing
here opens a shell on this machine; what runs remotely is quoted for the remote shell.

* `wftop.core.remote.transport`: host names, the ssh argv, why a host cannot be reached;
* `wftop.core.remote.rows`: a remote ``ls --json`` row as a `wftop.core.model.Run`;
* `wftop.core.remote.feed`: one host's stream as change sets (resync, stale marking);
* `wftop.core.remote.link`: the connection per host, reconnecting with backoff.
"""
