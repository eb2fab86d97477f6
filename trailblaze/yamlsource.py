"""Read YAML into plain Python values while remembering where every value came from.

Trail and config files are validated after parsing; to point at ``file:line:col`` for a
problem found later (an unknown key, a wrong type, an unknown tool) the loader keeps a table
from each value's path (a tuple of keys and indexes) to its position in the file.

Plain scalars follow the YAML 1.2 core schema, as upstream Trailblaze (kaml) reads them:
only ``true``/``false`` are booleans, so ``textRegex: ON`` stays the string ``"ON"``, and
dates stay strings. Duplicate keys are an error instead of a silent overwrite.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from trailblaze.errors import Location, UsageError

try:  # the C parser is ~10x faster; the wheels ship it, source builds may not
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

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
_MAX_DEPTH = 200


class YamlDocument:
    """A parsed YAML file: its data plus a way to ask where any part of it came from."""

    def __init__(
        self,
        path: str | None,
        data: Any,
        positions: dict[PathKey, tuple[int, int]],
        key_positions: dict[PathKey, tuple[int, int]] | None = None,
    ) -> None:
        self.path = path
        self.data = data
        self._positions = positions
        self._key_positions = key_positions or {}

    def key_location(self, key_path: Sequence[str | int]) -> Location:
        """Where the *key* of the mapping entry at ``key_path`` is written (for "unknown key")."""
        parts = self._spelled_as_written(tuple(key_path))
        pos = self._key_positions.get(parts)
        return Location(self.path, pos[0], pos[1]) if pos else self.location(key_path)

    def location(self, key_path: Sequence[str | int] = ()) -> Location:
        """The location of the value at ``key_path``, or of its nearest ancestor that has one.

        A key may be given in snake_case or camelCase; the spelling used in the file is found.
        """
        parts = self._spelled_as_written(tuple(key_path))
        while True:
            pos = self._positions.get(parts)
            if pos is not None:
                return Location(self.path, pos[0], pos[1])
            if not parts:
                return Location(self.path)
            parts = parts[:-1]

    def _spelled_as_written(self, key_path: PathKey) -> PathKey:
        written: list[str | int] = []
        for part in key_path:
            candidate: str | int = part
            if isinstance(part, str) and (*written, part) not in self._positions:
                for variant in (_camel(part), _snake(part)):
                    if (*written, variant) in self._positions:
                        candidate = variant
                        break
            written.append(candidate)
        return tuple(written)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def load_path(path: Path) -> YamlDocument:
    """Parse a YAML file; raise :class:`UsageError` with a location for anything malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError("file not found", Location(str(path))) from None
    except IsADirectoryError:
        raise UsageError("is a directory, expected a YAML file", Location(str(path))) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"not UTF-8 text ({exc.reason})", Location(str(path))) from None
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror}", Location(str(path))) from None
    return load_text(text, str(path))


def load_text(text: str, path: str | None = None) -> YamlDocument:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem:
            problem = f"{exc.problem} ({exc.context})"
        location = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path)
        raise UsageError(f"invalid YAML: {problem}", location) from None
    except yaml.YAMLError as exc:
        raise UsageError(f"invalid YAML: {exc}", Location(path)) from None
    finally:
        loader.dispose()
    builder = _Builder(path)
    data = None if node is None else builder.build(node, ())
    return YamlDocument(path, data, builder.positions, builder.key_positions)


class _Builder:
    def __init__(self, path: str | None) -> None:
        self.path = path
        self.positions: dict[PathKey, tuple[int, int]] = {}
        self.key_positions: dict[PathKey, tuple[int, int]] = {}

    def _where(self, node: yaml.Node) -> Location:
        return Location(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def build(self, node: yaml.Node, key_path: PathKey) -> Any:
        if len(key_path) > _MAX_DEPTH:
            raise UsageError("YAML nested too deeply (recursive alias?)", self._where(node))
        self.positions[key_path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*key_path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, key_path)
        raise UsageError(f"unsupported YAML node {node.tag}", self._where(node))  # pragma: no cover

    def _mapping(self, node: yaml.MappingNode, key_path: PathKey) -> dict[str, Any]:
        result: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged.update(self._merge_source(value_node, key_path))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise UsageError("mapping keys must be plain strings", self._where(key_node))
            key = key_node.value
            if key in result:
                raise UsageError(f"duplicate key {key!r}", self._where(key_node))
            self.key_positions[(*key_path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            result[key] = self.build(value_node, (*key_path, key))
        for key, value in merged.items():
            result.setdefault(key, value)
        return result

    def _merge_source(self, node: yaml.Node, key_path: PathKey) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for source in sources:
            value = self.build(source, (*key_path, "<<"))
            if not isinstance(value, dict):
                raise UsageError("'<<' merge needs a mapping", self._where(source))
            for key, item in value.items():
                merged.setdefault(key, item)
        return merged

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        value: str = node.value
        tag = node.tag
        if node.style or tag == "tag:yaml.org,2002:str":  # quoted or block scalar: always a string
            return value
        if tag == "tag:yaml.org,2002:null":
            return None
        if tag == "tag:yaml.org,2002:bool" and value in _TRUE | _FALSE:
            return value in _TRUE
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
