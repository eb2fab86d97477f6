"""Upstream's mobile tools that upstream runs as Maestro commands, run the same way here: each
builds the Maestro command upstream builds and hands it to the Maestro runner, so matching
(Maestro's: case-insensitive) and waiting are those of ``mobile_maestro``. Declared by the tool
files in ``trailblaze/trailmaps/trailblaze/tools/``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from trailblaze.core.errors import ToolFailure
from trailblaze.drivers.mobile.tools import (
    MOBILE,
    AccessibilityText,
    AlsoAccessibilityText,
    AlsoId,
    Enabled,
    MatchIndex,
    Selected,
    device,
    summary,
)
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import Count, GestureMs, Pixels
from trailblaze.tools.model import Delegate, ToolContext
from trailblaze.tools.params import RequiredRef


async def run_maestro(ctx: ToolContext, command: dict[str, Any]) -> str:
    # Maestro's command models are built when a tool runs one, not when the tools are registered
    # (every command registers them: a third of a web run's own import time went to them)
    from trailblaze.drivers.maestro.commands import parse_command
    from trailblaze.drivers.maestro.interpreter import MaestroRunner

    try:
        parsed = parse_command(command)
    except ValueError as exc:
        raise ToolFailure(str(exc)) from None
    done = await MaestroRunner(ctx, device(ctx)).run([parsed])
    return done[-1]


def _selector(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


@tool(name="assertVisibleWithResourceId", platforms=MOBILE, verification=True, exposed_to_llm=False)
async def assert_visible_with_resource_id(
    ctx: ToolContext,
    resourceId: Annotated[str, Field(description="The resource id (Android) or accessibility identifier (iOS)")],
    accessibilityText: AlsoAccessibilityText = None,
    index: MatchIndex = 0,
    enabled: Enabled = None,
    selected: Selected = None,
) -> str:
    """Check that an element with this resource id is visible (waiting for it)."""
    selector = _selector(id=resourceId, text=accessibilityText, index=index or None, enabled=enabled, selected=selected)
    return await run_maestro(ctx, {"assertVisible": selector})


@tool(name="assertVisibleWithAccessibilityText", platforms=MOBILE, verification=True, exposed_to_llm=False)
async def assert_visible_with_accessibility_text(
    ctx: ToolContext,
    accessibilityText: AccessibilityText,
    id: AlsoId = None,
    index: MatchIndex = 0,
    enabled: Enabled = None,
    selected: Selected = None,
) -> str:
    """Check that an element with this accessibility text is visible (waiting for it)."""
    selector = _selector(text=accessibilityText, id=id, index=index or None, enabled=enabled, selected=selected)
    return await run_maestro(ctx, {"assertVisible": selector})


@tool(name="longPressElementWithAccessibilityText", platforms=MOBILE, exposed_to_llm=False)
async def long_press_element_with_accessibility_text(
    ctx: ToolContext,
    accessibilityText: AccessibilityText,
    id: AlsoId = None,
    index: Annotated[
        str | Count | None,
        Field(description="Which of the matching elements, counting from 0 (a number, or Maestro's text for one)"),
    ] = None,
    enabled: Enabled = None,
    selected: Selected = None,
) -> str:
    """Long-press the element with this accessibility text."""
    selector = _selector(text=accessibilityText, id=id, index=index, enabled=enabled, selected=selected)
    return await run_maestro(ctx, {"longPressOn": selector})


@tool(name="dragByPoints", platforms=MOBILE, exposed_to_llm=False)
async def drag_by_points(
    ctx: ToolContext,
    startX: Annotated[Pixels, Field(description="Where the drag starts: pixels from the left")],
    startY: Annotated[Pixels, Field(description="Where the drag starts: pixels from the top")],
    endX: Annotated[Pixels, Field(description="Where it ends: pixels from the left")],
    endY: Annotated[Pixels, Field(description="Where it ends: pixels from the top")],
    durationMs: Annotated[GestureMs, Field(description="How long the move takes, in milliseconds")] = 1000,
) -> str:
    """Drag from one screen point to another in one press-move-release gesture."""
    if durationMs <= 0:
        raise ToolFailure(f"durationMs must be positive, got {durationMs}")
    return await run_maestro(
        ctx, {"swipe": {"start": f"{startX}, {startY}", "end": f"{endX}, {endY}", "duration": durationMs}}
    )


@tool(name="swipeWithRelativeCoordinates", platforms=MOBILE, exposed_to_llm=False)
async def swipe_with_relative_coordinates(
    ctx: ToolContext,
    startRelative: Annotated[str, Field(description="Where the swipe starts: 'X%, Y%' of the screen (or element)")],
    endRelative: Annotated[str, Field(description="Where it ends: 'X%, Y%' of the screen (or element)")],
    swipeOnElementText: Annotated[
        str | None, Field(description="Swipe within the element showing this text instead of the screen")
    ] = None,
    durationMs: Annotated[
        GestureMs | None, Field(description="How long the swipe takes, in milliseconds (default: Maestro's)")
    ] = None,
) -> str:
    """Swipe between two points given as percentages ("50%, 90%") of the screen, or of the
    element showing ``swipeOnElementText``."""
    from trailblaze.drivers.maestro.arguments import parse_point
    from trailblaze.drivers.mobile.gestures import point_in
    from trailblaze.drivers.mobile.matching import MaestroSelector

    try:
        start, end = parse_point(startRelative), parse_point(endRelative)
    except ValueError as exc:
        raise ToolFailure(str(exc)) from None
    if not (start[2] and end[2]):
        raise ToolFailure("startRelative and endRelative are percentages ('50%, 90%')")
    mobile = device(ctx)
    if swipeOnElementText is None:
        info = mobile.device
        begin = (int(info.width * start[0]), int(info.height * start[1]))
        finish = (int(info.width * end[0]), int(info.height * end[1]))
        where = "the screen"
    else:
        node = await mobile.locate(MaestroSelector(textRegex=swipeOnElementText), timeout_ms=int(ctx.timeout * 1000))
        begin, finish = point_in(node, start[:2]), point_in(node, end[:2])
        where = summary(node)
    await mobile.act(mobile.swipe_between, begin, finish, durationMs or 400)
    return f"swiped on {where} from {begin} to {finish}"


@tool(name="dragTo", platforms=MOBILE, delegating=True)
async def drag_to(
    ctx: ToolContext,
    ref: RequiredRef,
    toRef: Annotated[str | None, Field(description="The ref of the element to drop it on")] = None,
    toX: Annotated[Pixels | None, Field(description="Instead of toRef, where to drop it: pixels from the left")] = None,
    toY: Annotated[Pixels | None, Field(description="Instead of toRef, where to drop it: pixels from the top")] = None,
    durationMs: Annotated[GestureMs, Field(description="How long the drag takes, in milliseconds")] = 1000,
) -> list[Delegate]:
    """Drag an element (its ref from the screen) onto another element (toRef) or to a screen
    point (toX, toY), slowly enough to register as a drag."""
    if toRef is not None and (toX is not None or toY is not None):
        raise ToolFailure("give the destination as toRef or as toX/toY, not both")
    if durationMs <= 0:
        raise ToolFailure(f"durationMs must be positive, got {durationMs}")
    start = await _center_of(ctx, ref)
    if toRef is not None:
        end = await _center_of(ctx, toRef)
    elif toX is not None and toY is not None:
        end = (toX, toY)
    else:
        raise ToolFailure("give a destination: toRef, or both toX and toY")
    args = {"startX": start[0], "startY": start[1], "endX": end[0], "endY": end[1], "durationMs": durationMs}
    return [Delegate("dragByPoints", args)]


async def _center_of(ctx: ToolContext, ref: str) -> tuple[int, int]:
    root = await ctx.commands.view_hierarchy()
    node = next((n for n in root.walk() if n.ref == ref), None)
    if node is None:
        raise ToolFailure(f"no element with ref {ref!r} on the current screen (the screen changed since)")
    if node.bounds is None:
        raise ToolFailure(f"the element {ref!r} has no position on screen")
    return node.bounds.center
