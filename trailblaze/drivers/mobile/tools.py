"""Upstream Trailblaze's mobile tools, with its names and parameters (tools.md, "Mobile").

They run on any driver whose device is a :class:`~trailblaze.drivers.mobile.device.MobileDevice`
(``android-uiautomator2``, ``ios-wda``). Targets are upstream's legacy ``selector:`` or its
``nodeSelector:`` (see :mod:`trailblaze.drivers.mobile.matching` for what they match); every action and check
waits for its target up to the step's timeout, or the call's ``timeoutMs`` — which the tapping
tools accept as this project's addition, as on the web.

Text parameters (``text``, ``swipeOnElementText``…) match like a selector's ``textRegex``: the
whole text, hint or accessibility text, as a regular expression or literally. The checks that
something is not visible, which the web has too, are :mod:`trailblaze.drivers.checks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import Field

from trailblaze.core.errors import ToolFailure
from trailblaze.device.selectors import ElementSelector, NodeSelector
from trailblaze.drivers.mobile.matching import describe, text_selector
from trailblaze.tools import bounds
from trailblaze.tools.authoring import tool
from trailblaze.tools.bounds import Count, Pixels
from trailblaze.tools.model import ToolContext

if TYPE_CHECKING:
    from trailblaze.device.commands import ViewNode
    from trailblaze.drivers.android.device import AndroidDevice
    from trailblaze.drivers.mobile.device import MobileDevice

MOBILE = ["android", "ios"]
Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
Key = Literal["BACK", "ENTER", "HOME", "BACKSPACE", "TAB", "ESCAPE"]
LaunchMode = Literal["REINSTALL", "RESUME", "FORCE_RESTART"]
AppId = Annotated[str, Field(description="The app's id: its Android package or iOS bundle id")]
WaitMs = Annotated[
    bounds.WaitMs | None, Field(description="How long to wait, in milliseconds (default: the trail's timeout)")
]
# What upstream's mobile tools take again and again, described once (`trailblaze tools NAME`, editors' hover)
ShownText = Annotated[
    str, Field(description="The text the element shows: its whole text, as a regular expression or literally")
]
AccessibilityText = Annotated[
    str, Field(description="The element's accessibility text (Android content description, iOS label), whole")
]
AlsoAccessibilityText = Annotated[
    str | None, Field(description="Also require this accessibility text (content description, label)")
]
AlsoId = Annotated[
    str | None, Field(description="Also require this resource id (Android) or accessibility identifier (iOS)")
]
MatchIndex = Annotated[Count, Field(description="Which of the matching elements, counting from 0 in screen order")]
OptionalMatchIndex = Annotated[
    Count | None, Field(description="Which of the matching elements, counting from 0 in screen order")
]
Enabled = Annotated[bool | None, Field(description="Only an element that is enabled (true) or disabled (false)")]
Selected = Annotated[bool | None, Field(description="Only an element that is selected (true) or not (false)")]
LongPress = Annotated[bool, Field(description="Press and hold instead of a tap")]
LegacySelector = Annotated[
    ElementSelector | None,
    Field(description="The element as a legacy (Maestro-style) selector; give this or nodeSelector"),
]
NodeTarget = Annotated[NodeSelector | None, Field(description="The element as a nodeSelector; give this or selector")]


def device(ctx: ToolContext) -> MobileDevice:
    from trailblaze.drivers.mobile.device import MobileDevice

    found = ctx.driver
    if not isinstance(found, MobileDevice):
        raise NotImplementedError(f"{ctx.tool.name} needs a mobile driver (android-uiautomator2, ios-wda, appium)")
    return found


def summary(node: ViewNode) -> str:
    label = node.text or node.description or node.id or ""
    kind = (node.class_name or "element").rsplit(".", 1)[-1]
    return f"{kind} {label!r}" if label else kind


def one_of(selector: ElementSelector | None, nodeSelector: NodeSelector | None) -> ElementSelector | NodeSelector:
    """Upstream tools take either shape; a ``nodeSelector`` wins when both are given."""
    if nodeSelector is not None:
        return nodeSelector
    if selector is not None:
        return selector
    raise ToolFailure("give a selector or a nodeSelector")


async def tap_target(
    ctx: ToolContext,
    target: ElementSelector | NodeSelector,
    *,
    long_press: bool = False,
    relative_point: tuple[float, float] = (0.5, 0.5),
    timeout_ms: int | None = None,
) -> str:
    from trailblaze.drivers.mobile.gestures import point_in

    node = await device(ctx).tap_element(
        target, long_press=long_press, relative_point=relative_point, timeout_ms=wait_ms(ctx, timeout_ms)
    )
    x, y = point_in(node, relative_point)
    verb = "long-pressed" if long_press else "tapped"
    return f"{verb} {summary(node)} at ({x}, {y})"


def wait_ms(ctx: ToolContext, timeout_ms: int | None) -> int:
    """The call's ``timeoutMs``, else the step's timeout."""
    return int(ctx.timeout * 1000) if timeout_ms is None else timeout_ms


# -- apps ----------------------------------------------------------------------------------------------


@tool(name="launchApp", platforms=MOBILE)
async def launch_app(
    ctx: ToolContext,
    appId: AppId,
    launchMode: Annotated[
        LaunchMode, Field(description="REINSTALL (fresh data), RESUME (as it was) or FORCE_RESTART")
    ] = "REINSTALL",
) -> str:
    """Open an app as if from the launcher. REINSTALL (default) starts it as if freshly installed
    (its data cleared), FORCE_RESTART stops it first, RESUME brings it back where it was."""
    mobile = device(ctx)
    await mobile.act(mobile.start_app, appId, launchMode, ctx.timeout)
    if launchMode == "REINSTALL" and mobile.device.platform == "ios":
        return f"restarted {appId} (WebDriverAgent cannot clear app data on iOS)"
    return f"launched {appId} ({launchMode})"


@tool(name="stopApp", platforms=MOBILE)
async def stop_app(ctx: ToolContext, appId: AppId) -> str:
    """Stop (force-stop) an app."""
    await device(ctx).stop_app(appId)
    return f"stopped {appId}"


@tool(name="mobile_clearAppData", platforms=MOBILE, exposed_to_llm=False)
async def clear_app_data(ctx: ToolContext, appId: AppId) -> str:
    """Clear an app's data (it is stopped too), as after a fresh install."""
    await device(ctx).clear_app_data(appId)
    return f"cleared the data of {appId}"


