"""Maestro flow files, read as they are into trails.

A flow is a header document (``appId:`` or ``url:``, ``name``, ``tags``, ``env``,
``onFlowStart``, ``onFlowComplete``), ``---``, then a list of Maestro commands. :func:`read_flow`
turns one into a :class:`~trailblaze.trail.model.Trail`: one step per command (the header's
``onFlowStart`` commands first, ``onFlowComplete``'s last), each recorded as one call of
``mobile_maestro`` (Android and iOS) or ``web_maestro`` (a ``url:`` flow), so replay, reports,
shards and retries treat a flow as any trail.

What Maestro decides while a flow runs and that does not depend on the screen is decided here,
once, when the file is read — so ``trailblaze validate`` finds every problem before a device
opens, each at its ``file:line``:

* ``${NAME}`` (and ``${NAME || 'default'}``) takes its value from the header's ``env``, a
  ``runFlow``'s ``env``, ``-e NAME=VALUE`` and ``MAESTRO_*`` variables, as Maestro scopes them
  (the header's ``env`` is read last, so it wins, and may read ``-e`` values through ``||``);
  any other ``${…}`` is JavaScript, which is not run here: an error naming it;
* ``runFlow: file.yaml`` is read and its commands put inline (a cycle, a missing file or more
  than :data:`MAX_DEPTH` levels is an error naming the chain);
* ``launchApp``, ``stopApp``, ``killApp`` and ``clearState`` without an app take the header's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.core.errors import Location, TrailblazeError, UsageError
from trailblaze.core.sourcefile import read_source
from trailblaze.core.yamlsource import YamlDocument, load_text
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import Step, Trail, TrailConfig

#: a line that separates the header document from the commands
SEPARATOR = re.compile(r"^---[ \t]*(#.*)?$")
#: ``runFlow`` files inside ``runFlow`` files, at most
MAX_DEPTH = 16
#: commands a flow may grow to once its ``runFlow`` files are put inline
MAX_COMMANDS = 10_000
#: the drivers a flow runs on, by its header (``config.devices``: the first is the default)
APP_DEVICES = {"android": "android-uiautomator2", "ios": "ios-wda"}
WEB_DEVICES = {"web": "playwright-native"}
#: commands that take the header's app when they name none
_APP_COMMANDS = ("launchApp", "stopApp", "killApp", "clearState")
#: commands whose ``commands:`` are commands of their own
_NESTING = ("runFlow", "repeat", "retry")
_VARIABLE = re.compile(r"(?<!\\)\$\{([^$}]*)\}")
_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
_DEFAULT = re.compile(r"""^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\|\|\s*(?:'([^']*)'|"([^"]*)"|(-?\d+(?:\.\d+)?))\s*$""")
_FALSY = ("", "false", "0", "null", "undefined")
#: the field a command written as a scalar fills (``inputText: Ada`` is ``{text: Ada}``)
_SCALAR_FIELDS = frozenset({"text", "script", "condition", "file", "link", "appId", "path", "key"})
_LITERALS = frozenset({"true", "false", "null", "undefined", "NaN", "Infinity"})


class FlowError(UsageError):
    """A flow that cannot be read or run here (exit 3)."""


@dataclass(slots=True)
class FlowFile:
    """One flow file: its header and its commands, each with a way to say where it is."""

    path: Path
    header: dict[str, Any]
    commands: list[Any]
    header_doc: YamlDocument
    doc: YamlDocument

    @property
    def app(self) -> str | None:
        value = self.header.get("appId", self.header.get("url"))
        return value if isinstance(value, str) else None

    @property
    def is_web(self) -> bool:
        return "url" in self.header and "appId" not in self.header

    @property
    def name(self) -> str:
        name = self.header.get("name")
        return name if isinstance(name, str) and name.strip() else self.path.name.rsplit(".", 1)[0]

    @property
    def tags(self) -> list[str]:
        tags = self.header.get("tags")
        if isinstance(tags, str):
            return [tags]
        return [str(t) for t in tags] if isinstance(tags, list) else []

    def hook(self, name: str) -> tuple[list[Any], tuple[str | int, ...]]:
        """The commands of ``onFlowStart``/``onFlowComplete`` (a list, or ``{commands: […]}``)."""
        value = self.header.get(name)
        if isinstance(value, dict) and "commands" in value:
            return (value["commands"] if isinstance(value["commands"], list) else []), (name, "commands")
        return (value if isinstance(value, list) else []), (name,)


