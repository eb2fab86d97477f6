"""Run Maestro commands on a mobile device, with Maestro's meaning for each.

Everything goes through the device's own commands (:class:`~trailblaze.drivers.mobile.device.MobileDevice`)
and its selector engine, so waiting, settling and failure messages are those of every other
mobile tool. Where Maestro and this project differ, the difference is stated here:

* lookups (``tapOn``, ``assertVisible``…) wait up to the step's timeout, not Maestro's 17 s
  (those of an ``optional: true`` command at most 7 s, as Maestro's);
* ``eraseText`` without a count clears the field (Maestro erases 50 characters);
* ``scrollUntilVisible`` stops when the element is on screen (``visibilityPercentage`` and
  ``centerElement`` are accepted and not measured);
* ``copyTextFrom`` keeps the text for ``pasteText`` (Maestro's ``maestro.copiedText``) and also
  puts it on the device's clipboard when the device has one;
* ``takeScreenshot: name`` writes ``name.png`` (or ``.jpg``) to the run's artifacts folder, else
  next to the trail file.

A command marked ``optional: true`` that fails is noted and skipped, as in Maestro.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import string
import time
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.core.errors import ToolFailure, TrailblazeError
from trailblaze.core.pathnames import relative_path
from trailblaze.core.sourcefile import read_source
from trailblaze.drivers.maestro import arguments as m
from trailblaze.drivers.maestro.commands import Command
from trailblaze.drivers.maestro.javascript import Scripts, needs_javascript, truthy
from trailblaze.drivers.mobile.device import MobileDevice
from trailblaze.drivers.mobile.gestures import LONG_PRESS_MS, point_in
from trailblaze.tools.coretools import save_snapshot

if TYPE_CHECKING:
    from trailblaze.device.commands import ViewNode
    from trailblaze.tools.model import ToolContext

#: the pause between the taps of a double tap (Maestro's DEFAULT_REPEAT_DELAY)
REPEAT_DELAY_MS = 100
#: ``repeat: {while: …}`` without ``times`` stops failing after this many rounds, or once it
#: has gone on this many seconds (Maestro's own loop has no end)
MAX_WHILE_ROUNDS = 1000
MAX_WHILE_SECONDS = 300
#: the longest a lookup of an ``optional: true`` command waits (Maestro's 7 s)
OPTIONAL_LOOKUP_MS = 7000
#: how long ``waitForAnimationToEnd`` waits when no timeout is given (Maestro's default)
ANIMATION_TIMEOUT_MS = 15000
_FIRST_NAMES = ("Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Dennis", "Barbara", "Edsger", "Frances")
_LAST_NAMES = ("Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Dijkstra")


class MaestroRunner:
    """Runs parsed commands (:func:`trailblaze.drivers.maestro.commands.parse_commands`) on one device."""

    def __init__(self, ctx: ToolContext, device: MobileDevice) -> None:
        self.ctx = ctx
        self.device = device
        self.done: list[str] = []
        self._optional = False  # inside an ``optional: true`` command: lookups wait less
        self.scripts = Scripts(ctx.memory, device.device.platform, lambda: device.copied_text)

    @property
    def timeout_ms(self) -> int:
        wait = int(self.ctx.timeout * 1000)
        return min(wait, OPTIONAL_LOOKUP_MS) if self._optional else wait

    async def run(self, commands: list[Command]) -> list[str]:
        for command in commands:
            await self.run_one(command)
        return self.done

    async def run_one(self, command: Command) -> None:
        handler = getattr(self, f"_{command.name}")
        outer = self._optional
        self._optional = outer or command.optional
        try:
            command = await self._evaluated(command)
            note = await handler(command.args, command)
        except ToolFailure as exc:
            if command.optional:
                self.done.append(f"{command.describe()}: skipped (optional): {exc}")
                return
            at = getattr(command.args, "at", None)
            raise ToolFailure(f"Maestro {command.describe()}{f' ({at})' if at else ''}: {exc}") from None
        finally:
            self._optional = outer
        self.done.append(f"{command.describe()}: {note}" if note else command.describe())

    async def _evaluated(self, command: Command) -> Command:
        """``command`` with the ``${…}`` of its arguments worked out by JavaScript, now (those of
        its inner commands and conditions when they run or are checked)."""
        from trailblaze.drivers.maestro.commands import ARGUMENTS, JAVASCRIPT

        if command.name in JAVASCRIPT or not isinstance(command.args, m.Arguments):
            return command
        raw = command.args.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        later = {k: raw.pop(k) for k in ("commands", "when", "while", "vars", "at") if k in raw}
        if not needs_javascript(json.dumps(raw)):
            return command
        values = await self.scripts.values(raw, command.args.vars)
        try:
            args = ARGUMENTS[command.name].model_validate({**values, **later})
        except ValueError as exc:
            raise ToolFailure(f"with its ${{…}} worked out: {exc}") from None
        return Command(command.name, args, command.inner)

    # -- taps ---------------------------------------------------------------------------------------

    async def _tapOn(self, args: m.Selector, command: Command) -> str:
        return await self._tap(args, taps=args.repeat or 1, long_press=False)

    async def _doubleTapOn(self, args: m.Selector, command: Command) -> str:
        return await self._tap(args, taps=2, long_press=False)

    async def _longPressOn(self, args: m.Selector, command: Command) -> str:
        return await self._tap(args, taps=1, long_press=True)

    async def _tap(self, args: m.Selector, *, taps: int, long_press: bool) -> str:
        device = self.device
        duration = LONG_PRESS_MS if long_press else None
        if args.has_element:
            node = await device.locate(args.element(), timeout_ms=self.timeout_ms)
            x, y = point_in(node, _relative(args.point) if args.point else (0.5, 0.5))
            what = _summary(node)
        elif args.point is not None:
            x, y = self._screen_point(args.point)
            what = f"({x}, {y})"
        else:
            raise ToolFailure("give an element (text, id, …) or a point to tap")
        delay = (args.delay if args.delay is not None else REPEAT_DELAY_MS) / 1000

        def tap_repeatedly() -> None:
            for i in range(taps):
                if i:
                    time.sleep(delay)
                device.tap_at(x, y, duration)

        await device.act(tap_repeatedly)
        verb = "long-pressed" if long_press else ("double-tapped" if taps == 2 else "tapped")
        return f"{verb} {what}" + (f" {taps} times" if taps > 2 else "")

    def _screen_point(self, text: str) -> tuple[int, int]:
        x, y, relative = m.parse_point(text)
        info = self.device.device
        if relative:
            return int(info.width * x), int(info.height * y)
        return int(x), int(y)

    # -- keyboard -----------------------------------------------------------------------------------

    async def _inputText(self, args: m.InputText, command: Command) -> str:
        await self.device.input_text(args.text)
        return f"typed {len(args.text)} characters"

    async def _inputRandomText(self, args: m.InputRandom, command: Command) -> str:
        return await self._type_random("".join(random.choices(string.ascii_lowercase, k=args.length or 8)))

    async def _inputRandomNumber(self, args: m.InputRandom, command: Command) -> str:
        length = args.length or 8
        digits = random.choice("123456789") + "".join(random.choices(string.digits, k=length - 1))
        return await self._type_random(digits)

    async def _inputRandomEmail(self, args: m.NoArgs, command: Command) -> str:
        user = "".join(random.choices(string.ascii_lowercase, k=8))
        return await self._type_random(f"{user}@example.com")

    async def _inputRandomPersonName(self, args: m.NoArgs, command: Command) -> str:
        return await self._type_random(f"{random.choice(_FIRST_NAMES)} {random.choice(_LAST_NAMES)}")

    async def _type_random(self, text: str) -> str:
        await self.device.input_text(text)
        return f"typed {text!r}"

    async def _eraseText(self, args: m.EraseText, command: Command) -> str:
        await self.device.erase_text(args.charactersToErase)
        count = args.charactersToErase
        return "erased the field" if count is None else f"erased {count} characters"

    async def _hideKeyboard(self, args: m.NoArgs, command: Command) -> str:
        shown = await self.device.hide_keyboard()
        return "hid the keyboard" if shown else "no keyboard was shown"

    async def _pressKey(self, args: m.PressKey, command: Command) -> str:
        await self.device.act(self.device.press, args.key)
        return f"pressed {args.key}"

    async def _back(self, args: m.NoArgs, command: Command) -> str:
        await self.device.press_back()
        return "pressed back"

    async def _copyTextFrom(self, args: m.Selector, command: Command) -> str:
        node = await self.device.locate(args.element(), timeout_ms=self.timeout_ms)
        text = node.text if node.text is not None else node.description
        if text is None:
            raise ToolFailure(f"{_summary(node)} shows no text to copy")
        self.device.copied_text = text
        with contextlib.suppress(NotImplementedError):  # the copied text is still kept for pasteText
            await self.device.set_clipboard(text)
        return f"copied {text!r}"

    async def _pasteText(self, args: m.NoArgs, command: Command) -> str:
        text = self.device.copied_text
        if text is None:
            raise ToolFailure("nothing was copied yet (copyTextFrom comes first)")
        await self.device.input_text(text)
        return f"pasted {text!r}"

    # -- checks and waiting ---------------------------------------------------------------------------

    async def _assertVisible(self, args: m.Selector, command: Command) -> str:
        await self.device.assert_visible(selector=args.element(), timeout_ms=self.timeout_ms)
        return "visible"

    async def _assertNotVisible(self, args: m.Selector, command: Command) -> str:
        await self.device.assert_not_visible(selector=args.element(), timeout_ms=self.timeout_ms)
        return "not visible"

    async def _extendedWaitUntil(self, args: m.ExtendedWaitUntil, command: Command) -> str:
        timeout = m.timeout_ms(args.timeout, self.timeout_ms)
        if args.visible is not None:
            await self.device.assert_visible(selector=args.visible.element(), timeout_ms=timeout)
            return "visible"
        assert args.notVisible is not None
        await self.device.assert_not_visible(selector=args.notVisible.element(), timeout_ms=timeout)
        return "gone"

    async def _waitForAnimationToEnd(self, args: m.WaitForAnimationToEnd, command: Command) -> str:
        timeout = (args.timeout if args.timeout is not None else ANIMATION_TIMEOUT_MS) / 1000
        still = await self.device.wait_until_still(timeout)
        return "the screen is still" if still else f"still changing after {timeout:g}s"

    # -- scrolling and swiping ---------------------------------------------------------------------------

    async def _scroll(self, args: m.NoArgs, command: Command) -> str:
        await self.device.scroll("DOWN")
        return "scrolled down"

    async def _scrollUntilVisible(self, args: m.ScrollUntilVisible, command: Command) -> str:
        timeout = m.timeout_ms(args.timeout, 20000)
        node = await self.device.scroll_until_visible(args.element.element(), args.direction, timeout)
        return f"{_summary(node)} is visible"

    async def _swipe(self, args: m.Swipe, command: Command) -> str:
        device = self.device
        if args.start is not None and args.end is not None:
            begin, end = self._screen_point(args.start), self._screen_point(args.end)
            await device.act(device.swipe_between, begin, end, args.duration)
            return f"swiped from {begin} to {end}"
        assert args.direction is not None
        start = None
        if args.from_ is not None:
            start = await device.locate(args.from_.element(), timeout_ms=self.timeout_ms)
        await device.swipe(args.direction, args.duration, start=start)
        return f"swiped {args.direction.lower()}" + (f" on {_summary(start)}" if start is not None else "")

    # -- apps ---------------------------------------------------------------------------------------

    async def _launchApp(self, args: m.LaunchApp, command: Command) -> str:
        if args.clearState:
            mode = "REINSTALL"
        elif args.stopApp is False:
            mode = "RESUME"
        else:
            mode = "FORCE_RESTART"  # Maestro stops the app first unless told not to
        await self.device.launch_app(args.appId, mode, arguments=args.arguments, permissions=args.permissions)
        return f"launched {args.appId}"

    async def _stopApp(self, args: m.AppArgs, command: Command) -> str:
        await self.device.stop_app(args.appId)
        return f"stopped {args.appId}"

    _killApp = _stopApp

    async def _clearState(self, args: m.AppArgs, command: Command) -> str:
        await self.device.clear_app_data(args.appId)
        return f"cleared the data of {args.appId}"

    async def _openLink(self, args: m.OpenLink, command: Command) -> str:
        await self.device.open_url(args.link)
        return f"opened {args.link}"

    async def _setAirplaneMode(self, args: m.AirplaneMode, command: Command) -> str:
        on = await self.device.set_airplane_mode(args.value == "enabled")
        return f"airplane mode {'on' if on else 'off'}"

    async def _toggleAirplaneMode(self, args: m.NoArgs, command: Command) -> str:
        on = await self.device.set_airplane_mode(None)
        return f"airplane mode {'on' if on else 'off'}"

    async def _takeScreenshot(self, args: m.TakeScreenshot, command: Command) -> str:
        image, kind = await self.device.call(self.device.screenshot)
        folder = self.ctx.artifacts_dir or (self.ctx.trail_path.parent if self.ctx.trail_path else Path.cwd())
        *parents, name = relative_path(args.path, fallback="screenshot")  # below the folder, never outside it
        target = folder.joinpath(*parents, f"{name}.{'jpg' if kind == 'jpeg' else kind}")
        await asyncio.to_thread(save_snapshot, {target: image})
        return f"saved {target}"

    # -- flow control -----------------------------------------------------------------------------------

    # -- JavaScript -------------------------------------------------------------------------------------

    async def _evalScript(self, args: m.EvalScript, command: Command) -> str:
        if needs_javascript(args.script):
            await self.scripts.interpolate(args.script, args.vars)
        else:
            await self.scripts.run(args.script, args.vars)
        return "evaluated"

    async def _assertTrue(self, args: m.AssertTrue, command: Command) -> str:
        value = await self.scripts.interpolate(args.condition, args.vars)
        if not truthy(value):
            raise ToolFailure(f"{args.condition} is {value!r}, not true")
        return "true"

    async def _runScript(self, args: m.RunScript, command: Command) -> str:
        path = Path(args.file)
        if not path.is_absolute() and self.ctx.trail_path is not None and not path.exists():
            path = self.ctx.trail_path.parent / path
        try:
            code = await asyncio.to_thread(read_source, path)
        except (OSError, TrailblazeError) as exc:
            raise ToolFailure(f"cannot read the script {args.file}: {exc}") from None
        await self.scripts.run(code, {**(args.vars or {}), **args.env})
        return f"ran {args.file}"

    async def _runFlow(self, args: m.RunFlow, command: Command) -> str:
        if args.when is not None and not await self._holds(args.when):
            return "skipped (its when: condition does not hold)"
        for inner in command.inner:
            await self.run_one(inner)
        return f"ran {len(command.inner)} commands"

    async def _repeat(self, args: m.Repeat, command: Command) -> str:
        times = m.repeat_times(args.times) if args.times is not None else None
        rounds = 0
        deadline = time.monotonic() + MAX_WHILE_SECONDS
        while times is None or rounds < times:
            if args.while_ is not None and not await self._holds(args.while_):
                break
            if times is None and (rounds >= MAX_WHILE_ROUNDS or time.monotonic() > deadline):
                raise ToolFailure(
                    f"its while: condition still held after {rounds} rounds (a loop stops at "
                    f"{MAX_WHILE_ROUNDS} rounds or {MAX_WHILE_SECONDS} s)"
                )
            for inner in command.inner:
                await self.run_one(inner)
            rounds += 1
        return f"repeated {rounds} times"

    async def _retry(self, args: m.Retry, command: Command) -> str:
        retries = m.repeat_times(args.maxRetries)
        for attempt in range(retries + 1):
            try:
                for inner in command.inner:
                    await self.run_one(inner)
            except ToolFailure:
                if attempt == retries:
                    raise
                continue
            return f"passed on attempt {attempt + 1}"
        return ""  # pragma: no cover - the loop returns or raises

    async def _holds(self, condition: m.Condition) -> bool:
        if condition.true is not None and needs_javascript(condition.true):
            if not truthy(await self.scripts.interpolate(condition.true, condition.vars)):
                return False
        elif not condition.literal_holds:
            return False
        if condition.platform is not None and condition.platform != self.device.device.platform:
            return False
        if condition.visible is not None and not await self.device.is_visible(selector=condition.visible.element()):
            return False
        return condition.notVisible is None or not await self.device.is_visible(selector=condition.notVisible.element())


def _relative(text: str) -> tuple[float, float]:
    x, y, relative = m.parse_point(text)
    if not relative:
        raise ToolFailure(f"point {text!r} inside an element must be a percentage ('50%, 50%')")
    return x, y


def _summary(node: ViewNode | None) -> str:
    if node is None:
        return "the screen"
    label = node.text or node.description or node.id or ""
    kind = (node.class_name or "element").rsplit(".", 1)[-1].removeprefix("XCUIElementType")
    return f"{kind} {label!r}" if label else kind
