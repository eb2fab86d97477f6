"""Read trail files (current mapping format and legacy v1 list format) into :class:`Trail`.

Every problem is reported with ``file:line:col``; :func:`load_trail` collects all problems of a
file before giving up, so ``trailblaze validate`` can show them all at once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trailblaze.core.errors import ErrorList, Location, TrailblazeError, UsageError
from trailblaze.core.interpolate import NAMESPACES, references
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import PathKey, YamlDocument, load_path, load_text, tree_building
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import ANY_CLASSIFIER, ArgDecl, Step, StepKind, Trail, TrailConfig

_STEP_KEYS = {"step", "verify", "recording", "recordable", "maxRetries"}
_LEGACY_PROMPT_KEYS = {"step", "verify", "recording", "recordable", "maxRetries"}
_TRAIL_SUFFIX = ".trail.yaml"
#: upstream's per-device file names: android.trail.yaml, android-phone.trail.yaml, ios-iphone.trail.yaml
_CLASSIFIER_FILE = re.compile(r"^((?:android|ios|web|desktop)(?:-[a-z0-9]+)*)\.trail\.yaml$")


def load_trail(
    path: Path,
    *,
    root: Path | None = None,
    arg_values: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    require_args: bool = True,
    text: str | None = None,
) -> Trail:
    """Load and check one trail file; raise :class:`TrailErrors` listing every problem found.

    With ``text``, that is parsed as the content of ``path`` (the writer checks what it is about
    to write this way, before the file is touched)."""
    doc = load_path(path) if text is None else load_text(text, str(path))
    parser = _Parser(doc, path, os.environ if environ is None else environ)
    with tree_building():
        trail = parser.parse(root)
    if trail is not None:
        parser.bind_args(trail, arg_values or {}, require_args)
        parser.check_references(trail)
    if parser.problems:
        raise TrailErrors(parser.problems, trail)
    assert trail is not None
    return trail


class TrailErrors(ErrorList):
    """Problems in one trail file; ``trail`` is what could be read anyway (for further checks)."""

    def __init__(self, errors: list[TrailblazeError], trail: Trail | None) -> None:
        super().__init__(errors)
        self.trail = trail


def legacy_classifier(path: Path, config: TrailConfig | None) -> str:
    """Legacy recordings are not keyed by device: the file name (``android-phone.trail.yaml``)
    or ``config.platform`` says which device they are for; otherwise any device (``*``)."""
    m = _CLASSIFIER_FILE.match(path.name)
    if m:
        return m.group(1)
    if config is not None and config.platform:
        return config.platform.lower()
    return ANY_CLASSIFIER


def trail_id(path: Path, root: Path | None) -> str:
    """Default id: the path relative to the trails root, without ``.trail.yaml``/``trail.yaml``."""
    try:
        rel = path.resolve().relative_to(root.resolve()) if root else Path(path.name)
    except ValueError:
        rel = Path(path.name)
    text = rel.as_posix()
    if text.endswith("/trail.yaml"):
        return text[: -len("/trail.yaml")]
    if text.endswith(_TRAIL_SUFFIX):
        return text[: -len(_TRAIL_SUFFIX)]
    return text.rsplit(".", 1)[0]


class _Parser:
    def __init__(self, doc: YamlDocument, path: Path, environ: Mapping[str, str]) -> None:
        self.doc = doc
        self.path = path
        self.environ = environ
        self.problems: list[TrailblazeError] = []

    # -- helpers -------------------------------------------------------------------------------

    def where(self, key_path: PathKey) -> Location:
        return self.doc.location(key_path)

    def problem(self, message: str, key_path: PathKey) -> None:
        self.problems.append(UsageError(message, self.where(key_path)))

    # -- top level -----------------------------------------------------------------------------

    def parse(self, root: Path | None) -> Trail | None:
        """The trail the document holds. Its data is taken out of the document and read once,
        each step let go of as it is read: the file's data and the trail made of it are never
        both held whole (a 100,000-step trail: 60 MB). Locations do not need the data."""
        data, self.doc.data = self.doc.data, None
        if isinstance(data, list):
            return self._parse_legacy(data, root)
        if isinstance(data, dict):
            return self._parse_current(data, root)
        kind = "empty" if data is None else f"a {type(data).__name__}"
        self.problem(
            f"a trail file is a mapping with 'trail:' (or a legacy list of '- config:'/'- prompts:'), got {kind}",
            (),
        )
        return None

    def _parse_current(self, data: dict[str, Any], root: Path | None) -> Trail | None:
        unknown = set(data) - {"config", "trailhead", "trail"}
        for key in sorted(unknown):
            self.problem(f"unknown top-level key {key!r} (expected config, trailhead, trail)", (key,))
        config = self._config(data.get("config"), ("config",))
        trailhead = None
        if "trailhead" in data:
            trailhead = self._trailhead(data["trailhead"], ("trailhead",))
        steps: list[Step] = []
        raw_steps = data.get("trail")
        if raw_steps is None:
            self.problem("missing 'trail:' (the list of steps)", ())
        elif not isinstance(raw_steps, list) or not raw_steps:
            self.problem("'trail:' must be a non-empty list of '- step:' / '- verify:' items", ("trail",))
        else:
            for i, item in _taken(raw_steps):
                index = i if i == len(steps) else len(steps)  # i itself, unless a step was left out: one int less
                step = self._step(item, ("trail", i), index)
                if step is not None:
                    steps.append(step)
        config = config or TrailConfig()
        return Trail(
            path=self.path,
            id=config.id or trail_id(self.path, root),
            config=config,
            steps=steps,
            trailhead=trailhead,
            format="current",
            locate=self.doc.location,
        )

    def _parse_legacy(self, data: list[Any], root: Path | None) -> Trail | None:
        config: TrailConfig | None = TrailConfig()
        config_key_path: tuple[str | int, ...] = ("config",)
        steps: list[Step] = []
        for i, item in _taken(data):
            if not isinstance(item, dict) or len(item) != 1:
                self.problem("each item of a legacy trail is one of '- config:', '- tools:', '- prompts:'", (i,))
                continue
            ((key, value),) = item.items()
            if key == "config":
                config = self._config(value, (i, "config"))
                config_key_path = (i, "config")
            elif key == "tools":
                classifier = self._legacy_classifier(config)
                calls = self._calls(value, (i, "tools"))
                if calls is not None:
                    where = self.where((i, "tools"))
                    steps.append(Step(len(steps), "step", None, {classifier: calls}, where, key_path=(i,)))
            elif key == "prompts":
                if not isinstance(value, list):
                    self.problem("'prompts:' must be a list of '- step:' items", (i, "prompts"))
                    continue
                for j, prompt in enumerate(value):
                    step = self._step(prompt, (i, "prompts", j), len(steps), legacy=config or TrailConfig())
                    if step is not None:
                        steps.append(step)
            elif key == "maestro":
                self.problem("legacy '- maestro:' blocks are not supported; use tool calls", (i,))
            else:
                self.problem(f"unknown legacy item {key!r} (expected config, tools, prompts)", (i,))
        if not steps:
            self.problem("the trail has no steps", ())
        config = config or TrailConfig()
        return Trail(
            path=self.path,
            id=config.id or trail_id(self.path, root),
            config=config,
            steps=steps,
            format="legacy",
            config_key_path=config_key_path,
            locate=self.doc.location,
        )

    def _legacy_classifier(self, config: TrailConfig | None) -> str:
        return legacy_classifier(self.path, config)

    # -- pieces --------------------------------------------------------------------------------

    def _config(self, raw: Any, key_path: PathKey) -> TrailConfig | None:
        if raw is None:
            return TrailConfig()
        if not isinstance(raw, dict):
            self.problem("'config:' must be a mapping", key_path)
            return None
        try:
            return TrailConfig.model_validate(raw)
        except ValidationError as exc:
            self.problems.extend(describe_errors(exc, doc=self.doc, base=key_path, model=TrailConfig))
            return None

    def _trailhead(self, raw: Any, key_path: PathKey) -> Step | None:
        if not isinstance(raw, dict):
            self.problem("'trailhead:' must be a mapping with 'step:' and 'recording:'", key_path)
            return None
        for key in sorted(set(raw) - {"step", "recording"}):
            self.problem(f"unknown trailhead key {key!r} (expected step, recording)", (*key_path, key))
        text = raw.get("step")
        if text is not None and not isinstance(text, str):
            self.problem("'step:' must be text", (*key_path, "step"))
        recordings = self._recordings(raw.get("recording"), (*key_path, "recording"), "recording" in raw)
        if recordings:
            for classifier, calls in recordings.items():
                if len(calls) != 1:
                    self.problem(
                        f"a trailhead runs exactly one tool per device, found {len(calls)} for {classifier!r}",
                        (*key_path, "recording", classifier),
                    )
        text = text if isinstance(text, str) else None
        return Step(-1, "trailhead", text, recordings, self.where(key_path), key_path=tuple(key_path))

    def _step(self, raw: Any, key_path: PathKey, index: int, legacy: TrailConfig | None = None) -> Step | None:
        if not isinstance(raw, dict):
            self.problem("a step is a mapping: '- step: text' or '- verify: text'", key_path)
            return None
        kinds = [k for k in ("step", "verify") if k in raw]
        if len(kinds) != 1:
            self.problem("a step has exactly one of 'step:' or 'verify:'", key_path)
            return None
        kind: StepKind = "verify" if kinds[0] == "verify" else "step"
        where = self.where(key_path)  # before its parts': finding theirs goes on from the step
        allowed = _LEGACY_PROMPT_KEYS if legacy is not None else _STEP_KEYS
        if not raw.keys() <= allowed:
            for key in sorted(raw.keys() - allowed):
                self.problem(f"unknown step key {key!r} (expected {', '.join(sorted(allowed))})", (*key_path, key))
        text = raw[kinds[0]]
        if not isinstance(text, str):
            self.problem(f"'{kinds[0]}:' must be text", (*key_path, kinds[0]))
            text = str(text)
        recordable = raw.get("recordable", True)
        if not isinstance(recordable, bool):
            self.problem("'recordable:' must be true or false", (*key_path, "recordable"))
            recordable = True
        max_retries = raw.get("maxRetries", 0)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            self.problem("'maxRetries:' must be a whole number ≥ 0", (*key_path, "maxRetries"))
            max_retries = 0
        rec_path = (*key_path, "recording")
        if legacy is not None:
            recordings = self._legacy_recording(raw.get("recording"), rec_path, legacy, "recording" in raw)
        else:
            recordings = self._recordings(raw.get("recording"), rec_path, "recording" in raw)
        return Step(index, kind, text, recordings, where, recordable, max_retries, tuple(key_path))

    def _recordings(self, raw: Any, key_path: PathKey, present: bool) -> dict[str, list[ToolCall]] | None:
        if not present:
            return None
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            self.problem("'recording:' maps a device classifier (web, android, ios…) to tool calls", key_path)
            return None
        result: dict[str, list[ToolCall]] = {}
        for classifier, value in raw.items():
            calls = self._calls(value, (*key_path, classifier))
            if calls is not None:
                result[classifier] = calls
        return result

    def _legacy_recording(
        self, raw: Any, key_path: PathKey, config: TrailConfig, present: bool
    ) -> dict[str, list[ToolCall]] | None:
        if not present:
            return None
        if not isinstance(raw, dict) or set(raw) != {"tools"}:
            self.problem("a legacy recording is 'recording: {tools: [...]}'", key_path)
            return None
        calls = self._calls(raw["tools"], (*key_path, "tools"))
        return None if calls is None else {self._legacy_classifier(config): calls}

    def _calls(self, raw: Any, key_path: PathKey) -> list[ToolCall] | None:
        if raw is None:
            return []
        if isinstance(raw, dict):  # a single call written as a mapping (upstream trailheads do this)
            raw_items: list[Any] = [raw]
            single = True
        elif isinstance(raw, list):
            raw_items = raw
            single = False
        else:
            self.problem("expected a list of tool calls ('- toolName: {args}')", key_path)
            return None
        calls = []
        for i, item in enumerate(raw_items):
            call = self._call(item, key_path if single else (*key_path, i))
            if call is not None:
                calls.append(call)
        return calls

    def _call(self, raw: Any, key_path: PathKey) -> ToolCall | None:
        if isinstance(raw, str):
            return ToolCall(raw, {}, self.where(key_path), self.doc.locator(key_path))
        if not isinstance(raw, dict) or len(raw) != 1:
            self.problem("a tool call is a one-key mapping '- toolName: {args}' (or just '- toolName')", key_path)
            return None
        ((name, args),) = raw.items()
        if args is None:
            args = {}
        if not isinstance(args, dict):
            self.problem(f"arguments of {name!r} must be a mapping, got {type(args).__name__}", (*key_path, name))
            return None
        return ToolCall(name, args, self.where(key_path), self.doc.locator((*key_path, name)))

    # -- args and references ---------------------------------------------------------------------

    def bind_args(self, trail: Trail, given: Mapping[str, str], require: bool) -> None:
        values: dict[str, Any] = {}
        for name, decl in trail.config.args.items():
            if name in given:
                try:
                    values[name] = convert_arg(given[name], decl)
                except ValueError as exc:
                    self.problem(f"--arg {name}: {exc}", ("config", "args", name))
            elif not decl.required:
                values[name] = decl.default
            elif require:
                self.problem(f"trail argument {name!r} is required: pass --arg {name}=VALUE", ("config", "args", name))
        trail.arg_values = values

    def check_references(self, trail: Trail) -> None:
        declared = trail.config.args
        for step in trail.all_steps:
            self._check_value(step.text, declared, step.location)
            for call in step.all_calls():
                self._check_value(call.args, declared, call.location)

    def _check_value(self, value: Any, declared: Mapping[str, ArgDecl], where: Location | None) -> None:
        if not _may_refer(value):
            return
        for ref in references(value):
            if ref.namespace == "env":
                if ref.name not in self.environ:
                    self.problems.append(UsageError(f"environment variable {ref.name} is not set ({ref.text})", where))
            elif ref.namespace not in NAMESPACES:
                self.problems.append(
                    UsageError(
                        f"unknown reference {ref.text}: use {{{{args.x}}}}, {{{{memory.x}}}} or ${{ENV}}",
                        where,
                    )
                )
            elif ref.namespace == "args" and ref.name not in declared:
                self.problems.append(UsageError(f"{ref.text} is not declared in config.args", where))


def _may_refer(value: Any) -> bool:
    """Whether text in ``value`` could hold a reference (``{{…}}``, ``${…}``): most values hold
    none, and a look for the marks is cheaper than :func:`references`' look for references."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if "{{" in item or "${" in item:
                return True
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return False


def _taken(items: list[Any]) -> Iterator[tuple[int, Any]]:
    """Each item with its index, taken out of ``items`` (None left in its place) as it is read."""
    for i, item in enumerate(items):
        items[i] = None
        yield i, item


def convert_arg(raw: str, decl: ArgDecl) -> Any:
    """Convert a ``--arg`` string to the declared type."""
    if decl.type == "string":
        return raw
    if decl.type == "integer":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"expected an integer, got {raw!r}") from None
    if decl.type == "number":
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"expected a number, got {raw!r}") from None
    lowered = raw.lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ValueError(f"expected true or false, got {raw!r}")
