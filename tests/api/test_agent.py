"""Agents come from plugins through ``trailblaze_register_agents``, like drivers and tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest

import trailblaze
from trailblaze.api.agent import AgentRegistry, StepTask, Verdict
from trailblaze.core.errors import UsageError
from trailblaze.pluginmanager import collect_options, get_plugin_manager
from trailblaze.project.config import Config, file_model
from trailblaze.runner.project import Project


class EchoAgent(trailblaze.Agent):
    name: ClassVar[str] = "echo"

    async def solve(self, task: StepTask) -> Verdict:
        return Verdict("complete", task.text)


class OtherEcho(EchoAgent):
    pass


def _project(*plugins: object, config: dict[str, Any] | None = None) -> Project:
    manager = get_plugin_manager(autoload=False)
    for plugin in plugins:
        manager.pm.register(plugin)
    parser = collect_options(manager)
    return Project(Config(file_model(parser).model_validate(config or {}), None, parser=parser), manager)


def test_a_plugin_registers_an_agent_next_to_the_built_in_ones() -> None:
    class Plugin:
        @trailblaze.hookimpl
        def trailblaze_register_agents(self, register: Callable[[Any], Any]) -> None:
            register(EchoAgent)

    project = _project(Plugin())
    assert project.agents.names() == ["browser", "echo", "interactive", "openai"]
    assert project.agents.resolve("echo") is EchoAgent
    assert project.agents.source("openai") == "openai_agent"


def test_the_same_agent_name_from_two_plugins_names_both() -> None:
    class First:
        @trailblaze.hookimpl
        def trailblaze_register_agents(self, register: Callable[[Any], Any]) -> None:
            register(EchoAgent)

    class Second:
        @trailblaze.hookimpl
        def trailblaze_register_agents(self, register: Callable[[Any], Any]) -> None:
            register(OtherEcho)

    with pytest.raises(UsageError, match=r"agent 'echo' is registered twice: by .* \(EchoAgent\) and by"):
        _ = _project(First(), Second()).agents


def test_only_agent_classes_with_a_name_register() -> None:
    registry = AgentRegistry()
    with pytest.raises(TypeError, match=r"not a trailblaze\.Agent subclass"):
        registry.add(object)  # type: ignore[arg-type]

    class Nameless(trailblaze.Agent):
        async def solve(self, task: StepTask) -> Verdict:
            return Verdict("skipped")

    with pytest.raises(TypeError, match="has no `name`"):
        registry.add(Nameless)


def test_the_default_agent_is_openai_when_an_llm_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert _project().default_agent_name(None) == "interactive"
    assert _project().default_agent_name("browser") == "browser"
    assert _project(config={"llm": {"model": "m"}}).default_agent_name(None) == "openai"
    assert _project(config={"agent": "browser"}).default_agent_name(None) == "browser"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    assert _project().default_agent_name(None) == "openai"
