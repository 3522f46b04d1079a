"""Tests of the core room."""
