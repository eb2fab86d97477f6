"""Write recordings back into a trail file and leave the rest of the file exactly as it was.

A trail file is hand-written: comments, key order, quoting, blank lines and the recordings of
other devices belong to its author. Loading it into a data structure and dumping it again
would normalise all of that, so the writer edits the *text* instead. ruamel.yaml's composer
gives the character span of every node; only the span of the recording being replaced (or the
point where a new one goes) changes, and the new recording is laid out with the indentation
the file already uses. Every other byte stays the same.

Before anything is written the result is loaded again and compared with what was intended:
the edited steps hold exactly the new calls and every other recording is unchanged. A file
that would not round-trip is never written. Writes are atomic (a temporary file, then a
rename), and a file that changed on disk since it was read is not overwritten silently: the
recordings are merged into the new content when its steps still line up, otherwise saving
stops with :class:`TrailChangedError`.
"""

from __future__ import annotations

import difflib
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import Location, TrailblazeError, UsageError
from trailblaze.core.fileio import write_atomic
from trailblaze.core.sourcefile import read_source
from trailblaze.tools.model import ToolCall
from trailblaze.trail.model import Step, Trail
from trailblaze.trail.yamlstyle import Call, Calls, Layout, call_text, emit_key, emit_value, plain

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

PathKey = tuple[str | int, ...]
__all__ = ["RecordingEdit", "SaveResult", "TrailChangedError", "TrailFile", "apply_edits", "call_text"]


class TrailChangedError(UsageError):
    """The trail file changed on disk while recording, and its steps no longer line up."""


@dataclass(frozen=True, slots=True)
class RecordingEdit:
    """Put ``calls`` under ``classifier`` in the recording of the step at ``key_path``.

    ``classifier`` is None for legacy-format steps, which hold one recording without a device
    key. ``kind`` and ``text`` identify the step, to check it is still the same step when the
    file changed on disk in the meantime.
    """

    key_path: PathKey
    kind: str
    index: int
    text: str | None
    classifier: str | None
    calls: tuple[ToolCall, ...]

    @classmethod
    def for_step(cls, trail: Trail, step: Step, classifier: str, calls: Sequence[ToolCall]) -> RecordingEdit:
        legacy = trail.format == "legacy"
        return cls(step.key_path, step.kind, step.index, step.text, None if legacy else classifier, tuple(calls))

    def label(self) -> str:
        return "trailhead" if self.kind == "trailhead" else f"{self.kind} {self.index + 1}"


# -- the file ---------------------------------------------------------------------------------------


