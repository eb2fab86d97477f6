"""Test support code (not fixtures): a scriptable in-process driver for runner tests."""
