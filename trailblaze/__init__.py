"""trailblaze: replay UI test trails deterministically on web, Android and iOS.

The public API for plugin authors. Everything not listed in ``__all__`` is internal and may
change without notice. Names are imported on first use, so ``import trailblaze`` (and the
CLI's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "trailblaze.agents.base",
    "AgentSettings": "trailblaze.agents.base",
    "CallResult": "trailblaze.agents.base",
    "StepTask": "trailblaze.agents.base",
    "Usage": "trailblaze.agents.base",
    "Verdict": "trailblaze.agents.base",
    "Commands": "trailblaze.commands",
    "DeviceInfo": "trailblaze.commands",
    "ScreenState": "trailblaze.commands",
    "ViewNode": "trailblaze.commands",
    "TrailblazeClient": "trailblaze.client",
    "Device": "trailblaze.driver",
    "Driver": "trailblaze.driver",
    "DriverOptions": "trailblaze.driver",
    "ToolFailure": "trailblaze.errors",
    "tool": "trailblaze.tools.authoring",
    "Delegate": "trailblaze.tools.model",
    "ToolCall": "trailblaze.tools.model",
    "ToolContext": "trailblaze.tools.model",
    "ToolMetadata": "trailblaze.tools.model",
    "ToolOutcome": "trailblaze.tools.model",
    "ToolSpec": "trailblaze.tools.model",
}

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
    "TrailblazeClient",
    "Usage",
    "Verdict",
    "ViewNode",
    "__version__",
    "hookimpl",
    "tool",
]


def __getattr__(name: str) -> Any:
    if name == "hookimpl":  # marks a function as a hook implementation: ``@trailblaze.hookimpl``
        import pluggy

        globals()["hookimpl"] = marker = pluggy.HookimplMarker("trailblaze")
        return marker
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trailblaze' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    import pluggy

    from trailblaze.agents.base import Agent, AgentSettings, CallResult, StepTask, Usage, Verdict
    from trailblaze.client import TrailblazeClient
    from trailblaze.commands import Commands, DeviceInfo, ScreenState, ViewNode
    from trailblaze.driver import Device, Driver, DriverOptions
    from trailblaze.errors import ToolFailure
    from trailblaze.tools.authoring import tool
    from trailblaze.tools.model import Delegate, ToolCall, ToolContext, ToolMetadata, ToolOutcome, ToolSpec

    hookimpl: pluggy.HookimplMarker