def split_flow(text: str) -> tuple[str, str] | None:
    """The header's text and the commands' text (lines before the header blanked, so every line
    keeps its number), or None when ``text`` has no ``---`` line after some content."""
    lines = text.splitlines(keepends=True)
    seen_content = False
    for i, line in enumerate(lines):
        if SEPARATOR.match(line.rstrip("\r\n")):
            if seen_content:
                return "".join(lines[:i]), "\n" * (i + 1) + "".join(lines[i + 1 :])
            continue
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            seen_content = True
    return None


def looks_like_flow(path: Path) -> bool:
    """Whether ``path`` is shaped like a Maestro flow: a YAML file whose header names an app or
    a URL, then ``---``, then a list of commands. Cheap enough to ask of every file in a folder;
    a file that cannot be read is not a flow (whoever reads it says why)."""
    name = path.name
    if not name.endswith((".yaml", ".yml")) or name.endswith(".trail.yaml") or name == "trail.yaml":
        return False
    try:
        if path.stat().st_size > 5_000_000:
            return False
        text = read_source(path)
    except (OSError, TrailblazeError):
        return False
    parts = split_flow(text)
    if parts is None or not re.search(r"(?m)^(appId|url)\s*:", parts[0]):
        return False
    try:
        header = load_text(parts[0], str(path)).data
        body = load_text(parts[1], str(path)).data
    except UsageError:
        return True  # shaped like one: reading it says what is wrong
    return isinstance(header, dict) and ("appId" in header or "url" in header) and isinstance(body, list | None)


def load_flow(path: Path, *, sub_flow: bool = False) -> FlowFile:
    """Read a flow file; FlowError (with ``file:line``) when it is not one."""
    text = read_source(path)
    parts = split_flow(text)
    if parts is None:
        raise FlowError(
            "not a Maestro flow: a header (appId: or url:), a line '---', then the commands", Location(str(path))
        )
    header_doc = load_text(parts[0], str(path))
    doc = load_text(parts[1], str(path))
    header = header_doc.data if header_doc.data is not None else {}
    if not isinstance(header, dict):
        raise FlowError("a flow's header is a mapping (appId:, name:, tags:, env:…)", header_doc.location(()))
    if not sub_flow and not isinstance(header.get("appId", header.get("url")), str):
        raise FlowError("a flow's header names its app (appId:) or web page (url:)", header_doc.location(()))
    commands = doc.data if doc.data is not None else []
    if not isinstance(commands, list):
        raise FlowError("a flow's commands are a list ('- launchApp', '- tapOn: …')", doc.location(()))
    return FlowFile(path, header, commands, header_doc, doc)


# -- ${…} ----------------------------------------------------------------------------------------------


def interpolate(value: Any, scope: Mapping[str, str]) -> Any:
    """``value`` with every ``${NAME}`` in its strings replaced (ValueError names what cannot be)."""
    if isinstance(value, str):
        return _interpolate_text(value, scope) if "${" in value else value
    if isinstance(value, list):
        return [interpolate(v, scope) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, scope) for k, v in value.items()}
    return value


