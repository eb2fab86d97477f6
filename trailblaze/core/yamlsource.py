"""Read YAML into plain Python values while remembering where every value came from.

Trail and config files are validated after parsing; to point at ``file:line:col`` for a
problem found later (an unknown key, a wrong type, an unknown tool) the loader keeps a table
from each value's path (a tuple of keys and indexes) to its position in the file.

Plain scalars follow the YAML 1.2 core schema, as upstream Trailblaze (kaml) reads them:
only ``true``/``false`` are booleans, so ``textRegex: ON`` stays the string ``"ON"``, and
dates stay strings. Duplicate keys are an error instead of a silent overwrite.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from trailblaze.core import limits
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.sourcefile import read_source

try:  # the C parser is ~10x faster; the wheels ship it, source builds may not
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]
from yaml import SafeLoader as _PurePythonLoader

PathKey = tuple[str | int, ...]

_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INF = frozenset({".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
_NEG_INF = frozenset({"-.inf", "-.Inf", "-.INF"})
_NAN = frozenset({".nan", ".NaN", ".NAN"})


class YamlDocument:
    """A parsed YAML file: its data plus a way to ask where any part of it came from.

    Positions are kept compactly — a path's hash to its line and column packed in one int — as
    a big file has a million of them: tuples of paths and positions cost 25 times the file."""

    def __init__(
        self,
        path: str | None,
        data: Any,
        positions: dict[int, int],
        key_positions: dict[int, int] | None = None,
    ) -> None:
        self.path = path
        self.data = data
        self._positions = positions
        self._key_positions = key_positions or {}

    def key_location(self, key_path: Sequence[str | int]) -> Location:
        """Where the *key* of the mapping entry at ``key_path`` is written (for "unknown key")."""
        parts = self._spelled_as_written(tuple(key_path))
        pos = self._key_positions.get(hash(parts))
        return self._at(pos) if pos is not None else self.location(key_path)

    def location(self, key_path: Sequence[str | int] = ()) -> Location:
        """The location of the value at ``key_path``, or of its nearest ancestor that has one.

        A key may be given in snake_case or camelCase; the spelling used in the file is found.
        """
        parts = self._spelled_as_written(tuple(key_path))
        while True:
            pos = self._positions.get(hash(parts))
            if pos is not None:
                return self._at(pos)
            if not parts:
                return Location(self.path)
            parts = parts[:-1]

    def _at(self, packed: int) -> Location:
        line, column = _unpack(packed)
        return Location(self.path, line, column)

    def _spelled_as_written(self, key_path: PathKey) -> PathKey:
        written: list[str | int] = []
        for part in key_path:
            candidate: str | int = part
            if isinstance(part, str) and hash((*written, part)) not in self._positions:
                for variant in (_camel(part), _snake(part)):
                    if hash((*written, variant)) in self._positions:
                        candidate = variant
                        break
            written.append(candidate)
        return tuple(written)


def _pack(line: int, column: int) -> int:
    return line << 32 | min(column, 0xFFFFFFFF)


def _unpack(packed: int) -> tuple[int, int]:
    return packed >> 32, packed & 0xFFFFFFFF


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def load_path(path: Path) -> YamlDocument:
    """Parse a YAML file; raise :class:`UsageError` with a location for anything malformed."""
    return load_text(read_source(path), str(path))


def load_text(text: str, path: str | None = None) -> YamlDocument:
    """Parse YAML text. Parsing is event by event (no recursion), so the nesting depth and what
    aliases expand to are bounded before they can cost memory or time.

    Our nesting bound answers before the parser's own: a parser reads ahead of the events it
    hands out (libyaml up to 1024 characters, enough for a thousand ``[``), and a parser with a
    lower limit of its own (libyaml's is 1000 since PyYAML 6.0.4) would otherwise report deep
    flow nesting in its words. A file whose flow brackets could nest that deep is parsed by
    PyYAML's pure-Python parser, which has no limit of its own, so the message is always ours
    and names the bracket that goes over."""
    loader = _PurePythonLoader(text) if _may_nest_deeply(text) else _Loader(text)
    builder = _Builder(path)
    try:
        data = builder.document(loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        location = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path)
        raise UsageError(f"invalid YAML: {problem}", location) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow: where it is, and which
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise UsageError(
            f"invalid YAML: the character U+{ord(character):04X} is not allowed in YAML", Location(path, line, column)
        ) from None
    except yaml.YAMLError as exc:
        raise UsageError(f"invalid YAML: {exc}", Location(path)) from None
    finally:
        loader.dispose()
    return YamlDocument(path, data, builder.positions, builder.key_positions)


#: brackets, quotes and comment marks: what decides how deep flow collections (``[``/``{``) nest
_FLOW_MARKS = re.compile(r"[\[\]{}\"'#]")
_DOUBLE_QUOTED_END = re.compile(r'(?:[^"\\]|\\.)*"', re.DOTALL)
_SINGLE_QUOTED_END = re.compile(r"(?:[^']|'')*'")
#: a parser may read this many levels ahead of its events before our bound sees them; deeper
#: flow nesting goes to the pure-Python parser (libyaml stops at 1000 levels in its own words)
_LOOKAHEAD_DEPTH = 500


def _may_nest_deeply(text: str) -> bool:
    """Whether flow collections in ``text`` may nest deeper than the depth bound (or than a
    parser's own limit): a scan of brackets outside quotes and comments. It may overcount (a
    ``[`` inside a plain scalar), never undercount what a parser would see, and a file it flags
    is still parsed exactly, only by the slower parser."""
    threshold = min(limits.YAML_DEPTH.get_int(), _LOOKAHEAD_DEPTH)
    if text.count("[") + text.count("{") <= threshold:
        return False  # the common case: not enough brackets to nest that deep
    depth = 0
    position = 0
    length = len(text)
    while position < length:
        found = _FLOW_MARKS.search(text, position)
        if found is None:
            return False
        mark, at = found.group(), found.start()
        before = text[at - 1] if at else "\n"
        position = at + 1
        if mark == "#":
            if before in " \t\n\r":  # a comment runs to the end of its line
                end = text.find("\n", position)
                position = length if end < 0 else end + 1
        elif mark in "\"'":
            if depth or before in " \t\n\r[{,:":  # a quoted scalar starts here
                closing = (_DOUBLE_QUOTED_END if mark == '"' else _SINGLE_QUOTED_END).match(text, position)
                position = closing.end() if closing else length
        elif mark in "[{":
            if depth or before in " \t\n\r-:?":
                depth += 1
                if depth > threshold:
                    return True
        elif depth:
            depth -= 1
    return False


_MERGE = object()  # the pending key of a mapping while its ``<<:`` value is read


@dataclass(slots=True)
class _Anchor:
    """An anchored value and what a ``*name`` repeating it adds: nodes plus characters, and
    the positions of its parts relative to it (so messages point into the anchor)."""

    value: Any
    size: int
    positions: list[tuple[PathKey, int]]
    key_positions: list[tuple[PathKey, int]]


@dataclass(slots=True)
class _Frame:
    """A mapping or list being built."""

    path: PathKey
    mark: Any
    anchor: str | None
    value: Any
    positions_from: int
    keys_from: int
    size: int = 1
    key: Any = None  # mappings: the key whose value comes next (None: a key comes next)
    merged: dict[str, Any] | None = None


class _Builder:
    """Builds plain data from parser events, remembering each value's position.

    Aliases are expanded into copies (the loaded data is a tree, as the rest of Trailblaze
    expects), within the bounds of :mod:`trailblaze.core.limits`: an alias bomb stops at the alias
    that goes over, with its line, long before it costs gigabytes."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        #: hash of a value's path -> its line and column (:func:`_pack`); keys' apart
        self.positions: dict[int, int] = {}
        self.key_positions: dict[int, int] = {}
        #: positions in the order they were read, for what an anchor holds: kept only inside an
        #: anchored node (a log of every node doubled what a big file cost)
        self._position_log: list[tuple[PathKey, int]] = []
        self._key_log: list[tuple[PathKey, int]] = []
        self._anchored = 0  # anchored collections being built
        self._anchors: dict[str, _Anchor] = {}
        self._stack: list[_Frame] = []
        self._max_depth = limits.YAML_DEPTH.get_int()
        self._max_aliases = limits.YAML_ALIASES.get_int()
        self._max_expansion = limits.YAML_EXPANSION.get_int()
        self._aliases = 0
        self._expansion = 0

    def _where(self, mark: Any) -> Location:
        return Location(self.path, mark.line + 1, mark.column + 1)

    def document(self, loader: Any) -> Any:
        loader.get_event()  # StreamStart
        if loader.check_event(yaml.StreamEndEvent):
            loader.get_event()
            return None
        loader.get_event()  # DocumentStart
        data = self._node(loader)
        loader.get_event()  # DocumentEnd
        if not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            raise UsageError(
                "invalid YAML: expected a single document, but found another one", self._where(event.start_mark)
            )
        return data

    def _node(self, loader: Any) -> Any:
        """Build the document's root node, iteratively (a deep file cannot exhaust the stack)."""
        while True:
            event = loader.get_event()
            first, first_key = len(self._position_log), len(self._key_log)
            if isinstance(event, yaml.ScalarEvent | yaml.AliasEvent | yaml.CollectionStartEvent):
                path = self._child_path(event)
                anchored = not isinstance(event, yaml.AliasEvent) and event.anchor  # an alias's names another
                self._record(path, event.start_mark, logged=bool(self._anchored or anchored))
            if isinstance(event, yaml.ScalarEvent):
                done, size = _scalar(event), 1 + len(event.value)
                if event.anchor:
                    self._anchor(event.anchor, done, size, path, first, first_key)
            elif isinstance(event, yaml.AliasEvent):
                done, size = self._alias(event, path)
            elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
                if len(self._stack) >= self._max_depth:
                    raise UsageError(
                        f"YAML nested more than {self._max_depth} levels deep ({limits.YAML_DEPTH.env} raises "
                        "the limit)",
                        self._where(event.start_mark),
                    )
                mapping = isinstance(event, yaml.MappingStartEvent)
                self._anchored += bool(event.anchor)
                self._stack.append(
                    _Frame(
                        path,
                        event.start_mark,
                        event.anchor,
                        {} if mapping else [],
                        first,
                        first_key,
                    )
                )
                continue
            else:  # the end of a collection
                frame = self._stack.pop()
                self._anchored -= bool(frame.anchor)
                done, size = frame.value, frame.size
                if frame.merged:
                    for key, value in frame.merged.items():
                        done.setdefault(key, value)
                if frame.anchor:
                    self._anchor(frame.anchor, done, size, frame.path, frame.positions_from, frame.keys_from)
            if not self._stack:
                return done
            self._attach(event, done, size)

    def _child_path(self, event: Any) -> PathKey:
        if not self._stack:
            return ()
        frame = self._stack[-1]
        if isinstance(frame.value, list):
            return (*frame.path, len(frame.value))
        if frame.key is None:  # a key: its position is kept apart, under the path it names
            if not isinstance(event, yaml.ScalarEvent):
                raise UsageError("mapping keys must be plain strings", self._where(event.start_mark))
            if event.style == "" and event.value == "<<" and event.tag is None:
                return (*frame.path, "<<key")
            return (*frame.path, event.value)
        return (*frame.path, "<<" if frame.key is _MERGE else frame.key)

    def _record(self, path: PathKey, mark: Any, *, logged: bool) -> None:
        frame = self._stack[-1] if self._stack else None
        if frame is not None and isinstance(frame.value, dict) and frame.key is None:
            return  # keys are recorded when they are attached
        position = _pack(mark.line + 1, mark.column + 1)
        self.positions[hash(path)] = position
        if logged:
            self._position_log.append((path, position))

    def _attach(self, event: Any, value: Any, size: int) -> None:
        frame = self._stack[-1]
        frame.size += size
        if isinstance(frame.value, list):
            frame.value.append(value)
            return
        if frame.key is None:  # ``value`` is a key (a scalar: checked in _child_path)
            if event.style == "" and event.value == "<<" and event.tag is None:
                frame.key = _MERGE
                return
            key = event.value
            if key in frame.value:
                raise UsageError(f"duplicate key {key!r}", self._where(event.start_mark))
            position = _pack(event.start_mark.line + 1, event.start_mark.column + 1)
            self.key_positions[hash((*frame.path, key))] = position
            if self._anchored:
                self._key_log.append(((*frame.path, key), position))
            frame.key = key
            return
        if frame.key is _MERGE:
            sources = value if isinstance(value, list) else [value]
            merged = frame.merged if frame.merged is not None else {}
            for source in sources:
                if not isinstance(source, dict):
                    raise UsageError("'<<' merge needs a mapping", self._where(event.start_mark))
                for key, item in source.items():
                    merged.setdefault(key, item)
            frame.merged = merged
        else:
            frame.value[frame.key] = value
        frame.key = None

    def _anchor(self, name: str, value: Any, size: int, path: PathKey, first: int, first_key: int) -> None:
        cut = len(path)
        self._anchors[name] = _Anchor(
            value,
            size,
            [(p[cut:], pos) for p, pos in self._position_log[first:]],
            [(p[cut:], pos) for p, pos in self._key_log[first_key:]],
        )

    def _alias(self, event: Any, path: PathKey) -> tuple[Any, int]:
        anchor = self._anchors.get(event.anchor)
        if anchor is None:
            raise UsageError(f"invalid YAML: found undefined alias {event.anchor!r}", self._where(event.start_mark))
        self._aliases += 1
        self._expansion += anchor.size
        if self._aliases > self._max_aliases:
            raise UsageError(
                f"more than {self._max_aliases} YAML aliases (*name) in one file "
                f"({limits.YAML_ALIASES.env} raises the limit)",
                self._where(event.start_mark),
            )
        if self._expansion > self._max_expansion:
            raise UsageError(
                f"YAML aliases (*name) expand to more than {self._max_expansion} nodes and characters "
                f"(an alias bomb?); {limits.YAML_EXPANSION.env} raises the limit",
                self._where(event.start_mark),
            )
        for relative, position in anchor.positions:
            self.positions[hash((*path, *relative))] = position
            if self._anchored:
                self._position_log.append(((*path, *relative), position))
        for relative, position in anchor.key_positions:
            self.key_positions[hash((*path, *relative))] = position
            if self._anchored:
                self._key_log.append(((*path, *relative), position))
        return copy.deepcopy(anchor.value), anchor.size


def _scalar(event: Any) -> Any:
    value: str = event.value
    if event.style or event.tag == "tag:yaml.org,2002:str":  # quoted or block scalar: always a string
        return value
    return resolve_plain_scalar(value)


def resolve_plain_scalar(value: str) -> Any:
    """Resolve an unquoted scalar the way the YAML 1.2 core schema does."""
    if value in _NULLS:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT.match(value):
        return int(value)
    if _OCT.match(value):
        return int(value[2:], 8)
    if _HEX.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if value in _INF:
        return math.inf
    if value in _NEG_INF:
        return -math.inf
    if value in _NAN:
        return math.nan
    return value
