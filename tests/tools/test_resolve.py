from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

import trailblaze
from tests.support.null_driver import ACTIONS, NullDevice
from trailblaze.core.errors import ExitCode
from trailblaze.device.commands import QueryOnlyCommands
from trailblaze.tools.model import Delegate, ToolCall, ToolContext, ToolOutcome, ToolSpec
from trailblaze.tools.registry import ToolRegistry
from trailblaze.tools.resolve import CallFailed, ExecutedCall, Resolver

calls: list[str] = []


@trailblaze.tool(name="press")
async def press(ctx: ToolContext, text: str) -> str:
    calls.append(f"press {text}")
    await ctx.commands.tap(text=text)
    return text


@trailblaze.tool(name="login", delegating=True)
async def login(ctx: ToolContext, user: str) -> list[Delegate]:
    if await ctx.commands.is_visible(text="Welcome"):  # a query is fine
        return [Delegate("press", {"text": "Welcome"})]
    return [Delegate("press", {"text": "Sign in"})]


@trailblaze.tool(name="journey", delegating=True)
def journey(user: str) -> list[Delegate]:
    return [Delegate("login", {"user": user}), Delegate("press", {"text": "Home"})]


@trailblaze.tool(name="loop_a", delegating=True)
def loop_a() -> list[Delegate]:
    return [Delegate("loop_b")]


@trailblaze.tool(name="loop_b", delegating=True)
def loop_b() -> list[Delegate]:
    return [Delegate("loop_a")]


def deep_factory(level: int) -> Any:
    @trailblaze.tool(name=f"deep_{level}", delegating=True)
    def deep() -> list[Delegate]:
        return [Delegate(f"deep_{level + 1}")]

    return deep


@trailblaze.tool(name="cheater", delegating=True)
async def cheater(ctx: ToolContext) -> list[Delegate]:
    await ctx.commands.tap(text="Home")  # an action while delegating: refused
    return []


@trailblaze.tool(name="half_bad", delegating=True)
def half_bad() -> list[Delegate]:
    return [Delegate("press", {"text": "Home"}), Delegate("press", {"txt": "typo"})]


@trailblaze.tool(name="check")
def check(value: int) -> None:
    assert value == 1, f"value was {value}"


@trailblaze.tool(name="crash")
def crash() -> None:
    raise KeyError("boom")


@trailblaze.tool(name="echo")
def echo(text: str) -> None:
    calls.append(f"echo {text}")


@trailblaze.tool(name="remember")
def remember(ctx: ToolContext, key: str, value: str) -> None:
    ctx.memory[key] = value


TOOLS = [press, login, journey, loop_a, loop_b, cheater, half_bad, check, crash, echo, remember]
TOOLS += [deep_factory(i) for i in range(20)]


