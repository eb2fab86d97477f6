"""A device for callback tests that need no browser: the Commands interface over a fixed screen."""

from __future__ import annotations

from typing import Any

from trailblaze.api.driver import Device
from trailblaze.core.errors import ToolFailure
from trailblaze.device.commands import DeviceInfo, QueryOnlyCommands, ScreenState, ViewNode, action, query
from trailblaze.tools.model import ToolCall, ToolContext, ToolImplementation, ToolMetadata, ToolOutcome, ToolSpec


class PaperDevice(Device):
    """Shows ``texts``; records the actions it is asked to perform."""

    def __init__(self, device_id: str, texts: list[str]) -> None:
        self.device = DeviceInfo(device_id, "web", "paper", 100, 200)
        self.screen = ViewNode(class_name="root", children=[ViewNode(text=t, id=f"id-{t}") for t in texts])
        self.actions: list[tuple[str, Any]] = []

    async def find(self, *, text: str | None = None, id: str | None = None, selector: Any = None) -> list[Any]:
        return [n for n in self.screen.walk() if n.text and (text in (None, n.text)) and (id in (None, n.id))]

    @action
    async def tap(
        self, text: str | None = None, id: str | None = None, index: int | None = None, selector: Any = None
    ) -> None:
        if not await self.find(text=text, id=id):
            raise ToolFailure(f"nothing to tap with text {text!r}")
        self.actions.append(("tap", text))

    @action
    async def navigate(self, url: str) -> None:
        self.actions.append(("navigate", url))

    @query
    async def view_hierarchy(self) -> ViewNode:
        return self.screen

    @query
    async def capture_screen(self) -> ScreenState:
        return ScreenState(b"\x89PNG-not-really", self.screen, 100, 200, url="paper://screen")

    @query
    async def get_element_text(self, id: str | None = None, selector: Any = None) -> str | None:
        found = await self.find(id=id)
        return found[0].text if found else None


class _Nothing(ToolImplementation):
    def validate(self, args: Any) -> Any:
        return args

    async def invoke(self, ctx: ToolContext, args: Any) -> ToolOutcome:
        return ToolOutcome()


def tool_context(device: PaperDevice, invocation_id: str, *, delegating: bool = False, name: str = "t") -> ToolContext:
    spec = ToolSpec(name, "", {"type": "object"}, ToolMetadata(delegating=delegating), _Nothing(), source="mcp:test")
    return ToolContext(
        commands=QueryOnlyCommands(device, name) if delegating else device,
        driver=device,
        device=device.device,
        memory={},
        session_id="sess-test",
        invocation_id=invocation_id,
        tool=spec,
        call=ToolCall(name),
    )
