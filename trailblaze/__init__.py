"""trailblaze: replay UI test trails deterministically on web, Android and iOS.

The public API for plugin authors. Everything not listed in ``__all__`` is internal and may
change without notice.
"""

from __future__ import annotations

import pluggy

from trailblaze.agents.base import Agent, AgentSettings, CallResult, StepTask, Usage, Verdict
from trailblaze.commands import Commands, DeviceInfo, ScreenState, ViewNode
from trailblaze.driver import Device, Driver, DriverOptions
from trailblaze.errors import ToolFailure
from trailblaze.tools.authoring import tool
from trailblaze.tools.model import Delegate, ToolCall, ToolContext, ToolMetadata, ToolOutcome, ToolSpec

__version__ = "0.1.0"

#: Marks a function as a hook implementation: ``@trailblaze.hookimpl``.
hookimpl = pluggy.HookimplMarker("trailblaze")

__all__ = [
    "Agent",
    "AgentSettings",
    "CallResult",
    "Commands",
    "Delegate",
    "Device",
    "DeviceInfo",
    "Driver",
    "DriverOptions",
    "ScreenState",
    "StepTask",
    "ToolCall",
    "ToolContext",
    "ToolFailure",
    "ToolMetadata",
    "ToolOutcome",
    "ToolSpec",
    "Usage",
    "Verdict",
    "ViewNode",
    "__version__",
    "hookimpl",
    "tool",
]
