"""Every session tool's handler, by name: :mod:`.session_tools`' own and the tool families that
live in modules of their own."""

from __future__ import annotations

from trailblaze.mcpserver.calls import Handler
from trailblaze.mcpserver.logcat import logcat
from trailblaze.mcpserver.session_tools import HANDLERS as _CORE
from trailblaze.mcpserver.trail_edit import trail_edit

HANDLERS: dict[str, Handler] = {**_CORE, "trailEdit": trail_edit, "logcat": logcat}
