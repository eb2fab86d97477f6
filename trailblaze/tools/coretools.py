"""The tools every driver offers (tools.md, "Every driver"); registered by the ``core_tools`` plugin.

``tap`` and ``assertVisible`` are the LLM-facing delegating tools: they take an ephemeral
``ref`` from the current screen and delegate to the driver's selector tool with a stable
``nodeSelector``, which is what gets recorded.
"""

from __future__ import annotations

import ast
import asyncio
import json
import math
import operator
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from trailblaze.core import limits
from trailblaze.core.errors import ToolFailure, UsageError
from trailblaze.core.fileio import write_whole
from trailblaze.core.pathnames import path_component
from trailblaze.device import masking
from trailblaze.device.selectors import ElementSelector, NodeSelector
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import PauseSeconds, WaitMs
from trailblaze.tools.model import Delegate, ToolContext
from trailblaze.tools.params import LegacyTarget, Prompt, ReadTarget, RequiredRef, Variable


@tool(name="tap", delegating=True, groups=["core"])
async def tap(
    ctx: ToolContext,
    ref: RequiredRef,
    longPress: Annotated[bool, Field(description="Press and hold instead of a tap")] = False,
) -> list[Delegate]:
    """Tap the element with this ref from the current screen."""
    selector = await ctx.commands.selector_for_ref(ref)
    if selector is None:
        raise ToolFailure(f"no element with ref {ref!r} on the current screen")
    args: dict[str, Any] = {"nodeSelector": selector}
    if longPress:
        args["longPress"] = True
    return [Delegate(ctx.driver.selector_tap_tool, args)]


@tool(name="assertVisible", delegating=True, verification=True, groups=["core", "verification"])
async def assert_visible(
    ctx: ToolContext,
    ref: RequiredRef,
    expectedText: Annotated[str | None, Field(description="Text the element must also show")] = None,
) -> list[Delegate]:
    """Assert that the element with this ref from the current screen is visible."""
    selector = await ctx.commands.selector_for_ref(ref)
    if selector is None:
        raise ToolFailure(f"no element with ref {ref!r} on the current screen")
    args: dict[str, Any] = {"nodeSelector": selector}
    if expectedText is not None:
        args["expectedText"] = expectedText
    return [Delegate(ctx.driver.selector_assert_tool, args)]


@tool(name="wait", groups=["core"])
async def wait(timeToWaitInSeconds: Annotated[PauseSeconds, Field(description="How long, in seconds")] = 5) -> str:
    """Wait a fixed number of seconds, at most 30 (prefer a check that waits for what you expect)."""
    await asyncio.sleep(max(0.0, timeToWaitInSeconds))
    return f"waited {timeToWaitInSeconds:g}s"


@tool(name="waitForChange", groups=["core"])
async def wait_for_change(
    ctx: ToolContext,
    timeoutMs: Annotated[WaitMs, Field(description="How long to wait at most, in milliseconds")] = 8000,
    quietWindowMs: Annotated[
        WaitMs, Field(description="How long the screen must stay the same, in milliseconds")
    ] = 300,
    requireChange: Annotated[bool, Field(description="Fail when the screen does not change at all")] = True,
) -> str:
    """Wait until the screen changes and then stays the same for a quiet window."""
    deadline = time.monotonic() + timeoutMs / 1000
    baseline = (await ctx.commands.view_hierarchy()).to_dict()
    last, last_change, changed = baseline, time.monotonic(), False
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        current = (await ctx.commands.view_hierarchy()).to_dict()
        if current != last:
            last, last_change, changed = current, time.monotonic(), True
        elif (changed or not requireChange) and time.monotonic() - last_change >= quietWindowMs / 1000:
            return "screen settled"
    if requireChange and not changed:
        raise ToolFailure(f"the screen did not change within {timeoutMs} ms")
    return "screen still changing at timeout"


