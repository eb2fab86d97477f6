"""What an agent is offered for a step, and how its recording is made replayable."""

from __future__ import annotations

from pathlib import Path

from trailblaze.runner.agent_step import offered_tools, with_references
from trailblaze.tools.model import ToolCall
from trailblaze.tools.registry import ToolRegistry
from trailblaze.trail.loader import load_trail


def _registry() -> ToolRegistry:
    from trailblaze.pluginmanager import get_plugin_manager
    from trailblaze.project.config import Config, ProjectConfig
    from trailblaze.runner.project import Project

    project = Project(Config(ProjectConfig(), None), get_plugin_manager(autoload=False))
    return project.tools.for_device("playwright-native", "web")


def test_llm_tools_are_offered_narrowed_by_groups_and_to_checks_on_verify_steps() -> None:
    registry = _registry()
    everything = [s.name for s in offered_tools(registry, "step", None)]
    assert "web_click" in everything
    assert "tap" in everything
    assert "web_evaluate" not in everything  # not exposed to LLMs
    narrowed = [s.name for s in offered_tools(registry, "step", ["verification"])]
    assert "rememberText" not in narrowed  # in the "core"/"memory" groups only
    assert "tap" not in narrowed
    assert "web_click" in narrowed  # tools without a group always stay
    assert "objectiveStatus" in narrowed  # the way to end a step, whatever the groups
    checks = [s.name for s in offered_tools(registry, "verify", None)]
    assert "web_click" not in checks
    assert {"assertVisible", "web_verifyTextVisible", "objectiveStatus"} <= set(checks)


def test_values_from_the_trail_are_written_back_as_references(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "config:\n  args:\n    name: {default: Ada Lovelace}\n    plan: {default: Pro}\n"
        "    n: {type: integer, default: 7}\n"
        "trail:\n  - step: Type {{memory.code}} for {{args.name}}\n"
    )
    trail = load_trail(path)
    calls = [
        ToolCall("web_type", {"text": "Ada Lovelace", "nodeSelector": {"web": {"dataTestId": "name"}}}),
        ToolCall("web_verifyTextVisible", {"text": "Name: Ada Lovelace, code X-42"}),
        ToolCall("web_selectOption", {"values": ["Pro"]}),
        ToolCall("web_type", {"text": "Promotion 7"}),  # "Pro" is too short to replace inside a text
    ]
    written = with_references(calls, trail.steps[0], trail, {"code": "X-42"})
    assert [c.args for c in written] == [
        {"text": "{{args.name}}", "nodeSelector": {"web": {"dataTestId": "name"}}},
        {"text": "Name: {{args.name}}, code {{memory.code}}"},
        {"values": ["{{args.plan}}"]},
        {"text": "Promotion 7"},
    ]
