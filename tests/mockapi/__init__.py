"""Tests of the mockapi room."""