@tool(name="takeSnapshot", groups=["core"])
async def take_snapshot(
    ctx: ToolContext,
    screenName: Annotated[str, Field(description="A name for the saved files")],
    description: Annotated[str | None, Field(description="What the screen shows, for the report")] = None,
) -> dict[str, Any]:
    """Save a screenshot and the view hierarchy as artifacts of this trail."""
    screen = await ctx.commands.capture_screen()
    folder = ctx.artifacts_dir
    if folder is None:
        return {"screenName": screenName, "saved": False}
    stem = path_component(screenName, fallback="snapshot")
    contents: dict[Path, bytes] = {}
    if screen.screenshot:
        contents[folder / f"{stem}.{screen.image_format}"] = screen.screenshot
    hierarchy = masking.masked_node(screen.hierarchy, ctx.secrets)  # a filled secret shows: not here
    contents[folder / f"{stem}.hierarchy.json"] = json.dumps(hierarchy.to_dict(), indent=2).encode("utf-8")
    save_snapshot(contents)
    return {"screenName": screenName, "description": description, "files": [str(path) for path in contents]}


def save_snapshot(contents: Mapping[Path, bytes]) -> None:
    """Write a snapshot tool's files (``takeSnapshot``, ``web_snapshot``, Maestro's
    ``takeScreenshot``): saving them is the call's purpose, so a file that cannot be written
    (a full disk) fails the call, naming it and why; none is left half written."""
    for path, data in contents.items():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(path, data)
        except OSError as exc:
            raise ToolFailure(f"could not save {path}: {exc.strerror or exc}") from None


@tool(name="assertEquals", verification=True, groups=["core", "verification"])
def assert_equals(
    actual: Annotated[Any, Field(description="The value to check, e.g. {{memory.total}}")],
    expected: Annotated[Any, Field(description="The value it must equal")],
) -> str:
    """Assert that two values (usually interpolated, e.g. {{memory.total}}) are equal."""
    if _text(actual) != _text(expected):
        raise ToolFailure(f"expected {_text(expected)!r}, got {_text(actual)!r}")
    return "equal"


@tool(name="assertNotEquals", verification=True, groups=["core", "verification"])
def assert_not_equals(
    actual: Annotated[Any, Field(description="The value to check, e.g. {{memory.total}}")],
    expected: Annotated[Any, Field(description="A value it must differ from")],
) -> str:
    """Assert that two values differ."""
    if _text(actual) == _text(expected):
        raise ToolFailure(f"expected a value other than {_text(expected)!r}")
    return "different"


@tool(name="assertMath", verification=True, groups=["core", "verification"])
def assert_math(
    expression: Annotated[str, Field(description="An arithmetic expression, e.g. {{memory.a}} + {{memory.b}}")],
    expected: Annotated[float | int | str, Field(description="The number it must come to")],
) -> str:
    """Evaluate an arithmetic expression (+ - * / // % ** and parentheses) and compare it."""
    try:
        value = _evaluate(expression)
        wanted = float(expected)
    except (ValueError, SyntaxError, ArithmeticError, TypeError) as exc:
        raise ToolFailure(f"cannot evaluate {expression!r}: {exc}") from None
    if not math.isclose(value, wanted, rel_tol=1e-9, abs_tol=1e-9):
        raise ToolFailure(f"{expression} = {value:g}, expected {wanted:g}")
    return f"{expression} = {value:g}"


@tool(name="rememberText", groups=["core", "memory"])
async def remember_text(
    ctx: ToolContext,
    variable: Variable,
    nodeSelector: ReadTarget = None,
    selector: LegacyTarget = None,
    prompt: Prompt = None,
) -> dict[str, Any]:
    """Read an element's text into memory as {{memory.<variable>}}."""
    if nodeSelector is None and selector is None:
        raise ToolFailure(
            "rememberText without nodeSelector/selector needs an agent to read the screen; "
            "record it again to get a selector"
        )
    text = await ctx.commands.get_element_text(selector=nodeSelector or legacy_selector_for(ctx, selector))
    if text is None:
        raise ToolFailure(f"no element to read for {variable!r}")
    ctx.memory[variable] = text
    return {variable: text}


@tool(name="dumpMemory", groups=["core", "memory"], query=True)
def dump_memory(ctx: ToolContext) -> dict[str, Any]:
    """Show everything remembered so far in this trail."""
    return dict(ctx.memory)


