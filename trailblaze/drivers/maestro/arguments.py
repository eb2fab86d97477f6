"""Each Maestro command's arguments, read and checked field by field (pydantic models with
``extra="forbid"``, so a misspelt field is an error naming it), and the values Maestro writes as
text (timeouts, repeat counts, points). Which command takes which model is
:data:`trailblaze.drivers.maestro.commands.ARGUMENTS`.

Selectors are Maestro's (``text``, ``id``, ``index``, ``enabled``, ``checked``, ``selected``,
``focused``, ``below``/``above``/``leftOf``/``rightOf``, ``containsChild``, ``childOf``,
``containsDescendants``, ``traits``, ``width``/``height``/``tolerance``) and become a
:class:`~trailblaze.drivers.mobile.matching.MaestroSelector`: the mobile selector engine's legacy selector with
Maestro's matching rules (case-insensitive, whole-value regexes).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from trailblaze.core.limits import MAX_COUNT, MAX_GESTURE_MS, MAX_WAIT_SECONDS
from trailblaze.device.selectors import SizeSelector
from trailblaze.drivers.mobile.matching import MaestroSelector

#: Maestro's key names (KeyCode.description), matched case-insensitively
KEY_NAMES = {
    "enter": "ENTER",
    "backspace": "BACKSPACE",
    "back": "BACK",
    "home": "HOME",
    "tab": "TAB",
    "escape": "ESCAPE",
    "lock": "LOCK",
    "power": "POWER",
    "volume up": "VOLUME_UP",
    "volume down": "VOLUME_DOWN",
}
#: Maestro keys this project cannot press (TV remotes and inputs)
_MAESTRO_ONLY_KEYS = (
    "remote dpad up",
    "remote dpad down",
    "remote dpad left",
    "remote dpad right",
    "remote dpad center",
    "remote media play pause",
    "remote media stop",
    "remote media next",
    "remote media previous",
    "remote media rewind",
    "remote media fast forward",
    "remote system navigation up",
    "remote system navigation down",
    "remote button a",
    "remote button b",
    "remote menu",
    "tv input",
    "tv input hdmi 1",
    "tv input hdmi 2",
    "tv input hdmi 3",
)

#: the longest a Maestro timeout or pause may be, in milliseconds
MAX_WAIT_MS = MAX_WAIT_SECONDS * 1000


class Arguments(BaseModel):
    """What every command's arguments may carry: Maestro's ``label`` and ``optional``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    label: str | None = None
    optional: StrictBool = False
    #: where the command is written (``flows/login.yaml:12``), when trailblaze read it from a flow
    #: file and ran it inside another command (``runFlow``, ``repeat``): failure messages name it
    at: str | None = None
    #: the flow's variables, for the command's JavaScript (set when trailblaze reads a flow file)
    vars: dict[str, str] | None = None


class Selector(Arguments):
    """Maestro's element selector (``YamlElementSelector``), with the tap options it carries."""

    text: str | None = None
    id: str | None = None
    index: int | str | None = None
    enabled: StrictBool | None = None
    selected: StrictBool | None = None
    checked: StrictBool | None = None
    focused: StrictBool | None = None
    width: int | None = None
    height: int | None = None
    tolerance: int | None = None
    traits: str | list[str] | None = None
    below: SelectorArg | None = None
    above: SelectorArg | None = None
    leftOf: SelectorArg | None = None
    rightOf: SelectorArg | None = None
    containsChild: SelectorArg | None = None
    childOf: SelectorArg | None = None
    containsDescendants: list[SelectorArg] | None = None
    point: str | None = None
    start: str | None = None
    end: str | None = None
    repeat: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    delay: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)
    retryTapIfNoChange: StrictBool | None = None
    waitUntilVisible: StrictBool | None = None
    waitToSettleTimeoutMs: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"text": str(value)} if isinstance(value, str | int | float) and not isinstance(value, bool) else value

    @property
    def has_element(self) -> bool:
        fields = ("text", "id", "index", "enabled", "selected", "checked", "focused", "width", "height", "traits")
        relations = ("below", "above", "leftOf", "rightOf", "containsChild", "childOf", "containsDescendants")
        return any(getattr(self, f) is not None for f in (*fields, *relations))

    def element(self) -> MaestroSelector:
        """This selector for the mobile selector engine (Maestro's matching rules)."""
        size = None
        if self.width is not None or self.height is not None:
            size = SizeSelector(width=self.width, height=self.height, tolerance=self.tolerance)
        traits = self.traits.split(",") if isinstance(self.traits, str) else self.traits
        relations: dict[str, Any] = {
            name: getattr(self, name).element()
            for name in ("below", "above", "leftOf", "rightOf", "containsChild", "childOf")
            if getattr(self, name) is not None
        }
        if self.containsDescendants is not None:
            relations["containsDescendants"] = [s.element() for s in self.containsDescendants]
        return MaestroSelector(
            textRegex=self.text,
            idRegex=self.id,
            index=self.index,
            enabled=self.enabled,
            selected=self.selected,
            checked=self.checked,
            focused=self.focused,
            size=size,
            traits=[t.strip() for t in traits] if traits else None,
            **relations,
        )