class TrailFile:
    """A trail file as it was when recording started, and the way to save recordings into it."""

    def __init__(self, path: Path) -> None:
        #: the path as given (made absolute), whose last part may be a link the save refuses
        self.given = Path(os.path.abspath(path))
        self.path = path.resolve()
        self.original = read_text(self.path)

    def render(self, edits: Sequence[RecordingEdit], base: str | None = None) -> str:
        """The file's text with ``edits`` applied (checked to round-trip)."""
        text = self.original if base is None else base
        _check_still_lines_up(self.path, text, edits)  # the edits were made for these steps
        new = apply_edits(text, edits, str(self.path))
        check_round_trip(self.path, text, new, edits)
        return new

    def diff(self, edits: Sequence[RecordingEdit], display_path: str | None = None) -> str:
        """A unified diff from the file on disk to the file with ``edits`` applied."""
        name = display_path or str(self.path)
        new = self.render(edits)
        return "".join(
            difflib.unified_diff(
                self.original.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )

    def save(self, edits: Sequence[RecordingEdit]) -> SaveResult:
        """Write ``edits`` into the file atomically.

        When the file changed on disk since it was read, the edits are applied to the new
        content if every edited step is still there with the same kind and text, and its
        recording for the edit's device is still the one it had (the result says ``merged``);
        otherwise :class:`TrailChangedError` is raised and nothing is written: a recording that
        appeared or changed meanwhile (another ``record``, an edit by hand) is never replaced.
        """
        if self.given.is_symlink():  # written through, it would edit a file elsewhere; replaced, a link is lost
            raise UsageError(
                f"{self.given} is a link, which trailblaze does not write through: record the file it points to "
                f"({self.path}) instead"
            )
        current = read_text(self.path)
        merged = current != self.original
        if merged:
            _check_recordings_unchanged(self.path, self.original, current, edits)
        new = self.render(edits, base=current)
        changed = new != current
        if changed:
            write_atomic(self.path, new)
        self.original = new
        return SaveResult(changed=changed, merged=merged)


@dataclass(frozen=True, slots=True)
class SaveResult:
    changed: bool
    merged: bool


def read_text(path: Path) -> str:
    """The file's text with its line endings as they are (``\\r\\n`` stays ``\\r\\n``)."""
    return read_source(path)


def _check_still_lines_up(path: Path, current: str, edits: Sequence[RecordingEdit]) -> None:
    root = _compose(current, str(path))
    for edit in edits:
        node = _find(root, edit.key_path)
        expected = ("verify" if edit.kind == "verify" else "step", edit.text)
        if node is None or _step_identity(node) != expected:
            raise TrailChangedError(
                f"the file changed on disk while recording and its {edit.label()} {edit.text!r} is no longer "
                f"where it was; the file was not overwritten",
                Location(str(path)),
            )


def _check_recordings_unchanged(path: Path, before: str, now: str, edits: Sequence[RecordingEdit]) -> None:
    """Every recording ``edits`` would write is, on disk ``now``, as it was ``before`` recording."""
    _check_still_lines_up(path, now, edits)  # the steps themselves first: the clearer message
    old, new = _compose(before, str(path)), _compose(now, str(path))
    changed = [e for e in edits if _recording_text(before, old, e) != _recording_text(now, new, e)]
    if changed:
        labels = ", ".join(e.label() for e in changed)
        device = changed[0].classifier or "this trail"
        raise TrailChangedError(
            f"the file changed on disk while recording: {labels} got another recording for {device} meanwhile "
            "(another `trailblaze record`, or an edit); the file was not overwritten",
            Location(str(path)),
        )


def _recording_text(text: str, root: Node, edit: RecordingEdit) -> str | None:
    """The text of the recording ``edit`` replaces (None: the step has none for its device)."""
    from ruamel.yaml.nodes import MappingNode

    step = _find(root, edit.key_path)
    if not isinstance(step, MappingNode):
        return None
    recording = _value_node(step, "recording") or _value_node(step, "tools")
    if recording is not None and edit.classifier is not None:
        recording = _value_node(recording, edit.classifier) if isinstance(recording, MappingNode) else None
    if recording is None or _is_null(recording):
        return None
    return text[recording.start_mark.index : _content_end(text, recording)]


def _step_identity(node: Node) -> tuple[str, str | None] | None:
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    if not isinstance(node, MappingNode):
        return None
    keys = {k.value: v for k, v in node.value if isinstance(k, ScalarNode)}
    if "tools" in keys and "step" not in keys and "verify" not in keys:
        return ("step", None)
    for kind in ("step", "verify"):
        value = keys.get(kind)
        if isinstance(value, ScalarNode):
            return (kind, value.value)
    return None


def unwritable_steps(path: Path, steps: Sequence[Step]) -> list[UsageError]:
    """The steps of the file at ``path`` that no recording could be written into (a step
    written as a flow mapping, ``- {step: …}``): found before recording starts, not after a
    person or an agent recorded every step."""
    from ruamel.yaml.nodes import MappingNode

    text = read_text(path)
    root = _compose(text, str(path))
    problems: list[UsageError] = []
    for step in steps:
        node = _find(root, step.key_path)
        if isinstance(node, MappingNode) and node.flow_style:
            problems.append(
                UsageError(
                    "cannot write a recording into a step written in flow style ({...}); write the step as a "
                    "block mapping",
                    Location(str(path), node.start_mark.line + 1, node.start_mark.column + 1),
                )
            )
    return problems


# -- applying edits -------------------------------------------------------------------------------------


def apply_edits(text: str, edits: Sequence[RecordingEdit], path: str | None = None) -> str:
    """``text`` with every edit applied; the untouched parts are kept byte for byte."""
    root = _compose(text, path)
    layout = Layout.detect(text, root)
    patches: list[tuple[int, int, str]] = []
    for edit in edits:
        patches.append(_patch_for(text, root, edit, layout, path))
    patches.sort(key=lambda p: p[0])
    for (_, end, _), (start, _, _) in itertools.pairwise(patches):
        if start < end:
            raise TrailblazeError("internal error: two recording edits overlap")
    for start, end, replacement in reversed(patches):
        if end < start:
            raise TrailblazeError("internal error: a recording edit has a negative span")
        text = text[:start] + replacement + text[end:]
    return text


def _patch_for(text: str, root: Node, edit: RecordingEdit, layout: Layout, path: str | None) -> tuple[int, int, str]:
    from ruamel.yaml.nodes import MappingNode

    step = _find(root, edit.key_path)
    where = Location(path)
    if not isinstance(step, MappingNode):
        raise UsageError(f"cannot find the {edit.label()} to write its recording", where)
    if step.flow_style:
        raise UsageError(
            f"cannot write a recording into a step written in flow style ({{...}}) at line "
            f"{step.start_mark.line + 1}; write the step as a block mapping",
            where,
        )
    value: Any = _calls_value(edit)
    if _key_node(step, "tools") is not None and _key_node(step, "recording") is None:
        return _set_key(text, step, "tools", value, layout)  # legacy `- tools:` item
    recording = _value_node(step, "recording")
    key = edit.classifier or "tools"
    if recording is None or _is_null(recording):
        return _set_key(text, step, "recording", {key: value}, layout)
    if not isinstance(recording, MappingNode):
        raise UsageError(f"the recording at line {recording.start_mark.line + 1} is not a mapping", where)
    if recording.flow_style:
        verbatim = _flow_entries_as_block(text, step, recording, key, value, layout)
        if verbatim is not None:
            return verbatim
        data = dict(_plain_value(text, recording, path))
        data[key] = value
        return _set_key(text, step, "recording", data, layout)
    return _set_key(text, recording, key, value, layout)


def _flow_entries_as_block(
    text: str, step: Node, recording: Node, key: str, value: Any, layout: Layout
) -> tuple[int, int, str] | None:
    """A one-line flow ``recording: {android: [...]}  # note`` rewritten as a block mapping in
    which the other devices' entries keep their text as written (quotes, spacing) and the
    comment stays on the ``recording:`` line, then ``key: value``. None when the mapping spans
    lines (it is then written out again)."""
    nl = layout.newline
    start, end = recording.start_mark.index, recording.end_mark.index
    if "\n" in text[start:end] or "\r" in text[start:end]:
        return None
    key_node = _key_node(step, "recording")
    assert key_node is not None  # the recording was found under it
    colon = text.index(":", key_node.end_mark.index)
    line_end = _line_end(text, end)
    trailing = text[end:line_end].strip()
    comment = f" {trailing}" if trailing.startswith("#") else ""
    column = key_node.start_mark.column + layout.mapping
    kept = [text[k.start_mark.index : v.end_mark.index] for k, v in recording.value if k.value != key]
    lines = "".join(nl + " " * column + entry for entry in kept)
    added = nl + " " * column + emit_key(key, layout) + ":" + emit_value(value, column, layout)
    return colon + 1, line_end, comment + lines + added


def _calls_value(edit: RecordingEdit) -> Any:
    calls = [{c.name: plain(c.args)} for c in edit.calls]
    if edit.kind == "trailhead" and len(calls) == 1:
        return Call(calls[0])
    return Calls(calls)


def _set_key(text: str, mapping: Node, key: str, value: Any, layout: Layout) -> tuple[int, int, str]:
    """The patch that sets ``key`` of a block mapping to ``value``: replaces the old value
    (its comments go with it) or adds the key after the mapping's last entry."""
    from ruamel.yaml.nodes import ScalarNode

    nl = layout.newline
    key_node = _key_node(mapping, key)
    if key_node is None:
        keys = [k for k, _ in mapping.value]
        column = keys[0].start_mark.column if keys else mapping.start_mark.column
        at = _line_end(text, _content_end(text, mapping))
        return at, at, nl + " " * column + emit_key(key, layout) + ":" + emit_value(value, column, layout)
    old = _value_node(mapping, key)
    assert old is not None
    if old.start_mark.index < key_node.end_mark.index:
        raise UsageError(
            f"cannot replace {key}: at line {key_node.start_mark.line + 1}: it is a YAML alias (*name); "
            "write the value out instead",
            Location(None, key_node.start_mark.line + 1),
        )
    colon = text.index(":", key_node.end_mark.index)
    key_line_end = _line_end(text, colon)
    starts_below = old.start_mark.index > key_line_end or (isinstance(old, ScalarNode) and _is_null(old))
    end = key_line_end if _is_null(old) else _line_end(text, _content_end(text, old))
    column = key_node.start_mark.column
    replacement = emit_value(value, column, layout)
    if starts_below and replacement.startswith(nl):
        return key_line_end, end, replacement  # keep a comment on the key's own line
    return colon + 1, end, replacement


# -- reading the document --------------------------------------------------------------------------------


def _compose(text: str, path: str | None) -> Node:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        node: Node | None = YAML(typ="rt").compose(text)
    except YAMLError as exc:
        raise UsageError(f"invalid YAML: {exc}", Location(path)) from None
    if node is None:
        raise UsageError("the file is empty", Location(path))
    return node


def _find(node: Node, key_path: PathKey) -> Node | None:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    for part in key_path:
        if isinstance(part, int) and isinstance(node, SequenceNode):
            if part >= len(node.value):
                return None
            node = node.value[part]
        elif isinstance(part, str) and isinstance(node, MappingNode):
            found = _value_node(node, part)
            if found is None:
                return None
            node = found
        else:
            return None
    return node


def _key_node(mapping: Node, key: str) -> Node | None:
    from ruamel.yaml.nodes import ScalarNode

    for k, _ in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k
    return None


def _value_node(mapping: Node, key: str) -> Node | None:
    from ruamel.yaml.nodes import ScalarNode

    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            found: Node = v
            return found
    return None


def _is_null(node: Node) -> bool:
    from ruamel.yaml.nodes import ScalarNode

    return isinstance(node, ScalarNode) and not node.style and node.value in ("", "~", "null", "Null", "NULL")


def _content_end(text: str, node: Node) -> int:
    """Where the node's own content ends: block collections' spans run on over the comments
    and blank lines that follow them, which belong to what comes next."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    if isinstance(node, ScalarNode):
        end: int = node.end_mark.index
        if node.style in ("|", ">"):
            segment = text[node.start_mark.index : end]
            end = node.start_mark.index + len(segment.rstrip())
        return end
    if getattr(node, "flow_style", False):
        return int(node.end_mark.index)
    children: list[Node] = []
    if isinstance(node, MappingNode):
        for k, v in node.value:
            children.extend((k, v))
    elif isinstance(node, SequenceNode):
        children.extend(node.value)
    if not children:
        return int(node.end_mark.index)
    ends = []
    for child in children:
        if child.start_mark.index < node.start_mark.index:
            raise UsageError(
                "cannot write into a part of the file that uses YAML aliases (*name); expand the alias first",
                Location(None, child.start_mark.line + 1),
            )
        ends.append(_content_end(text, child))
    return max(ends)


def _line_end(text: str, index: int) -> int:
    """The end of the line holding ``index`` (before its line break)."""
    if index > 0 and text[index - 1 : index] == "\n" and index == len(text):
        return index - 1
    newline = text.find("\n", index)
    if newline == -1:
        return len(text)
    if newline > 0 and text[newline - 1] == "\r":
        return newline - 1
    return newline


def _plain_value(text: str, node: Node, path: str | None) -> Any:
    from trailblaze.core.yamlsource import load_text

    return load_text(text[node.start_mark.index : node.end_mark.index], path).data


# -- the round-trip check -----------------------------------------------------------------------------------------


def check_round_trip(path: Path, before: str, after: str, edits: Sequence[RecordingEdit]) -> None:
    """Load ``before`` and ``after`` and make sure exactly the intended recordings changed."""
    from trailblaze.trail.loader import load_trail

    environ: dict[str, str] = _EnvironAnything()
    try:
        old = load_trail(path, text=before, environ=environ, require_args=False)
        new = load_trail(path, text=after, environ=environ, require_args=False)
    except TrailblazeError as exc:
        raise TrailblazeError(f"internal error: writing the recording would break {path}: {exc}") from None
    legacy = old.format == "legacy"
    wanted = {(e.key_path, e.classifier): e for e in edits}
    old_steps = {s.key_path: s for s in old.all_steps}
    new_steps = {s.key_path: s for s in new.all_steps}
    problems: list[str] = []
    if old.config != new.config or list(old_steps) != list(new_steps):
        problems.append("the steps or the config changed")
    for key_path, new_step in new_steps.items():
        before_step = old_steps.get(key_path)
        if before_step is None:
            continue
        if (new_step.kind, new_step.text) != (before_step.kind, before_step.text):
            problems.append(f"the text of step {key_path} changed")
        old_recordings = _recordings(before_step)
        new_recordings = _recordings(new_step)
        for key in set(old_recordings) | set(new_recordings):
            if (key_path, None if legacy else key) in wanted:
                continue
            if old_recordings.get(key) != new_recordings.get(key):
                problems.append(f"the recording of step {key_path} for {key} changed")
    for (key_path, classifier), edit in wanted.items():
        edited = new_steps.get(key_path)
        got = _recordings(edited) if edited is not None else {}
        if classifier is None:
            got_calls = next(iter(got.values()), None) if len(got) == 1 else None
        else:
            got_calls = got.get(classifier)
        if got_calls != [(c.name, plain(c.args)) for c in edit.calls]:
            problems.append(f"the new recording of {edit.label()} reads back differently")
    if problems:
        raise TrailblazeError(f"internal error: refusing to write {path}: {'; '.join(problems)}")


def _recordings(step: Step) -> dict[str, list[tuple[str, Any]]]:
    return {k: [(c.name, plain(c.args)) for c in calls] for k, calls in (step.recordings or {}).items()}


class _EnvironAnything(dict[str, str]):
    """An environment in which every ``${VAR}`` is set: the check compares text, not values."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> str:
        return ""
