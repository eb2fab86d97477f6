"""Read YAML into plain Python values while remembering where every value came from.

Trail and config files are validated after parsing; to point at ``file:line:col`` for a
problem found later (an unknown key, a wrong type, an unknown tool) the loader keeps, beside the
data, a table of the file's nodes — where each starts and how they nest (:class:`_Nodes`) — and
finds a value's position from its path (a tuple of keys and indexes) when a message needs it.

Plain scalars follow the YAML 1.2 core schema, as upstream Trailblaze (kaml) reads them:
only ``true``/``false`` are booleans, so ``textRegex: ON`` stays the string ``"ON"``, and
dates stay strings. Duplicate keys are an error instead of a silent overwrite.
"""

from __future__ import annotations

import copy
import gc
import re
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from trailblaze.core import limits
from trailblaze.core.errors import Location, UsageError
from trailblaze.core.sourcefile import read_source
from trailblaze.core.yamlscalars import NOT_TEXT_START, resolve_plain_scalar

try:  # the C parser is ~10x faster; the wheels ship it, source builds may not
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]
from yaml import SafeLoader as _PurePythonLoader

PathKey = tuple[str | int, ...]


class YamlDocument:
    """A parsed YAML file: its data plus a way to ask where any part of it came from.

    Where things are is kept apart from the data (:class:`_Nodes`), so the data may change and
    the positions still say where each path was written."""

    def __init__(self, path: str | None, data: Any, nodes: _Nodes | None = None) -> None:
        self.path = path
        self.data = data
        self._nodes = nodes if nodes is not None else _Nodes(0)
        #: the last path found whole, and its node: a loader asks for a step, then for its call,
        #: then for the call's arguments, and each walk goes on from the one before
        self._last: tuple[tuple[str | int, ...], int] = ((), 0)

    def key_location(self, key_path: Sequence[str | int]) -> Location:
        """Where the *key* of the mapping entry at ``key_path`` is written (for "unknown key")."""
        if key_path and isinstance(key_path[-1], str):
            parent, found = self._walk(key_path[:-1])
            if found:
                value = self._nodes.find_as_written(parent, key_path[-1])
                if value >= 0:
                    return self._at(value - 1)  # a mapping's key node comes right before its value
        return self.location(key_path)

    def location(self, key_path: Sequence[str | int] = ()) -> Location:
        """The location of the value at ``key_path``, or of its nearest ancestor that has one.

        A key may be given in snake_case or camelCase; the spelling used in the file is found.
        """
        return self._at(self._walk(key_path)[0])

    def locator(self, key_path: Sequence[str | int]) -> Callable[[Sequence[str | int]], Location]:
        """``locate(sub)``: the location of ``(*key_path, *sub)``, as :meth:`location` finds it,
        with ``key_path`` looked up once (a trail keeps one for each of its tool calls)."""
        node, found = self._walk(key_path)
        return _Locator(self, node) if found else _Nearest(self, node)

    def _walk(self, key_path: Sequence[str | int]) -> tuple[int, bool]:
        path = key_path if isinstance(key_path, tuple) else tuple(key_path)
        last_path, last_node = self._last
        if last_path and path[: len(last_path)] == last_path:
            node, found = self._nodes.walk(path[len(last_path) :], last_node)
        else:
            node, found = self._nodes.walk(path)
        if found:
            self._last = (path, node)  # one assignment: a thread reading it sees a path and its node
        return node, found

    def _at(self, node: int) -> Location:
        if node < 0:
            return Location(self.path)
        node = self._nodes.aliases.get(node, node)  # an alias is where what it repeats is
        packed = self._nodes.marks[node]
        return Location(self.path, (packed >> 32) + 1, (packed & _COLUMN_MAX) + 1)


class _Locator:
    """Finds locations below one node of a document (:meth:`YamlDocument.locator`)."""

    __slots__ = ("_doc", "_node")

    def __init__(self, doc: YamlDocument, node: int) -> None:
        self._doc, self._node = doc, node

    def __call__(self, sub: Sequence[str | int]) -> Location:
        return self._doc._at(self._doc._nodes.walk(sub, self._node)[0] if sub else self._node)


class _Nearest(_Locator):
    """Below a path that is not all in the file, where everything is: its nearest ancestor."""

    __slots__ = ()

    def __call__(self, sub: Sequence[str | int]) -> Location:
        return self._doc._at(self._node)


