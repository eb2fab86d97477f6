"""Which driver and agent run when nothing names one: the plugins that provide them say so
(``Driver.fallback``, ``Agent.fallback``); the core names none of them."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from trailblaze.api.agent import Agent, AgentRegistry, Verdict
from trailblaze.api.driver import Device, Driver, DriverRegistry
from trailblaze.core.errors import UsageError


def _driver(key: str, fallback: bool = False) -> type[Driver]:
    class Made(Driver):
        platform: ClassVar[str] = "test"

        async def devices(self) -> list[Any]:
            return []

        async def open(self, device_id: str | None) -> Device:
            raise NotImplementedError

    Made.key = key
    Made.fallback = fallback
    return Made


def _agent(name: str, fallback: bool = False) -> type[Agent]:
    class Made(Agent):
        async def solve(self, task: Any) -> Verdict:
            raise NotImplementedError

    Made.name = name
    Made.fallback = fallback
    return Made


def test_the_driver_that_says_so_runs_unnamed_trails_wherever_it_was_registered() -> None:
    registry = DriverRegistry()
    for driver in (_driver("phone"), _driver("web", fallback=True), _driver("desk")):
        registry.add(driver, "plugin")
    assert registry.fallback().key == "web"


def test_a_lone_driver_is_the_default_and_two_without_one_ask_for_driver() -> None:
    registry = DriverRegistry()
    registry.add(_driver("only"), "plugin")
    assert registry.fallback().key == "only"
    registry.add(_driver("other"), "plugin")
    with pytest.raises(UsageError, match=r"pass --driver KEY \(drivers here: only, other\)"):
        registry.fallback()


def test_the_agent_that_says_so_is_the_default_and_two_without_one_ask_for_agent() -> None:
    registry = AgentRegistry()
    registry.add(_agent("llm"), "plugin")
    assert registry.fallback().name == "llm"
    registry.add(_agent("person"), "plugin")
    with pytest.raises(UsageError, match=r"pass --agent NAME \(agents here: llm, person\)"):
        registry.fallback()
    registry.add(_agent("asks", fallback=True), "plugin")
    assert registry.fallback().name == "asks"


def test_the_built_ins_declare_their_defaults() -> None:
    from trailblaze.agents.interactive import InteractiveAgent
    from trailblaze.drivers.web.driver import PlaywrightDriver

    assert PlaywrightDriver.fallback and InteractiveAgent.fallback
