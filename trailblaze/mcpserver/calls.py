"""What every session tool works with: the call (:class:`Call`), its answer (:class:`Reply`), the
:class:`ToolError` a client sees as ``isError``, and the helpers they share: arguments, the
connected device, the screen a reply shows.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import TrailblazeError
from trailblaze.core.fileio import write_whole
from trailblaze.device.screen import render_screen
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver import replies
from trailblaze.mcpserver.settings import ScreenshotFormat
from trailblaze.mcpserver.state import ClientState
from trailblaze.mcpserver.trails import shown as _shown

if TYPE_CHECKING:
    from trailblaze.agents.sampling import Sampler
    from trailblaze.device.commands import ViewNode
    from trailblaze.mcpserver.device import DeviceSession


#: what a step's reply shows of the screen, and what ask shows at each verbosity
SUMMARY_LINES = 150
STANDARD_LINES = 1000
MAX_FULL_HIERARCHY = 200_000
MAX_TOOL_CALLS = 100
#: a reply repeats what the client sent (a question, a recorded call's arguments) up to this long
ECHO_CHARS = 300
#: what the cut-off note of a screen summary adds
MORE_OF_THE_SCREEN = ": ask(viewHierarchy=STANDARD) shows 1000 lines, FULL every element"


class ToolError(Exception):
    """The tool could not do what was asked; the message goes to the client as ``isError``."""


@dataclass(slots=True)
class Reply:
    data: dict[str, Any]
    #: the screen part of the reply (:mod:`.replies`): whole, what changed, or that nothing did
    text: str | None = None
    images: list[tuple[bytes, str]] = field(default_factory=list)
    error: bool = False


@dataclass(slots=True)
class Call:
    """One tool call: whose it is and what the server lets it do."""

    state: ClientState
    progress: Callable[[float, float | None, str], Awaitable[None]]
    tools_changed: Callable[[], Awaitable[None]]
    #: tells the client the list of resources changed (a trail file was written)
    resources_changed: Callable[[], Awaitable[None]]
    #: asks the client's LLM (MCP sampling); None when the client cannot sample
    sampler: Sampler | None = None
    sampling_tools: bool = False


Handler = Callable[[Call, dict[str, Any]], Awaitable[Reply]]
#: told how many calls an agent's step has made so far, and what the last one did
CallsMade = Callable[[int, str], Awaitable[None]]


def parse_args(model: type[A._Args], arguments: dict[str, Any]) -> Any:
    try:
        return A.parse(model, arguments)
    except ValueError as exc:
        raise ToolError(f"invalid arguments: {exc}") from None


async def connected_device(state: ClientState) -> DeviceSession:
    try:
        return await state.ensure_device()
    except TrailblazeError as exc:
        raise ToolError(f"cannot connect a device: {exc}") from None


async def attach_screen(
    state: ClientState,
    device: DeviceSession,
    reply: Reply,
    *,
    screenshot: bool,
    summary: bool = True,
    whole: bool = False,
) -> None:
    """Add the screen (and a screenshot when asked) to ``reply``: what changed since the client
    was last sent it, when that is shorter (an action's reply), or ``whole`` (an observation's)."""
    if device.session is None:
        return
    want_image = screenshot or state.settings.auto_include_screenshot
    fmt = state.settings.screenshot_format
    try:
        if want_image:
            captured = await device.capture()
            root, image = captured.hierarchy, captured.screenshot
        else:
            root, image = await device.screen(), None
    except Exception as exc:  # the reply still says what happened; the screen is extra
        reply.data["screen_error"] = f"{type(exc).__name__}: {exc}"
        return
    if summary and reply.text is None:
        shown = screen_summary(root)
        reply.text = replies.whole_screen(shown) if whole else replies.screen_update(state.last_screen, shown)
        state.last_screen = shown
    if image is None:
        return
    path = save_screenshot(state, image)
    reply.data["screenshot"] = _shown(state, path)
    if fmt is ScreenshotFormat.IMAGE_CONTENT:
        reply.images.append((image, "image/png"))
    elif fmt is ScreenshotFormat.BASE64_TEXT:
        reply.data["screenshot_base64"] = base64.b64encode(image).decode("ascii")


def screen_summary(screen: ViewNode) -> str:
    """The compact screen a reply shows; a cut one says how to see the rest."""
    return render_screen(screen, SUMMARY_LINES, more=MORE_OF_THE_SCREEN)


def save_screenshot(state: ClientState, image: bytes) -> Path:
    folder = state.artifacts_dir
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"screenshot-{len(state.artifacts) + 1:03d}.png"
    write_whole(path, image)
    state.artifacts.append(path)
    return path


def jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)
