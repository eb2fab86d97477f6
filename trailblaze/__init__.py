"""trailblaze: replay UI test trails deterministically on web, Android and iOS.

The public API for plugin authors: what hooks receive (``Run``, ``Session``, ``Trail``,
``Step``, the results, ``Config``, ``Parser``: every type a hook's signature names), what plugins
register (``tool``, ``Driver``, ``Agent``) and what tools use (``ToolContext``, ``Commands``…).
Everything not listed in ``__all__`` is internal and may change
without notice. Names are imported on first use, so ``import trailblaze`` (and the
CLI's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Parser": "trailblaze.core.argparsing",
    "OptionGroup": "trailblaze.core.argparsing",
    "Config": "trailblaze.project.config",
    "AgentReport": "trailblaze.api.results",
    "Attempt": "trailblaze.api.results",
    "Artifact": "trailblaze.api.results",
    "RunResult": "trailblaze.api.results",
    "Status": "trailblaze.core.errors",
    "TrailblazeError": "trailblaze.core.errors",
    "UsageError": "trailblaze.core.errors",
    "StepResult": "trailblaze.api.results",
    "ToolReport": "trailblaze.api.results",
    "TrailResult": "trailblaze.api.results",
    "PlannedTrail": "trailblaze.api.session",
    "ProjectView": "trailblaze.api.session",
    "Run": "trailblaze.api.session",
    "RunOptions": "trailblaze.api.session",
    "Session": "trailblaze.api.session",
    "Agent": "trailblaze.api.agent",
    "AgentSettings": "trailblaze.api.agent",
    "CallResult": "trailblaze.api.agent",
    "StepTask": "trailblaze.api.agent",
    "Usage": "trailblaze.api.agent",
    "Verdict": "trailblaze.api.agent",
    "Commands": "trailblaze.device.commands",
    "DeviceInfo": "trailblaze.device.commands",
    "ScreenState": "trailblaze.device.commands",
    "ViewNode": "trailblaze.device.commands",
    "TrailblazeClient": "trailblaze.mcpclient.sdk",
    "Device": "trailblaze.api.driver",
    "Driver": "trailblaze.api.driver",
    "DriverOptions": "trailblaze.api.driver",
    "DoctorCheck": "trailblaze.api.doctor",
    "ToolFailure": "trailblaze.core.errors",
    "tool": "trailblaze.tools.authoring",
    "Delegate": "trailblaze.tools.model",
    "ToolCall": "trailblaze.tools.model",
    "ToolContext": "trailblaze.tools.model",
    "ToolMetadata": "trailblaze.tools.model",
    "ToolOutcome": "trailblaze.tools.model",
    "ToolSpec": "trailblaze.tools.model",
    "ToolRegistry": "trailblaze.tools.registry",
    "Workspace": "trailblaze.project.workspace",
    "Step": "trailblaze.trail.model",
    "Trail": "trailblaze.trail.model",
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
    "DoctorCheck",
    "Driver",
    "DriverOptions",
    "OptionGroup",
    "Parser",
    "PlannedTrail",
    "ProjectView",
    "Run",
    "RunOptions",
    "RunResult",
    "ScreenState",
    "Session",
    "Status",
    "Step",
    "StepResult",
    "StepTask",
    "ToolCall",
    "ToolContext",
    "ToolFailure",
    "ToolMetadata",
    "ToolOutcome",
    "ToolRegistry",
    "ToolReport",
    "ToolSpec",
    "Trail",
    "TrailResult",
    "TrailblazeClient",
    "TrailblazeError",
    "Usage",
    "UsageError",
    "Verdict",
    "ViewNode",
    "Workspace",
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

    from trailblaze.api.agent import Agent, AgentSettings, CallResult, StepTask, Usage, Verdict
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.driver import Device, Driver, DriverOptions
    from trailblaze.api.results import (
        AgentReport,
        Artifact,
        Attempt,
        RunResult,
        StepResult,
        ToolReport,
        TrailResult,
    )
    from trailblaze.api.session import PlannedTrail, ProjectView, Run, RunOptions, Session
    from trailblaze.core.argparsing import OptionGroup, Parser
    from trailblaze.core.errors import Status, ToolFailure, TrailblazeError, UsageError
    from trailblaze.device.commands import Commands, DeviceInfo, ScreenState, ViewNode
    from trailblaze.mcpclient.sdk import TrailblazeClient
    from trailblaze.project.config import Config
    from trailblaze.project.workspace import Workspace
    from trailblaze.tools.authoring import tool
    from trailblaze.tools.model import Delegate, ToolCall, ToolContext, ToolMetadata, ToolOutcome, ToolSpec
    from trailblaze.tools.registry import ToolRegistry
    from trailblaze.trail.model import Step, Trail

    hookimpl: pluggy.HookimplMarker