SelectorArg = Selector


class InputText(Arguments):
    text: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return {"text": "true" if value else "false"}
        return {"text": str(value)} if isinstance(value, str | int | float) else value


class InputRandom(Arguments):
    length: int | None = Field(default=None, ge=1, le=MAX_COUNT)


class EraseText(Arguments):
    charactersToErase: int | None = Field(default=None, ge=0, le=MAX_COUNT)

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"charactersToErase": value} if isinstance(value, int) and not isinstance(value, bool) else value


class NoArgs(Arguments):
    """Commands without arguments (``back``, ``hideKeyboard``, ``pasteText``, ``scroll``)."""


class PressKey(Arguments):
    key: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"key": value} if isinstance(value, str) else value

    @field_validator("key")
    @classmethod
    def _known(cls, value: str) -> str:
        name = value.strip().lower()
        if name in _MAESTRO_ONLY_KEYS:
            raise ValueError(f"the key {value!r} (a TV remote's) cannot be pressed here")
        if name not in KEY_NAMES:
            known = ", ".join(k.title() for k in KEY_NAMES)
            raise ValueError(f"unknown key name {value!r} (known: {known})")
        return KEY_NAMES[name]


class Condition(Arguments):
    platform: str | None = None
    visible: Selector | None = None
    notVisible: Selector | None = None
    true: str | None = None

    @field_validator("true", mode="before")
    @classmethod
    def _no_script(cls, value: Any) -> Any:
        from trailblaze.drivers.maestro.javascript import NEEDS_NODE, needs_javascript, node

        if isinstance(value, bool | int | float):
            return str(value).lower()
        if isinstance(value, str) and needs_javascript(value) and node() is None:
            raise ValueError(f"a 'true:' condition with ${{…}} cannot be checked here: {NEEDS_NODE}")
        return value

    @property
    def literal_holds(self) -> bool:
        """Whether a ``true:`` value holds, by JavaScript's truthiness of the text Maestro
        hands it (``false``, ``0``, ``null``, ``undefined`` and blank do not)."""
        return self.true is None or self.true.strip() not in ("", "false", "0", "null", "undefined")

    @field_validator("platform")
    @classmethod
    def _platform(cls, value: str | None) -> str | None:
        if value is not None and value.lower() not in ("android", "ios", "web"):
            raise ValueError(f"unknown platform {value!r} (Android, iOS or Web)")
        return value.lower() if value else value


class ExtendedWaitUntil(Arguments):
    visible: Selector | None = None
    notVisible: Selector | None = None
    timeout: int | str | None = None

    @model_validator(mode="after")
    def _one(self) -> ExtendedWaitUntil:
        if (self.visible is None) == (self.notVisible is None):
            raise ValueError("extendedWaitUntil needs one of visible: or notVisible:")
        timeout_ms(self.timeout)
        return self


class WaitForAnimationToEnd(Arguments):
    timeout: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)


class ScrollUntilVisible(Arguments):
    element: Selector
    direction: Literal["UP", "DOWN", "LEFT", "RIGHT"] = "DOWN"
    timeout: int | str = 20000
    speed: int | str = 40
    visibilityPercentage: int = Field(default=100, ge=0, le=100)
    centerElement: StrictBool = False
    waitToSettleTimeoutMs: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)

    @field_validator("direction", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value


class Swipe(Arguments):
    direction: Literal["UP", "DOWN", "LEFT", "RIGHT"] | None = None
    start: str | None = None
    end: str | None = None
    from_: Selector | None = Field(default=None, alias="from")
    duration: int = Field(default=400, ge=0, le=MAX_GESTURE_MS)
    waitToSettleTimeoutMs: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)

    @field_validator("direction", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _shape(self) -> Swipe:
        if self.start is not None or self.end is not None:
            if self.direction is not None:
                raise ValueError("a swipe takes direction or start/end, not both")
            if self.start is None or self.end is None:
                raise ValueError("a swipe with coordinates needs both start and end")
            relative = ("%" in self.start, "%" in self.end)
            if relative[0] != relative[1]:
                raise ValueError("start and end must both be percentages or both be points")
            parse_point(self.start), parse_point(self.end)
        elif self.direction is None:
            raise ValueError("a swipe needs direction (UP, DOWN, LEFT, RIGHT) or start and end")
        return self


class LaunchApp(Arguments):
    appId: str
    clearState: StrictBool | None = None
    clearKeychain: StrictBool | None = None
    stopApp: StrictBool | None = None
    permissions: dict[str, str] | None = None
    arguments: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"appId": value}
        if isinstance(value, dict) and "url" in value and "appId" not in value:
            return {**{k: v for k, v in value.items() if k != "url"}, "appId": value["url"]}
        if value is None or (isinstance(value, dict) and "appId" not in value):
            raise ValueError("needs an appId (mobile_maestro runs outside a flow, so there is no default)")
        return value

    @field_validator("permissions")
    @classmethod
    def _permissions(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for name, state in (value or {}).items():
            if state.lower() not in ("allow", "deny", "unset"):
                raise ValueError(f"permission {name!r}: {state!r} is not allow, deny or unset")
        return value

    @field_validator("clearKeychain")
    @classmethod
    def _keychain(cls, value: bool | None) -> bool | None:
        if value:
            raise ValueError("clearKeychain: WebDriverAgent cannot clear the iOS keychain")
        return value


class AppArgs(Arguments):
    """``stopApp``, ``killApp``, ``clearState``: the app to act on."""

    appId: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"appId": value}
        if value is None or (isinstance(value, dict) and "appId" not in value):
            raise ValueError("needs an appId (mobile_maestro runs outside a flow, so there is no default)")
        return value


