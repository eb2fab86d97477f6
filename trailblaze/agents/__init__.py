"""Agents that work out steps without a recording: the API (``base``) and the built-in ones."""
