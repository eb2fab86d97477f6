"""Maestro commands as ``mobile_maestro: {commands: [...]}`` carries them, read and checked.

The accepted surface is Maestro's YAML reference (its ``YamlFluentCommand``): a command is a
one-key mapping (``- tapOn: Submit``, ``- swipe: {direction: UP}``) or a bare name for commands
without arguments (``- back``). Scalars work where Maestro accepts them (``tapOn: text``,
``inputText: 123``, ``eraseText: 5``, ``launchApp: com.app``). Arguments are checked field by
field (:mod:`trailblaze.drivers.maestro.arguments`), so a misspelt field is an error naming it; a
command this project does not run (``assertWithAI``, ``setLocation``, ``runFlow: file.yaml``…) is an
error naming the command. Both are found when the trail is validated, before any device is touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from trailblaze.drivers.maestro.arguments import (
    AirplaneMode,
    AppArgs,
    Arguments,
    AssertTrue,
    EraseText,
    EvalScript,
    ExtendedWaitUntil,
    InputRandom,
    InputText,
    LaunchApp,
    NoArgs,
    OpenLink,
    PressKey,
    Repeat,
    Retry,
    RunFlow,
    RunScript,
    ScrollUntilVisible,
    Selector,
    Swipe,
    TakeScreenshot,
    WaitForAnimationToEnd,
)

#: Maestro commands this project does not run, and why
UNSUPPORTED = {
    "assertWithAI": "it needs Maestro's AI service",
    "assertNoDefectsWithAI": "it needs Maestro's AI service",
    "extractTextWithAI": "it needs Maestro's AI service",
    "addMedia": "media cannot be pushed through the drivers here",
    "setLocation": "the drivers here cannot fake a location",
    "travel": "the drivers here cannot fake a location",
    "startRecording": "screen recording is not supported",
    "stopRecording": "screen recording is not supported",
    "clearKeychain": "WebDriverAgent cannot clear the iOS keychain",
    "openBrowser": "use openLink",
    "setOrientation": "rotation is not supported",
    "setPermissions": "use launchApp's permissions",
    "onFlowStart": "flow hooks belong to a flow file, which mobile_maestro does not have",
    "onFlowComplete": "flow hooks belong to a flow file, which mobile_maestro does not have",
}


#: command name → how its arguments are read
ARGUMENTS: dict[str, type[Arguments]] = {
    "tapOn": Selector,
    "doubleTapOn": Selector,
    "longPressOn": Selector,
    "assertVisible": Selector,
    "assertNotVisible": Selector,
    "copyTextFrom": Selector,
    "inputText": InputText,
    "inputRandomText": InputRandom,
    "inputRandomNumber": InputRandom,
    "inputRandomEmail": NoArgs,
    "inputRandomPersonName": NoArgs,
    "eraseText": EraseText,
    "back": NoArgs,
    "hideKeyboard": NoArgs,
    "pasteText": NoArgs,
    "scroll": NoArgs,
    "pressKey": PressKey,
    "extendedWaitUntil": ExtendedWaitUntil,
    "waitForAnimationToEnd": WaitForAnimationToEnd,
    "scrollUntilVisible": ScrollUntilVisible,
    "swipe": Swipe,
    "launchApp": LaunchApp,
    "stopApp": AppArgs,
    "killApp": AppArgs,
    "clearState": AppArgs,
    "openLink": OpenLink,
    "takeScreenshot": TakeScreenshot,
    "runFlow": RunFlow,
    "repeat": Repeat,
    "retry": Retry,
    "setAirplaneMode": AirplaneMode,
    "toggleAirplaneMode": NoArgs,
    "evalScript": EvalScript,
    "runScript": RunScript,
    "assertTrue": AssertTrue,
}
#: commands that run JavaScript: they need ``node`` (:mod:`trailblaze.drivers.maestro.javascript`)
JAVASCRIPT = frozenset({"evalScript", "runScript", "assertTrue"})
#: commands that only look at the screen: a list of them may be a ``verify:`` step's call
READ_ONLY = frozenset({"assertVisible", "assertNotVisible", "extendedWaitUntil", "waitForAnimationToEnd"})
#: commands that may be written as a bare name (``- back``)
_BARE = {name for name, model in ARGUMENTS.items() if model is NoArgs} | {
    "waitForAnimationToEnd",
    "eraseText",
    "inputRandomText",
    "inputRandomNumber",
}


@dataclass(frozen=True, slots=True)
class Command:
    """One Maestro command: its name, its checked arguments, and any inner commands."""

    name: str
    args: Any
    inner: tuple[Command, ...] = ()

    @property
    def optional(self) -> bool:
        return bool(getattr(self.args, "optional", False))

    def describe(self) -> str:
        return self.args.label or self.name if isinstance(self.args, Arguments) else self.name


def only_reads(raw: Any) -> bool:
    """Whether ``raw`` (a ``mobile_maestro`` call's ``commands``) is a list of commands that only
    look (``assertVisible``, ``extendedWaitUntil``…): it then checks, as a verification does."""
    if not isinstance(raw, list) or not raw:
        return False
    try:
        parsed = [parse_command(item) for item in raw]
    except ValueError:
        return False  # the call's own check says what is wrong
    return all(c.name in READ_ONLY and not c.inner for c in parsed)


def parse_command(raw: Any) -> Command:
    """Read one command; ValueError names the command and what is wrong with it."""
    if isinstance(raw, str):
        name, value = raw, None
        if name not in ARGUMENTS and name not in UNSUPPORTED:
            raise ValueError(_unknown(name))
        if name in ARGUMENTS and name not in _BARE:
            raise ValueError(f"{name} needs arguments ('- {name}: …')")
    elif isinstance(raw, dict) and len(raw) == 1:
        ((name, value),) = raw.items()
        if name == "action" and isinstance(value, str):  # Maestro's older `- action: back`
            name, value = value, None
    else:
        raise ValueError("a Maestro command is one name with its arguments ('- tapOn: {text: OK}' or '- back')")
    if name in UNSUPPORTED:
        raise ValueError(f"the Maestro command {name!r} is not supported here: {UNSUPPORTED[name]}")
    model = ARGUMENTS.get(name)
    if model is None:
        raise ValueError(_unknown(name))
    if name in JAVASCRIPT:
        from trailblaze.drivers.maestro.javascript import NEEDS_NODE, node

        if node() is None:
            raise ValueError(f"the Maestro command {name!r} cannot run here: {NEEDS_NODE}")
    try:
        args = model.model_validate({} if value is None else value)
    except ValidationError as exc:
        raise ValueError(f"{name}: {_problems(exc)}") from None
    inner: tuple[Command, ...] = ()
    if isinstance(args, RunFlow | Repeat | Retry):
        inner = tuple(parse_commands(args.commands, f"{name}.commands"))
    return Command(name, args, inner)


def parse_commands(raw: Any, where: str = "commands") -> list[Command]:
    if not isinstance(raw, list):
        raise ValueError(f"{where} must be a list of Maestro commands")
    commands = []
    for i, item in enumerate(raw):
        try:
            commands.append(parse_command(item))
        except ValueError as exc:
            if where == "commands":
                raise
            raise ValueError(f"{where}[{i}]: {exc}") from None
    return commands


def _unknown(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, [*ARGUMENTS, *UNSUPPORTED], n=1, cutoff=0.75)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown Maestro command {name!r}{hint}"


def _problems(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        loc = loc.replace("from_", "from").replace("while_", "while")
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        elif err["type"] == "missing":
            message = "required"
        else:
            message = str(err["msg"]).removeprefix("Value error, ")
            message = message[:1].lower() + message[1:]
        parts.append(f"{loc}: {message}" if loc else message)
    return "; ".join(parts)