#: a column too wide for its 32 bits (a line of 4 GiB) is shown as this one
_COLUMN_MAX = 0xFFFFFFFF
#: children of a mapping or list looked through one by one; one with more gets an index
_SCAN = 16


class _Nodes:
    """Every node of a document in the order it is written — a mapping's keys are nodes too,
    each right before its value — with where each starts and how they nest.

    Twelve bytes a node, in two flat arrays: a big file has a million values, and a path and a
    position kept for each in dicts cost 16 times the file (144 MB for a 9 MB trail).

    ``marks[n]``: the node's 0-based line and column, packed (line << 32 | column).
    ``links[n]``: for a mapping or a list, the number of the node after its last descendant (so
    its children are found by skipping from one to the next); for a key, minus the number of its
    text in ``texts`` (each text kept once); 0 for any other scalar and for an alias.
    ``aliases``: each alias node and the node it repeats.

    A path is found by walking from the root (node 0); a mapping or list with more than
    :data:`_SCAN` children is indexed the first time it is walked."""

    def __init__(self, size: int) -> None:
        self.marks = array("Q")
        self.links = array("i" if size < 1 << 30 else "q")  # a node takes at least half a character
        self.texts: list[str] = [""]
        self.text_numbers: dict[str, int] = {}
        self.aliases: dict[int, int] = {}
        self._indexes: dict[int, dict[str, int] | array[int]] = {}

    def walk(self, key_path: Sequence[str | int], node: int = 0) -> tuple[int, bool]:
        """The node at ``key_path`` below ``node`` and True, or the nearest ancestor found and
        False (-1 for a document without nodes). A key not written as given is looked for in
        camelCase and in snake_case."""
        if not 0 <= node < len(self.links):
            return -1, False
        for part in key_path:
            child = self.find_as_written(node, part)
            if child < 0:
                return node, False
            node = child
        return node, True

    def find_as_written(self, node: int, part: str | int) -> int:
        """:meth:`find`, with a key not written as given looked for in camelCase, then in
        snake_case."""
        child = self.find(node, part)
        if child < 0 and isinstance(part, str):
            for variant in (_camel(part), _snake(part)):
                child = self.find(node, variant) if variant != part else -1
                if child >= 0:
                    break
        return child

    def find(self, node: int, part: str | int) -> int:
        """The value node of key ``part`` (exactly as written) of the mapping ``node``, or of
        item ``part`` of the list ``node``; -1 if there is none."""
        if self.aliases:
            node = self.aliases.get(node, node)
        links = self.links
        end, child = links[node], node + 1
        if end <= child:
            return -1  # a scalar, an alias, or an empty collection
        mapping = links[child] < 0
        if mapping:
            if not isinstance(part, str):
                return -1
            wanted = -self.text_numbers.get(part, 0)
            if not wanted:
                return -1  # no key of the file is written so
        elif not isinstance(part, int) or part < 0:
            return -1
        index = self._indexes.get(node)
        if index is not None:
            return _look_up(index, part)
        seen = 0
        while child < end:
            if mapping:
                if links[child] == wanted:
                    return child + 1
                child = links[child + 1] or child + 2
            else:
                if seen == part:
                    return child
                child = links[child] or child + 1
            seen += 1
            if seen == _SCAN and child < end:
                self._indexes[node] = index = self._index(node, mapping)
                return _look_up(index, part)
        return -1

    def _index(self, node: int, mapping: bool) -> dict[str, int] | array[int]:
        """A big collection's children: each key's text to its value node, or each item's node."""
        links, texts = self.links, self.texts
        end, child = links[node], node + 1
        if mapping:
            by_key: dict[str, int] = {}
            while child < end:
                by_key.setdefault(texts[-links[child]], child + 1)  # the first of a key written twice ('<<')
                child = links[child + 1] or child + 2
            return by_key
        items = array(links.typecode)
        while child < end:
            items.append(child)
            child = links[child] or child + 1
        return items


