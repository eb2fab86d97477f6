"""Loaded with ``-p tests.support.long_grace``: the polite waits for an MCP server to stop (after
its stdin closes, then after SIGTERM) become two minutes each, so a test tells a hurried stop from
a polite one with a bound that only a hang or the polite wait can reach, not with a tight timing."""

from __future__ import annotations

from trailblaze.mcpclient import stdio

stdio.GRACE_S = 120.0
stdio.TERM_S = 120.0