@tool(name="objectiveStatus", recordable=False, groups=["core"])
def objective_status(
    status: Annotated[Literal["COMPLETE", "FAILED", "IN_PROGRESS"], Field(description="How the step went")],
    explanation: Annotated[str, Field(description="Why: what was done, or what stood in the way")] = "",
) -> str:
    """An agent's way to end a step: COMPLETE or FAILED, with why."""
    if status == "FAILED":
        raise ToolFailure(explanation or "the agent reported the objective as failed")
    return f"{status}: {explanation}".rstrip(": ")


@tool(name="runTrail", groups=["core"])
async def run_trail(
    ctx: ToolContext, path: Annotated[str, Field(description="The trail file, relative to this trail")]
) -> str:
    """Run another trail file's steps inline (shared setup); the path is relative to this trail."""
    if ctx.run_trail is None:
        raise ToolFailure("runTrail needs a trail runner, and this call has none")
    return await ctx.run_trail(path)


CORE_TOOLS = (
    tap,
    assert_visible,
    wait,
    wait_for_change,
    take_snapshot,
    assert_equals,
    assert_not_equals,
    assert_math,
    remember_text,
    dump_memory,
    objective_status,
    run_trail,
)


# -- helpers ---------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value).strip()


def legacy_selector_for(ctx: ToolContext, selector: ElementSelector | None) -> Any:
    """A legacy selector as this device reads it: mobile devices match it as it is (all its
    fields); the web needs a nodeSelector."""
    return selector if ctx.device.platform in ("android", "ios") else _legacy_as_web(selector)


def _legacy_as_web(selector: ElementSelector | None) -> NodeSelector | None:
    """A legacy (Maestro-style) selector read on a web page: ``css`` is CSS, ``textRegex`` the
    accessible name, a plain ``idRegex`` the element id. Anything else has no web meaning."""
    if selector is None:
        return None
    fields = selector.compact()
    unsupported = sorted(set(fields) - {"css", "textRegex", "idRegex"})
    if unsupported:
        raise UsageError(
            f"a legacy selector with {', '.join(unsupported)} cannot be used on the web; "
            "use a nodeSelector with a web: block"
        )
    block: dict[str, Any] = {}
    if selector.textRegex:
        block["ariaNameRegex"] = selector.textRegex
    css = [f":is({selector.css})"] if selector.css else []  # all fields must hold, as on a phone
    if selector.idRegex:
        if not re.fullmatch(r"[A-Za-z][\w:.-]*", selector.idRegex):
            raise UsageError(f"idRegex {selector.idRegex!r} is a pattern; on the web use a nodeSelector")
        css.append(f'[id="{selector.idRegex}"]')
    if css:
        block["cssSelector"] = "".join(css)
    return NodeSelector.model_validate({"web": block}) if block else None


_OPERATORS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


#: seconds an expression may take to evaluate (each node is visited once, so this is a backstop)
EXPRESSION_SECONDS = 1.0


def _evaluate(expression: str) -> float:
    """The value of an arithmetic expression. Bounded: at most
    :data:`~trailblaze.core.limits.EXPRESSION_CHARS` characters, each operation evaluated once (on
    floats, so no number grows without bound), within :data:`EXPRESSION_SECONDS`."""
    bound = limits.EXPRESSION_CHARS.get_int()
    if len(expression) > bound:
        raise ToolFailure(
            f"the expression has {len(expression)} characters, more than the limit of {bound} "
            f"({limits.EXPRESSION_CHARS.env})"
        )
    tree = ast.parse(expression.replace(",", ""), mode="eval")
    deadline = time.monotonic() + EXPRESSION_SECONDS

    def visit(node: ast.AST) -> float:
        if time.monotonic() > deadline:
            raise ToolFailure(f"the expression took longer than {EXPRESSION_SECONDS:g}s to evaluate")
        if isinstance(node, ast.Expression):
            return visit(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = visit(node.left), visit(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 100:
                raise ValueError("exponent too large")
            result = _OPERATORS[type(node.op)](left, right)
            if isinstance(result, complex):  # (-8) ** 0.5
                raise ValueError("the result is not a real number")
            return result
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](visit(node.operand))
        raise ValueError(f"only numbers and + - * / // % ** are allowed, found {type(node).__name__}")

    try:
        return visit(tree)
    except RecursionError:
        raise ToolFailure("the expression is nested too deeply") from None