class Harness:
    def __init__(self, texts: list[str] | None = None) -> None:
        self.device = NullDevice("dev-1", texts or ["Sign in", "Home"])
        self.memory: dict[str, Any] = {}
        self.executed: list[ExecutedCall] = []
        registry = ToolRegistry()
        for fn in TOOLS:
            registry.add(fn, source="test")
        self.resolver = Resolver(
            registry=registry,
            invoke=self.invoke,
            make_context=self.context,
            memory=self.memory,
            environ={"PASSWORD": "s3cret"},
            arg_values={"who": "ada"},
            on_executed=self.executed.append,
        )

    async def invoke(self, spec: ToolSpec, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
        return await spec.implementation.invoke(ctx, args)

    def context(self, spec: ToolSpec, call: ToolCall, delegating: bool) -> ToolContext:
        commands = QueryOnlyCommands(self.device, spec.name) if delegating else self.device
        return ToolContext(commands, self.device, self.device.device, self.memory, "sess", "inv", spec, call)

    def run(self, name: str, **args: Any) -> None:
        asyncio.run(self.resolver.run(ToolCall(name, args)))


@pytest.fixture(autouse=True)
def _reset() -> None:
    calls.clear()
    ACTIONS.clear()


def test_nested_delegation_executes_primitives_in_order_with_their_chain() -> None:
    h = Harness()
    h.run("journey", user="ada")
    assert calls == ["press Sign in", "press Home"]
    assert [(e.call.name, dict(e.call.args), e.delegated_from) for e in h.executed] == [
        ("press", {"text": "Sign in"}, ("journey", "login")),
        ("press", {"text": "Home"}, ("journey",)),
    ]
    assert all(e.status == "passed" and e.recordable for e in h.executed)


def test_a_delegating_tool_may_query_the_device() -> None:
    h = Harness(["Welcome", "Home"])
    h.run("login", user="x")
    assert calls == ["press Welcome"]


def test_cycles_and_depth_are_errors_naming_the_chain() -> None:
    with pytest.raises(CallFailed, match="delegation cycle: loop_a → loop_b → loop_a") as info:
        Harness().run("loop_a")
    assert (info.value.status, info.value.exit_code) == ("error", ExitCode.USAGE)
    with pytest.raises(CallFailed, match=r"delegation deeper than 16 levels: deep_0 → deep_1 → .* → deep_16"):
        Harness().run("deep_0")


def test_an_action_while_delegating_is_an_error_telling_to_return_delegates() -> None:
    with pytest.raises(CallFailed, match="delegating tool 'cheater' called the action tap") as info:
        Harness().run("cheater")
    assert info.value.status == "error"
    assert ACTIONS == []


def test_delegates_are_all_checked_before_any_runs() -> None:
    with pytest.raises(CallFailed, match=r"invalid arguments for press: text: required; txt: unknown argument"):
        Harness().run("half_bad")
    assert calls == []


def test_failures_and_errors_are_told_apart() -> None:
    with pytest.raises(CallFailed, match="check: value was 2") as failed:
        Harness().run("check", value=2)
    assert (failed.value.status, failed.value.exit_code) == ("failed", ExitCode.FAILED)
    with pytest.raises(CallFailed, match=r"crash \(test\) raised KeyError: 'boom'") as errored:
        Harness().run("crash")
    assert (errored.value.status, errored.value.exit_code) == ("error", ExitCode.ERROR)
    with pytest.raises(CallFailed, match="unknown tool 'nope'"):
        Harness().run("nope")


def test_a_failed_call_is_still_reported() -> None:
    h = Harness()
    with pytest.raises(CallFailed):
        h.run("check", value=5)
    [executed] = h.executed
    assert (executed.call.name, executed.status) == ("check", "failed")
    assert executed.error is not None and executed.error.startswith("check: value was 5")


def test_memory_and_args_are_filled_in_and_secrets_stay_out_of_reports() -> None:
    h = Harness()
    h.run("remember", key="greeting", value="hello {{args.who}}")
    h.run("echo", text="{{memory.greeting}} ${PASSWORD}")
    assert calls == ["echo hello ada s3cret"]
    assert h.executed[-1].display_args == {"text": "hello ada ${PASSWORD}"}
    assert h.executed[-1].call.args == {"text": "{{memory.greeting}} ${PASSWORD}"}  # recorded as written
    with pytest.raises(CallFailed, match=r"echo: \{\{memory.later\}\} not set \(memory holds: greeting\)"):
        h.run("echo", text="{{memory.later}}")


def test_reason_is_never_passed_to_the_tool() -> None:
    h = Harness()
    h.run("press", text="Home", reason="the agent said so")
    assert calls == ["press Home"]


def test_delegates_from_a_tool_that_is_not_delegating_are_refused() -> None:
    from trailblaze.tools.model import ToolImplementation, ToolMetadata

    class Rogue(ToolImplementation):
        def validate(self, args: Mapping[str, Any]) -> Any:
            return args

        async def invoke(self, ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutcome:
            return ToolOutcome(delegates=[Delegate("press", {"text": "Home"})])

    h = Harness()
    h.resolver.registry.add(ToolSpec("rogue", "", {}, ToolMetadata(), Rogue(), source="mcp:rogue"))
    with pytest.raises(CallFailed, match=r"rogue \(mcp:rogue\) returned delegates but is not a delegating tool"):
        h.run("rogue")
    assert calls == []
