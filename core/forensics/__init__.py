"""After a crash: what died in a session, why, and what can be recovered.

A session launches three kinds of background worker (agents, shells, workflows).
This package reads a session transcript and its session folder and reports the
workers that never reported back, the session's termination cause with its
evidence line, and, for workflow runs, what can be salvaged and how often calls
never came back. Nothing here imports a user interface. The package imports none of its
modules: each is imported by its name (a plan's stop cause needs the report, not the
listing of sessions or the salvage).
"""