def _interpolate_text(text: str, scope: Mapping[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        script = match.group(1)
        if not script.strip():
            return ""
        name = _NAME.match(script)
        if name and name.group(1) in _LITERALS:  # JavaScript's own words
            return name.group(1)
        if name:
            if name.group(1) not in scope:
                raise ValueError(
                    f"${{{script}}}: {name.group(1)} is not set (the header's env:, a runFlow's env:, "
                    f"-e {name.group(1)}=VALUE or the variable MAESTRO_…)"
                )
            return scope[name.group(1)]
        default = _DEFAULT.match(script)
        if default:
            given = scope.get(default.group(1), "")
            if given.strip() not in _FALSY:
                return given
            return next(g for g in default.groups()[1:] if g is not None)
        from trailblaze.drivers.maestro.javascript import NEEDS_NODE, node

        if node() is not None:
            return match.group(0)  # JavaScript: worked out when the command runs
        raise ValueError(f"${{{script}}} cannot be worked out here: {NEEDS_NODE}")

    return _VARIABLE.sub(one, text)


def unescape(value: Any) -> Any:
    """``value`` with each ``\\${…}`` written as ``${…}`` (once nothing is left to work out)."""
    if isinstance(value, str):
        return re.sub(r"\\(\$\{[^$}]*\})", r"\1", value) if "\\${" in value else value
    if isinstance(value, list):
        return [unescape(v) for v in value]
    if isinstance(value, dict):
        return {k: unescape(v) for k, v in value.items()}
    return value


def base_scope(env: Mapping[str, str], given: Mapping[str, str]) -> dict[str, str]:
    """What ``${…}`` sees before a flow's header: ``MAESTRO_*`` variables, then ``-e`` values."""
    scope = {k: v for k, v in env.items() if k.startswith("MAESTRO_") and v}
    scope.update(given)
    return scope


# -- flows into trails ------------------------------------------------------------------------------------


@dataclass
class _Expander:
    """Puts a flow's ``runFlow`` files inline and its variables in place, collecting problems."""

    top: FlowFile
    problems: list[TrailblazeError] = field(default_factory=list)
    count: int = 0

    def problem(self, message: str, location: Location) -> None:
        self.problems.append(FlowError(message, location))

    def scope_of(self, flow: FlowFile, outer: Mapping[str, str]) -> dict[str, str]:
        scope = dict(outer)
        scope["MAESTRO_FILENAME"] = flow.path.name.rsplit(".", 1)[0]
        env = flow.header.get("env") or {}
        if not isinstance(env, dict):
            self.problem("env: is a mapping of NAME: value", flow.header_doc.location(("env",)))
            return scope
        for name, value in env.items():
            try:
                scope[str(name)] = str(interpolate("" if value is None else _text(value), scope))
            except ValueError as exc:
                self.problem(f"env.{name}: {exc}", flow.header_doc.location(("env", name)))
        return scope

    def commands(
        self,
        raw: Any,
        flow: FlowFile,
        doc: YamlDocument,
        where: tuple[str | int, ...],
        scope: Mapping[str, str],
        stack: tuple[Path, ...],
        nested: bool,
    ) -> list[tuple[Any, Location]]:
        """Each command of ``raw`` (the list at ``where`` in ``doc``), ready for the command
        reader, with where it is written."""
        if not isinstance(raw, list):
            self.problem("commands: is a list of Maestro commands", doc.location(where))
            return []
        out: list[tuple[Any, Location]] = []
        for i, item in enumerate(raw):
            location = doc.location((*where, i))
            self.count += 1
            if self.count > MAX_COMMANDS:
                if self.count == MAX_COMMANDS + 1:
                    self.problem(f"the flow grows past {MAX_COMMANDS} commands with its runFlow files inline", location)
                return out
            command = self.command(item, flow, doc, (*where, i), scope, stack, nested, location)
            if command is not None:
                out.append((command, location))
        return out

    def command(
        self,
        item: Any,
        flow: FlowFile,
        doc: YamlDocument,
        where: tuple[str | int, ...],
        scope: Mapping[str, str],
        stack: tuple[Path, ...],
        nested: bool,
        location: Location,
    ) -> Any | None:
        from trailblaze.drivers.maestro.commands import ARGUMENTS, JAVASCRIPT, UNSUPPORTED, parse_command
        from trailblaze.drivers.maestro.javascript import needs_javascript

        if isinstance(item, str):
            name, value = item, None
        elif isinstance(item, dict) and len(item) == 1:
            ((name, value),) = item.items()
        else:
            self.problem("a Maestro command is one name with its arguments ('- tapOn: OK' or '- back')", location)
            return None
        name = str(name)
        if name in ("onFlowStart", "onFlowComplete"):
            self.problem(f"{name} belongs in the flow's header, above '---'", location)
            return None
        if name in UNSUPPORTED:  # before its ${…}: the command is what is not supported
            self.problem(f"the Maestro command {name!r} is not supported here: {UNSUPPORTED[name]}", location)
            return None
        if name in ("runFlow", "retry") and (isinstance(value, str) or (isinstance(value, dict) and "file" in value)):
            value = self.inline_file(name, value, flow, doc, where, scope, stack, location)
            if value is None:
                return None
        elif name in _NESTING and isinstance(value, dict) and "commands" in value:
            inner_scope = dict(scope)
            if name == "runFlow" and isinstance(value.get("env"), dict):
                for key, text in value["env"].items():
                    try:
                        inner_scope[str(key)] = str(interpolate(_text(text), scope))
                    except ValueError as exc:
                        self.problem(f"runFlow env.{key}: {exc}", doc.location((*where, name, "env", key)))
            inner = self.commands(
                value["commands"], flow, doc, (*where, name, "commands"), inner_scope, stack, nested=True
            )
            rest = {k: v for k, v in value.items() if k not in ("commands", "env")}
            value = {**self.interpolated(rest, scope, location, name), "commands": [c for c, _ in inner]}
        else:
            value = self.interpolated(value, scope, location, name)
        if name == "runScript":
            value = self.script_file(value, flow, location)
        if name in _APP_COMMANDS:
            value = self.with_app(name, value, flow)
        command = {name: value} if value is not None or name not in ARGUMENTS else name
        try:
            parsed = parse_command(command)
        except ValueError as exc:
            self.problem(str(exc), location)
            return None
        own = {k: v for k, v in value.items() if k != "commands"} if isinstance(value, dict) else value
        scripted = name in JAVASCRIPT or needs_javascript(json.dumps(own))
        if not scripted:  # \${…} is text now (where JavaScript runs, it unescapes it itself)
            plain = unescape(own)
            if isinstance(value, dict) and "commands" in value:
                plain = {**plain, "commands": value["commands"]}
            if plain != value:
                value = plain
                command = {name: value}
                parsed = parse_command(command)
        if not nested and not scripted:
            return command
        args = parsed.args.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        args.pop("commands", None)
        if name in _NESTING:
            args["commands"] = value["commands"] if isinstance(value, dict) else []
        if nested:  # the step is the outer command's: the message names where this one is
            args["at"] = f"{_shown(location.path)}:{location.line}"
        if scripted:  # its JavaScript sees the flow's variables
            args["vars"] = dict(scope)
            for key in ("when", "while"):
                if isinstance(args.get(key), dict) and needs_javascript(json.dumps(args[key])):
                    args[key]["vars"] = dict(scope)
        return {name: args}

    def script_file(self, value: Any, flow: FlowFile, location: Location) -> Any:
        """``runScript``'s file, found next to the flow and named as the user would."""
        options = {"file": value} if isinstance(value, str) else value
        if not isinstance(options, dict) or not isinstance(options.get("file"), str):
            return value  # the command's own check says what is wrong
        target = (flow.path.parent / options["file"]).resolve()
        if not target.is_file():
            self.problem(f"runScript: no script {options['file']} (looked for {target})", location)
        return {**options, "file": _shown(str(target))}

    def interpolated(self, value: Any, scope: Mapping[str, str], location: Location, name: str) -> Any:
        try:
            return interpolate(value, scope)
        except ValueError as exc:
            self.problem(f"{name}: {exc}", location)
            return value

    def with_app(self, name: str, value: Any, flow: FlowFile) -> Any:
        app = self.top.app
        if app is None:
            return value
        if value is None:
            return {"appId": app} if name == "launchApp" else app
        if isinstance(value, dict) and "appId" not in value and "url" not in value:
            return {**value, "appId": app}
        return value

    def inline_file(
        self,
        name: str,
        value: Any,
        flow: FlowFile,
        doc: YamlDocument,
        where: tuple[str | int, ...],
        scope: Mapping[str, str],
        stack: tuple[Path, ...],
        location: Location,
    ) -> dict[str, Any] | None:
        """``runFlow: file.yaml`` (or ``{file:, env:, when:}``) as ``runFlow`` with the file's
        commands inline; None after noting why it cannot be."""
        options = {"file": value} if isinstance(value, str) else dict(value)
        try:
            file_name = str(interpolate(options.pop("file"), scope))
        except ValueError as exc:
            self.problem(f"{name}: {exc}", location)
            return None
        target = (flow.path.parent / file_name).resolve()
        chain = " → ".join(p.name for p in (*stack, target))
        if target in stack:
            self.problem(f"{name}: {file_name} runs itself again ({chain}): a runFlow cycle", location)
            return None
        if len(stack) > MAX_DEPTH:
            self.problem(f"{name}: runFlow files nest more than {MAX_DEPTH} deep ({chain})", location)
            return None
        if not target.is_file():
            self.problem(f"{name}: no flow file {file_name} (looked for {target})", location)
            return None
        try:
            sub = load_flow(Path(_shown(str(target))), sub_flow=True)  # named as the user would
        except UsageError as exc:
            self.problems.append(exc)
            return None
        inner_scope = dict(scope)
        env = options.pop("env", None) or {}
        if isinstance(env, dict):
            for key, text in env.items():
                try:
                    inner_scope[str(key)] = str(interpolate(_text(text), scope))
                except ValueError as exc:
                    self.problem(f"{name} env.{key}: {exc}", doc.location((*where, name, "env", key)))
        inner_scope = self.scope_of(sub, inner_scope)
        inner_stack = (*stack, target)
        commands: list[Any] = []
        for hook in ("onFlowStart", None, "onFlowComplete"):
            raw, at = sub.hook(hook) if hook else (sub.commands, ())
            doc_of = sub.header_doc if hook else sub.doc
            commands += [c for c, _ in self.commands(raw, sub, doc_of, at, inner_scope, inner_stack, nested=True)]
        rest = self.interpolated(options, scope, location, name)
        if "label" not in rest:
            rest["label"] = f"{name} {file_name}"
        return {**rest, "commands": commands}


def _shown(path: str | None) -> str:
    """A file as messages name it: relative to the working directory when it is below it."""
    if path is None:
        return "<flow>"
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def read_flow(
    path: Path, *, default_id: str, given_env: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[Trail, list[TrailblazeError]]:
    """The trail a flow file means, and every problem found reading it (FlowError when it
    cannot be read at all). Its id is the header's ``name`` (Maestro's JUnit report names a
    flow's test by it), else ``default_id``."""
    from trailblaze.drivers.maestro.commands import READ_ONLY

    flow = load_flow(path)
    named = flow.header.get("name")
    trail_id = named.strip() if isinstance(named, str) and named.strip() else default_id
    expander = _Expander(flow)
    scope = expander.scope_of(flow, base_scope(environ, given_env))
    stack = (path.resolve(),)
    parts: list[tuple[str, list[tuple[Any, Location]]]] = []
    for hook in ("onFlowStart", None, "onFlowComplete"):
        raw, at = flow.hook(hook) if hook else (flow.commands, ())
        doc = flow.header_doc if hook else flow.doc
        parts.append((hook or "", expander.commands(raw, flow, doc, at, scope, stack, nested=False)))
    tool = "web_maestro" if flow.is_web else "mobile_maestro"
    classifiers = list(WEB_DEVICES if flow.is_web else APP_DEVICES)
    steps: list[Step] = []
    for hook, commands in parts:
        for command, location in commands:
            name = command if isinstance(command, str) else next(iter(command))
            call = ToolCall(tool, {"commands": [command]}, location)
            steps.append(
                Step(
                    index=len(steps),
                    kind="verify" if name in READ_ONLY else "step",
                    text=(f"{hook}: " if hook else "") + describe(command),
                    recordings={key: [call] for key in classifiers},
                    location=location,
                    always=hook == "onFlowComplete",  # Maestro runs it after a failure too
                )
            )
    if not steps and not expander.problems:
        expander.problem("the flow has no commands", flow.doc.location(()))
    config = TrailConfig(
        id=trail_id,
        title=flow.name,
        tags=flow.tags,
        devices=dict(WEB_DEVICES if flow.is_web else APP_DEVICES),
        metadata={"maestro": {"app": flow.app, "file": str(path)}},
    )
    trail = Trail(
        path=path, id=trail_id, config=config, steps=steps, config_key_path=(), locate=flow.header_doc.locator(())
    )
    return trail, expander.problems


def describe(command: Any) -> str:
    """A command in a line, as a flow would write it: ``tapOn: Sign in``, ``back``."""
    if isinstance(command, str):
        return command
    ((name, value),) = command.items()
    if not isinstance(value, dict):
        return f"{name}: {_inline(value)}" if value is not None else name
    if value.get("label"):
        return str(value["label"])
    if name in _NESTING:
        shown = {k: v for k, v in value.items() if k not in ("commands", "at", "vars")}
        count = len(value.get("commands") or [])
        return f"{name} ({''.join(f'{k}: {_inline(v)}, ' for k, v in shown.items())}{count} commands)"
    shown = {k: v for k, v in value.items() if k not in ("at", "vars")}
    if len(shown) == 1 and next(iter(shown)) in _SCALAR_FIELDS:  # as the flow wrote it
        return f"{name}: {_inline(next(iter(shown.values())))}"
    return f"{name}: " + ", ".join(f"{k}: {_inline(v)}" for k, v in shown.items())


def _inline(value: Any) -> str:
    """A value as YAML's flow style would show it (``{visible: OK}``, ``true``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return str(value)