@tool(name="openUrl", platforms=MOBILE)
async def open_url(ctx: ToolContext, url: Annotated[str, Field(description="The URL or deep link to open")]) -> str:
    """Open a deep link (or web URL) as the system would."""
    await device(ctx).open_url(url)
    return f"opened {url}"


# -- tapping ---------------------------------------------------------------------------------------------


@tool(name="tapOnElementWithText", platforms=MOBILE, exposed_to_llm=False)
async def tap_on_element_with_text(
    ctx: ToolContext,
    text: ShownText,
    index: MatchIndex = 0,
    id: AlsoId = None,
    enabled: Enabled = None,
    selected: Selected = None,
    timeoutMs: WaitMs = None,
) -> str:
    """Tap the element showing this text (a whole-text regex or literal)."""
    target = text_selector(text, id, index, enabled=enabled, selected=selected)
    return await tap_target(ctx, target, timeout_ms=timeoutMs)


@tool(name="tapOnElementWithAccessibilityText", platforms=MOBILE, exposed_to_llm=False)
async def tap_on_element_with_accessibility_text(
    ctx: ToolContext,
    accessibilityText: AccessibilityText,
    id: AlsoId = None,
    index: OptionalMatchIndex = None,
    timeoutMs: WaitMs = None,
) -> str:
    """Tap the element with this accessibility text (content description / label)."""
    target = text_selector(None, id, index, accessibility_text=accessibilityText)
    return await tap_target(ctx, target, timeout_ms=timeoutMs)


@tool(name="tapOnElementBySelector", platforms=MOBILE, exposed_to_llm=False)
async def tap_on_element_by_selector(
    ctx: ToolContext,
    selector: LegacySelector = None,
    nodeSelector: NodeTarget = None,
    longPress: LongPress = False,
    timeoutMs: WaitMs = None,
) -> str:
    """Tap the element a selector finds (legacy ``selector`` or ``nodeSelector``)."""
    return await tap_target(ctx, one_of(selector, nodeSelector), long_press=longPress, timeout_ms=timeoutMs)


