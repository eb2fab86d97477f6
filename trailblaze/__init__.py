"""trailblaze: replay UI test trails deterministically on web, Android and iOS.

The public API for plugin authors: what hooks receive (``Run``, ``Session``, the results,
``Config``, ``Parser``), what plugins register (``tool``, ``Driver``, ``Agent``) and what tools use
(``ToolContext``, ``Commands``…). Everything not listed in ``__all__`` is internal and may change
without notice. Names are imported on first use, so ``import trailblaze`` (and the
CLI's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trailblaze import _relocated

__version__ = "0.1.0"
# the import paths modules had before the layer folders (a DeprecationWarning, for one release)
_relocated.install()

_EXPORTS = {
    "Parser": "trailblaze.argparsing",
    "OptionGroup": "trailblaze.argparsing",
    "Config": "trailblaze.config",
    "AgentReport": "trailblaze.results",
    "Attempt": "trailblaze.results",
    "Artifact": "trailblaze.results",
    "RunResult": "trailblaze.results",
    "Status": "trailblaze.errors",
    "StepResult": "trailblaze.results",
    "ToolReport": "trailblaze.results",
    "TrailResult": "trailblaze.results",
    "PlannedTrail": "trailblaze.session",
    "Run": "trailblaze.session",
    "RunOptions": "trailblaze.session",
    "Session": "trailblaze.session",
    "Agent": "trailblaze.agents.base",
    "AgentSettings": "trailblaze.agents.base",
    "CallResult": "trailblaze.agents.base",
    "StepTask": "trailblaze.agents.base",
    "Usage": "trailblaze.agents.base",
    "Verdict": "trailblaze.agents.base",
    "Commands": "trailblaze.devicecommands",
    "DeviceInfo": "trailblaze.devicecommands",
    "ScreenState": "trailblaze.devicecommands",
    "ViewNode": "trailblaze.devicecommands",
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
    "AgentReport",
    "AgentSettings",
    "Artifact",
    "Attempt",
    "CallResult",
    "Commands",
    "Config",
    "Delegate",
    "Device",
    "DeviceInfo",
    "Driver",
    "DriverOptions",
    "OptionGroup",
    "Parser",
    "PlannedTrail",
    "Run",
    "RunOptions",
    "RunResult",
    "ScreenState",
    "Session",
    "Status",
    "StepResult",
    "StepTask",
    "ToolCall",
    "ToolContext",
    "ToolFailure",
    "ToolMetadata",
    "ToolOutcome",
    "ToolReport",
    "ToolSpec",
    "TrailResult",
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
    from trailblaze.argparsing import OptionGroup, Parser
    from trailblaze.client import TrailblazeClient
    from trailblaze.config import Config
    from trailblaze.devicecommands import Commands, DeviceInfo, ScreenState, ViewNode
    from trailblaze.driver import Device, Driver, DriverOptions
    from trailblaze.errors import Status, ToolFailure
    from trailblaze.results import (
        AgentReport,
        Artifact,
        Attempt,
        RunResult,
        StepResult,
        ToolReport,
        TrailResult,
    )
    from trailblaze.session import PlannedTrail, Run, RunOptions, Session
    from trailblaze.tools.authoring import tool
    from trailblaze.tools.model import Delegate, ToolCall, ToolContext, ToolMetadata, ToolOutcome, ToolSpec

    hookimpl: pluggy.HookimplMarker