def _look_up(index: dict[str, int] | array[int], part: str | int) -> int:
    if isinstance(index, dict):
        return index.get(part, -1) if isinstance(part, str) else -1
    return index[part] if isinstance(part, int) and part < len(index) else -1


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def load_path(path: Path) -> YamlDocument:
    """Parse a YAML file; raise :class:`UsageError` with a location for anything malformed."""
    text = read_source(path)
    size = len(text)
    doc = load_text(text, str(path))
    del text
    if size >= _BIG_TEXT:
        _give_back_freed_memory()
    return doc


#: characters of a file whose text is big enough to give back once read
_BIG_TEXT = 1 << 20


def _give_back_freed_memory() -> None:
    """Return to the system what the C allocator keeps of a big file's text once it is read.

    The text, and the parser's UTF-8 copy of it, are freed when the data is built, but glibc's
    allocator keeps memory freed inside its heap for later use, and Python's objects are not
    made there: 10 to 25 MB of a 9 MB trail stayed in use while the trail was built and checked,
    the amount depending on what else the process had freed before. ``malloc_trim`` gives it
    back; where there is no glibc there is nothing to do."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with suppress(OSError, AttributeError):  # a C library without malloc_trim (musl)
        ctypes.CDLL(None).malloc_trim(0)


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
    builder = _Builder(path, len(text))
    try:
        with tree_building():
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
    return YamlDocument(path, data, builder.nodes)


@contextmanager
def tree_building() -> Iterator[None]:
    """Pause Python's cycle collector while a file's data, or what is made of it, is built.

    What is built holds no cycles, but each of its million objects would be walked by the
    collector again every time the objects alive grew by a quarter: it took a third of reading a
    100,000-step trail. What cycles others make meanwhile are collected once this ends."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


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
_ScalarEvent = yaml.ScalarEvent
_MappingStart = yaml.MappingStartEvent
_SequenceStart = yaml.SequenceStartEvent
_MappingEnd = yaml.MappingEndEvent
_SequenceEnd = yaml.SequenceEndEvent
_STR_TAG = "tag:yaml.org,2002:str"


@dataclass(slots=True)
class _Anchor:
    """An anchored value, what a ``*name`` repeating it adds (nodes plus characters), and its
    node (an alias's position is the anchor's, and so are its parts')."""

    value: Any
    size: int
    node: int


@dataclass(slots=True)
class _Frame:
    """A mapping or list being built."""

    value: Any
    node: int
    mapping: bool
    anchor: str | None
    #: :attr:`_Builder.weight` when it began (what an anchored one holds is the difference)
    weight_from: int
    key: Any = None  # mappings: the key whose value comes next (None: a key comes next)
    merged: dict[str, Any] | None = None