@tool(name="tapOn", platforms=MOBILE, exposed_to_llm=False)
async def tap_on(
    ctx: ToolContext,
    selector: Annotated[NodeSelector, Field(description="The element, as a nodeSelector")],
    relativePoint: Annotated[
        str, Field(description="Where inside the element's box: 'X%,Y%' from its top left corner")
    ] = "50%,50%",
    longPress: LongPress = False,
    timeoutMs: WaitMs = None,
) -> str:
    """Tap a point inside the element a nodeSelector finds ("X%,Y%" of its box)."""
    from trailblaze.drivers.mobile.gestures import parse_relative_point

    point = parse_relative_point(relativePoint)
    return await tap_target(ctx, selector, long_press=longPress, relative_point=point, timeout_ms=timeoutMs)


@tool(name="tapOnPoint", platforms=MOBILE)
async def tap_on_point(
    ctx: ToolContext,
    x: Annotated[Pixels, Field(description="Pixels from the left of the screen")],
    y: Annotated[Pixels, Field(description="Pixels from the top of the screen")],
    longPress: Annotated[bool, Field(description="Press and hold instead of a tap")] = False,
) -> str:
    """Tap screen coordinates (pixels on Android, points on iOS)."""
    await device(ctx).tap_point(x, y, longPress)
    return f"{'long-pressed' if longPress else 'tapped'} ({x}, {y})"


@tool(name="longPressOnElementWithText", platforms=MOBILE, exposed_to_llm=False)
async def long_press_on_element_with_text(
    ctx: ToolContext, text: ShownText, id: AlsoId = None, index: OptionalMatchIndex = None, timeoutMs: WaitMs = None
) -> str:
    """Long-press the element showing this text."""
    return await tap_target(ctx, text_selector(text, id, index), long_press=True, timeout_ms=timeoutMs)


# -- keyboard ------------------------------------------------------------------------------------------------


@tool(name="inputText", platforms=MOBILE)
async def input_text(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The text to type into the focused field")],
    hideKeyboardAfter: Annotated[bool, Field(description="Put the keyboard away afterwards")] = True,
) -> str:
    """Type text into the focused field (tap the field first), then hide the keyboard."""
    mobile = device(ctx)
    await mobile.input_text(text)
    if hideKeyboardAfter:
        await mobile.hide_keyboard()
    return f"typed {len(text)} characters"


@tool(name="eraseText", platforms=MOBILE)
async def erase_text(
    ctx: ToolContext,
    charactersToErase: Annotated[Count | None, Field(description="How many characters (default: all)")] = None,
) -> str:
    """Erase characters before the cursor in the focused field; all of them when no number is given."""
    await device(ctx).erase_text(charactersToErase)
    return "erased all text" if charactersToErase is None else f"erased {charactersToErase} characters"


@tool(name="clearText", platforms=MOBILE)
async def clear_text(ctx: ToolContext) -> str:
    """Clear the focused field."""
    await device(ctx).erase_text(None)
    return "cleared the field"


@tool(name="hideKeyboard", platforms=MOBILE)
async def hide_keyboard(ctx: ToolContext) -> str:
    """Hide the on-screen keyboard (nothing happens when none is shown)."""
    shown = await device(ctx).hide_keyboard()
    return "hid the keyboard" if shown else "no keyboard was shown"


@tool(name="pressBack", platforms=MOBILE)
async def press_back(ctx: ToolContext) -> str:
    """Press the system back button (iOS: the back swipe from the left edge)."""
    await device(ctx).press_back()
    return "pressed back"


@tool(name="pressKey", platforms=MOBILE)
async def press_key(ctx: ToolContext, keyCode: Annotated[Key, Field(description="The key")]) -> str:
    """Press a key: BACK, ENTER, HOME, BACKSPACE, TAB or ESCAPE."""
    await device(ctx).press_key(keyCode)
    return f"pressed {keyCode}"


# -- gestures -------------------------------------------------------------------------------------------------


@tool(name="swipe", platforms=MOBILE)
async def swipe(
    ctx: ToolContext,
    direction: Annotated[Direction, Field(description="Which way the finger moves")] = "DOWN",
    swipeOnElementText: Annotated[
        str | None, Field(description="Start on the element showing this text (default: the screen's middle)")
    ] = None,
) -> str:
    """Swipe the finger in a direction (UP moves the content up), across the middle of the
    screen or starting on the element showing ``swipeOnElementText``."""
    mobile = device(ctx)
    start = None
    if swipeOnElementText is not None:
        start = await mobile.locate(text_selector(swipeOnElementText), timeout_ms=wait_ms(ctx, None))
    await mobile.swipe(direction, start=start)
    where = f" on {summary(start)}" if start is not None else ""
    return f"swiped {direction.lower()}{where}"


