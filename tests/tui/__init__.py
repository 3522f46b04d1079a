"""Tests of the tui room."""