class _Builder:
    """Builds plain data from parser events, and the table of where its nodes are.

    Aliases are expanded into copies (the loaded data is a tree, as the rest of Trailblaze
    expects), within the bounds of :mod:`trailblaze.core.limits`: an alias bomb stops at the alias
    that goes over, with its line, long before it costs gigabytes."""

    def __init__(self, path: str | None, size: int) -> None:
        self.path = path
        self.nodes = _Nodes(size)
        self._anchors: dict[str, _Anchor] = {}
        self._max_depth = limits.YAML_DEPTH.get_int()
        self._max_aliases = limits.YAML_ALIASES.get_int()
        self._max_expansion = limits.YAML_EXPANSION.get_int()
        self._aliases = 0
        self._expansion = 0
        #: nodes plus characters read inside anchored collections: what an alias of one repeats
        self.weight = 0

    def _where(self, mark: Any) -> Location:
        return Location(self.path, mark.line + 1, mark.column + 1)

    def document(self, loader: Any) -> Any:
        loader.get_event()  # StreamStart
        if loader.check_event(yaml.StreamEndEvent):
            loader.get_event()
            return None
        loader.get_event()  # DocumentStart
        data = self._root(loader)
        loader.get_event()  # DocumentEnd
        if not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            raise UsageError(
                "invalid YAML: expected a single document, but found another one", self._where(event.start_mark)
            )
        return data

    def _root(self, loader: Any) -> Any:
        """Build the document's root node, iteratively (a deep file cannot exhaust the stack).

        Written for speed: a big trail has two million events."""
        get_event = loader.get_event
        nodes = self.nodes
        add_mark, add_link = nodes.marks.append, nodes.links.append
        links = nodes.links
        column_max, not_text_start, resolve = _COLUMN_MAX, NOT_TEXT_START, resolve_plain_scalar
        stack: list[_Frame] = []
        top: _Frame | None = None
        key_next = False  # whether the next node is a key of the mapping ``top``
        anchored = 0  # anchored collections being built
        while True:
            event = get_event()
            kind = event.__class__
            if kind is _ScalarEvent or kind is _MappingStart or kind is _SequenceStart or kind is yaml.AliasEvent:
                node = len(links)
                mark = event.start_mark
                column = mark.column
                add_mark(mark.line << 32 | (column if column < column_max else column_max))
                if key_next:
                    if kind is not _ScalarEvent:
                        raise UsageError("mapping keys must be plain strings", self._where(mark))
                    assert top is not None
                    add_link(-self._key(top, event))
                    key_next = False
                    if anchored:
                        self.weight += 1 + len(event.value)
                    if event.anchor:
                        self._anchors[event.anchor] = _Anchor(_scalar(event), 1 + len(event.value), node)
                    continue
                add_link(0)  # a collection's end is set when it ends
                if kind is _ScalarEvent:
                    value = event.value
                    if not event.style and (not value or value[0] in not_text_start) and event.tag != _STR_TAG:
                        value = resolve(value)  # a plain scalar that may be no string
                    if anchored:
                        self.weight += 1 + len(event.value)
                    if event.anchor:
                        self._anchors[event.anchor] = _Anchor(value, 1 + len(event.value), node)
                elif kind is yaml.AliasEvent:
                    value, size = self._alias(event, node)
                    if anchored:
                        self.weight += size
                else:
                    if len(stack) >= self._max_depth:
                        raise UsageError(
                            f"YAML nested more than {self._max_depth} levels deep ({limits.YAML_DEPTH.env} raises "
                            "the limit)",
                            self._where(mark),
                        )
                    mapping = kind is _MappingStart
                    anchored += bool(event.anchor)
                    top = _Frame({} if mapping else [], node, mapping, event.anchor, self.weight)
                    if anchored:
                        self.weight += 1
                    stack.append(top)
                    key_next = mapping
                    continue
            elif kind is _MappingEnd or kind is _SequenceEnd:
                frame = stack.pop()
                top = stack[-1] if stack else None
                key_next = False
                links[frame.node] = len(links)
                value = frame.value
                if frame.merged:
                    for key, item in frame.merged.items():
                        value.setdefault(key, item)
                if frame.anchor:
                    anchored -= 1
                    self._anchors[frame.anchor] = _Anchor(value, self.weight - frame.weight_from, frame.node)
            else:  # pragma: no cover - a parser hands out nothing else inside a document
                raise UsageError(f"invalid YAML: unexpected {kind.__name__}", self._where(event.start_mark))
            if top is None:
                return value
            if not top.mapping:
                top.value.append(value)
                continue
            if top.key is _MERGE:
                self._merge(top, value, event)
            else:
                top.value[top.key] = value
            top.key = None
            key_next = True

    def _key(self, frame: _Frame, event: Any) -> int:
        """Take the key ``event`` of the mapping ``frame``; the number of its text, for the table.

        Each text is kept once, for the data too: a big file repeats a few keys a million times."""
        text: str = event.value
        merge = text == "<<" and not event.style and event.tag is None
        if not merge and text in frame.value:
            raise UsageError(f"duplicate key {text!r}", self._where(event.start_mark))
        nodes = self.nodes
        number = nodes.text_numbers.get(text)
        if number is None:
            number = nodes.text_numbers[text] = len(nodes.texts)
            nodes.texts.append(text)
        frame.key = _MERGE if merge else nodes.texts[number]
        return number

    def _merge(self, frame: _Frame, value: Any, event: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        merged = frame.merged if frame.merged is not None else {}
        for source in sources:
            if not isinstance(source, dict):
                raise UsageError("'<<' merge needs a mapping", self._where(event.start_mark))
            for key, item in source.items():
                merged.setdefault(key, item)
        frame.merged = merged

    def _alias(self, event: Any, node: int) -> tuple[Any, int]:
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
        self.nodes.aliases[node] = anchor.node
        return copy.deepcopy(anchor.value), anchor.size


def _scalar(event: Any) -> Any:
    value: str = event.value
    if event.style or event.tag == _STR_TAG:  # quoted or block scalar: always a string
        return value
    return resolve_plain_scalar(value)
