"""Property: whatever a tool call's arguments hold, the writer writes them back so that they
read back equal — in files whose recordings are block or flow style, keeping the comments.

The writer's own read-back check stays the last guard (a value that would not round-trip is
refused, never written); these properties make sure it never has to refuse.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trailblaze.core.interpolate import references
from trailblaze.tools.model import ToolCall
from trailblaze.trail.loader import load_trail
from trailblaze.trail.writer import RecordingEdit, TrailFile
from trailblaze.trail.yamlstyle import plain

BLOCK = """
# a trail with comments everywhere
config:
  title: Round trip  # the title
trail:
  # the first step
  - step: Type the text
    recording:
      web:
        - web_navigate: {url: /forms.html}  # replaced with the recording it is on
      android:  # another device's recording: kept
        - inputText: {text: hi}
  - step: Another step  # untouched
    recording:
      web:
        - web_pressKey: {key: Enter}
# the end
"""

FLOW = """
# flow-style recordings
trail:
  - step: Type the text
    recording: {web: [{web_navigate: {url: /forms.html}}], android: [{inputText: {text: hi}}]}  # flow
  - step: Another step
    recording: {web: [web_pressKey: {key: Enter}]}
# the end
"""

DOUBLE_QUOTED = """
trail:
  - step: "Type the text"
    recording:
      web:
        - web_navigate: {url: "/forms.html"}
  - step: "Another step"
"""

#: strings as trails hold them: anything but a {{…}}/${…} reference (the recorder writes only
#: declared ones, and the loader rejects undeclared ones)
texts = st.text().filter(lambda s: not references(s))
scalars = st.one_of(
    texts,
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["yes", "no", "null", "~", "123", "1.5", "0x1f", ".inf", "on", "true", "Welcome, ada"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)
arguments = st.dictionaries(texts, values, max_size=5)


def _write_and_read(tmp_path: Path, template: str, args: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    path = tmp_path / "t.trail.yaml"
    path.write_text(textwrap.dedent(template).lstrip("\n"), encoding="utf-8")
    trail = load_trail(path, require_args=False)
    calls = [ToolCall("web_type", args), ToolCall("dumpMemory", {})]
    edit = RecordingEdit.for_step(trail, trail.steps[0], "web", calls)
    TrailFile(path).save([edit])
    text = path.read_text(encoding="utf-8")
    again = load_trail(path, require_args=False)
    recording = again.steps[0].recordings or {}
    return text, [(c.name, plain(c.args)) for c in recording["web"]]


@pytest.mark.parametrize("template", [BLOCK, FLOW, DOUBLE_QUOTED], ids=["block", "flow", "double-quoted"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=arguments)
@example(args={"text": "Welcome, ada"})
@example(args={"text": " lead", "t": "trail ", "c": "a: b # c", "b": "{x}[y]", "q": "'\"", "n": "a\nb\tc"})
@example(args={"yes": "no", "null": None, "1": "1", "x": ["1.5", "true", "~", "", "é 日本 🚀", "\x85\u2028\x7f"]})
def test_any_arguments_write_back_and_read_back_equal(tmp_path: Path, template: str, args: dict[str, Any]) -> None:
    text, recording = _write_and_read(tmp_path, template, args)
    assert recording == [("web_type", plain(args)), ("dumpMemory", {})], text
    for line in textwrap.dedent(template).splitlines():  # every comment is still there
        if "#" in line and "replaced" not in line:
            comment = line[line.index("#") :]
            assert comment in text, f"lost {comment!r}:\n{text}"
    assert "android" not in template or "inputText: {text: hi}" in text  # the other device's recording