@tool(name="scrollUntilTextIsVisible", platforms=MOBILE)
async def scroll_until_text_is_visible(
    ctx: ToolContext,
    text: Annotated[str | None, Field(description="The text to scroll to")] = None,
    textRegex: Annotated[str | None, Field(description="Instead of text, a whole-text regex")] = None,
    id: Annotated[str | None, Field(description="The element's resource id, to tell matches apart")] = None,
    index: Annotated[Count, Field(description="Which match, counting from 0")] = 0,
    direction: Annotated[Direction, Field(description="Which way to scroll")] = "DOWN",
    timeoutMs: WaitMs = None,
) -> str:
    """Scroll in ``direction`` (DOWN reveals what is below) until the text is on screen."""
    wanted = textRegex if textRegex is not None else text
    if wanted is None:
        raise ToolFailure("give text or textRegex")
    node = await device(ctx).scroll_until_visible(text_selector(wanted, id, index), direction, wait_ms(ctx, timeoutMs))
    return f"{summary(node)} is visible"


# -- checks --------------------------------------------------------------------------------------------------


@tool(name="assertVisibleWithText", platforms=MOBILE, verification=True, groups=["verification"], exposed_to_llm=False)
async def assert_visible_with_text(
    ctx: ToolContext, text: ShownText, index: MatchIndex = 0, id: AlsoId = None, timeoutMs: WaitMs = None
) -> str:
    """Check that an element showing this text is visible."""
    target = text_selector(text, id, index)
    await device(ctx).assert_visible(selector=target, timeout_ms=wait_ms(ctx, timeoutMs))
    return f"{describe(target)} is visible"


@tool(
    name="assertVisibleBySelector", platforms=MOBILE, verification=True, groups=["verification"], exposed_to_llm=False
)
async def assert_visible_by_selector(
    ctx: ToolContext,
    nodeSelector: NodeTarget = None,
    selector: LegacySelector = None,
    timeoutMs: WaitMs = None,
    expectedText: Annotated[
        str | None, Field(description="Also check the element shows this text (whole, regex or literal)")
    ] = None,
) -> str:
    """Check that the element a selector finds is visible (and shows ``expectedText``)."""
    target = one_of(selector, nodeSelector)
    await device(ctx).assert_visible(selector=target, timeout_ms=wait_ms(ctx, timeoutMs), expected_text=expectedText)
    return f"{describe(target)} is visible"


# -- Android only ------------------------------------------------------------------------------------------------


def _android(ctx: ToolContext) -> AndroidDevice:
    return cast("AndroidDevice", ctx.driver)  # these tools are registered for the android platform only


@tool(name="android_adbShell", platforms=["android"], recordable=False, exposed_to_llm=False)
async def android_adb_shell(
    ctx: ToolContext,
    command: Annotated[list[str], Field(description='The command and its arguments, e.g. ["pm", "list", "packages"]')],
) -> dict[str, Any]:
    """Run a shell command on the device (``["pm", "list", "packages"]``); fails on a non-zero exit."""
    if not command:
        raise ToolFailure("android_adbShell needs a command")
    result: dict[str, Any] = await _android(ctx).adb_shell(command)
    if result["exitCode"] != 0:
        raise ToolFailure(f"`{' '.join(command)}` exited with {result['exitCode']}: {result['output'].strip()[:500]}")
    return result


@tool(name="android_grantPermissions", platforms=["android"], exposed_to_llm=False)
async def android_grant_permissions(
    ctx: ToolContext,
    appId: AppId,
    permissions: Annotated[
        list[str], Field(description="Runtime permissions' full names, e.g. android.permission.CAMERA")
    ],
) -> str:
    """Grant runtime permissions to an app (``android.permission.CAMERA``…)."""
    for permission in permissions:
        await _android(ctx).grant_permission(appId, permission)
    return f"granted {len(permissions)} permission(s) to {appId}"


MOBILE_TOOLS = (
    launch_app,
    stop_app,
    clear_app_data,
    open_url,
    tap_on_element_with_text,
    tap_on_element_with_accessibility_text,
    tap_on_element_by_selector,
    tap_on,
    tap_on_point,
    long_press_on_element_with_text,
    input_text,
    erase_text,
    clear_text,
    hide_keyboard,
    press_back,
    press_key,
    swipe,
    scroll_until_text_is_visible,
    assert_visible_with_text,
    assert_visible_by_selector,
)
ANDROID_TOOLS = (android_adb_shell, android_grant_permissions)
