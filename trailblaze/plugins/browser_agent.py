"""Built-in plugin: the ``browser`` agent (record a web trail by demonstration), and its option
``--headless``: the person (or a script over ``--remote-debugging-port``) needs the window, so
``record --agent browser`` runs the web driver headed unless ``--headless`` says otherwise."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config

AGENT = "browser"


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    parser.getgroup("agents", "Agents (record, run --self-heal)").addoption(
        "--headless",
        is_flag=True,
        help="browser agent: no visible window (drive it over CDP, for scripts).",
        commands=("record",),
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    agent = config.getoption("agent", None) or config.project.agent
    if config.command == "record" and agent == AGENT and not config.getoption("headless"):
        config.option.headed = True  # the web driver's option: the person works in its window


@hookimpl
def trailblaze_register_agents(register: Callable[[Any], Any]) -> None:
    from trailblaze.agents.browser import BrowserAgent

    register(BrowserAgent)