class OpenLink(Arguments):
    link: str
    browser: StrictBool = False
    autoVerify: StrictBool = False

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"link": value} if isinstance(value, str) else value


class TakeScreenshot(Arguments):
    path: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value


class EvalScript(Arguments):
    """``evalScript: ${output.count = 1}``: JavaScript run for its effect on ``output``."""

    script: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"script": value} if isinstance(value, str) else value


class AssertTrue(Arguments):
    """``assertTrue: ${output.count > 1}``: fails unless the value is truthy."""

    condition: str

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        if isinstance(value, bool | int | float):
            return {"condition": str(value).lower()}
        return {"condition": value} if isinstance(value, str) else value


class RunScript(Arguments):
    """``runScript: script.js`` (or ``{file:, env:}``): a JavaScript file, run with ``env``."""

    file: str
    env: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"file": value} if isinstance(value, str) else value


class RunFlow(Arguments):
    when: Condition | None = None
    env: dict[str, str] = Field(default_factory=dict)
    commands: list[Any]

    @model_validator(mode="before")
    @classmethod
    def _inline_only(cls, value: Any) -> Any:
        if isinstance(value, str) or (isinstance(value, dict) and "file" in value):
            raise ValueError("runFlow with a flow file is not supported; write the commands inline (commands:)")
        return value


class Repeat(Arguments):
    times: int | str | None = None
    while_: Condition | None = Field(default=None, alias="while")
    commands: list[Any]

    @model_validator(mode="after")
    def _bounded(self) -> Repeat:
        if self.times is None and self.while_ is None:
            raise ValueError("repeat needs times: or while:")
        if self.times is not None:
            repeat_times(self.times)
        return self


class Retry(Arguments):
    maxRetries: int | str = 1
    commands: list[Any]

    @model_validator(mode="after")
    def _bounded(self) -> Retry:
        repeat_times(self.maxRetries)
        return self

    @model_validator(mode="before")
    @classmethod
    def _inline_only(cls, value: Any) -> Any:
        if isinstance(value, dict) and "file" in value:
            raise ValueError("retry with a flow file is not supported; write the commands inline (commands:)")
        return value


class AirplaneMode(Arguments):
    value: Literal["enabled", "disabled"]

    @model_validator(mode="before")
    @classmethod
    def _scalar(cls, value: Any) -> Any:
        return {"value": value.lower()} if isinstance(value, str) else value


# -- values Maestro writes as text -------------------------------------------------------------------


def timeout_ms(value: int | str | None, default: int | None = None) -> int | None:
    """A Maestro timeout (milliseconds, possibly written as a string)."""
    if value is None:
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"timeout {value!r} is not a number of milliseconds") from None
    if number < 0:
        raise ValueError(f"timeout {value!r} is negative")
    if number > MAX_WAIT_MS:
        raise ValueError(f"timeout {value!r} is more than {MAX_WAIT_MS} ms (an hour)")
    return number


def repeat_times(value: int | str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"repeat times {value!r} is not a whole number") from None
    if number < 0:
        raise ValueError(f"repeat times {value!r} is negative")
    if number > MAX_COUNT:
        raise ValueError(f"repeat times {value!r} is more than {MAX_COUNT}")
    return number


def parse_point(text: str) -> tuple[float, float, bool]:
    """``"50%, 90%"`` (relative: fractions) or ``"100, 200"`` (pixels/points); the flag says
    which."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a point ('x, y' or 'x%, y%')")
    relative = all(p.endswith("%") for p in parts)
    if any(p.endswith("%") for p in parts) and not relative:
        raise ValueError(f"{text!r} mixes a percentage and a coordinate")
    try:
        x, y = (float(p.rstrip("%")) for p in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a point ('x, y' or 'x%, y%')") from None
    if relative:
        if not (0 <= x <= 100 and 0 <= y <= 100):
            raise ValueError(f"{text!r}: percentages go from 0% to 100%")
        return x / 100, y / 100, True
    if x < 0 or y < 0:
        raise ValueError(f"{text!r}: coordinates are not negative")
    return x, y, False


Selector.model_rebuild()
Condition.model_rebuild()
