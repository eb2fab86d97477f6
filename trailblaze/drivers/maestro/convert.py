"""A Maestro flow written as a trail file (``trailblaze record --from-maestro``).

Each step keeps the flow's command as its recording, for Android and iOS (``mobile_maestro``) or
the web (``web_maestro``), so the trail replays as the flow ran; its step text is the command,
which an agent can work from once someone rewrites it in words (``--self-heal``). What the flow
file settles when it is read is settled in the trail: ``runFlow`` files are inline and ``${…}``
values (its ``env``, ``-e``) written in.
"""

from __future__ import annotations

from typing import Any

from trailblaze.trail.model import Trail
from trailblaze.trail.yamlstyle import Calls, Layout, emit_value, flow


def trail_text(trail: Trail) -> str:
    """The trail file for a trail read from a flow (:func:`trailblaze.drivers.maestro.flow.read_flow`)."""
    layout = Layout(quote='"')
    config: dict[str, Any] = {"title": trail.title}
    if trail.config.tags:
        config["tags"] = list(trail.config.tags)
    config["devices"] = dict(trail.config.devices)
    maestro = trail.config.metadata.get("maestro") or {}
    config["metadata"] = {"maestro_flow": maestro.get("file")}
    lines = [
        f"# converted from the Maestro flow {maestro.get('file')} by trailblaze record --from-maestro",
        "config:" + emit_value(config, 0, layout),
        "trail:",
    ]
    for step in trail.steps:
        lines.append(f"  - {'verify' if step.kind == 'verify' else 'step'}: {flow(step.text, layout)}")
        lines.append("    recording:")
        for key, calls in (step.recordings or {}).items():
            written = Calls({c.name: _without_at(dict(c.args))} for c in calls)
            lines.append(f"      {key}:" + emit_value(written, 6, layout))
    return "\n".join(lines) + "\n"


def _without_at(value: Any) -> Any:
    """The commands without ``at:`` (where a nested command was written in the flow files)."""
    if isinstance(value, dict):
        return {k: _without_at(v) for k, v in value.items() if k != "at"}
    if isinstance(value, list):
        return [_without_at(v) for v in value]
    return value
