"""A tool's reply as the client's LLM reads it: one text block, the screen in it once.

Every MCP client shows a result's text to its LLM; not every one shows ``structuredContent``, and
some show it as escaped JSON besides the text. So a reply is text only (no tool declares an
output schema, so none owes structured content), in parts separated by a blank line:

1. for a failure, the message, as a replay prints it;
2. what the tool did, one ``key: value`` line per key — YAML, with nested values in flow style
   (``recorded: {step: 2, text: Click 'Search', tools: [{web_click: {ref: e12}}]}``) and a list
   of records one per line — which an LLM reads as easily as JSON, for fewer characters and
   no quotes to escape on the wire;
3. the screen: whole (``The screen now:``), or after an action what changed since the client
   was last sent it (:func:`screen_update`), when that is shorter.

Images (a screenshot) follow as image content.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

#: how the screen part of a reply begins
WHOLE_SCREEN = "The screen now:\n"
UNCHANGED_SCREEN = "The screen did not change."
CHANGED_SCREEN = "The screen changed (ask() shows all of it):\n"
FULL_HIERARCHY = "The screen now, every element with its attributes and bounds (JSON):\n"
#: markers of a changed screen's lines: new, gone, the same element (its ref) now reading otherwise
ADDED, REMOVED, CHANGED = "+ ", "- ", "~ "
_REF = re.compile(r" \[([a-z]+\d+)\]$")
#: what YAML takes for the end of a line: a text holding one is written double-quoted, escaped
LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


def text(message: str | None, account: Mapping[str, Any], screen: str | None) -> str:
    """The reply's text: the failure's message (None when it succeeded), the account, the screen."""
    parts = []
    if message is not None:
        parts.append(_without_blank_lines(message) or "failed")
    if account:
        parts.append(account_text(account))
    if screen:
        parts.append(screen)
    return "\n\n".join(parts)


def account_text(data: Mapping[str, Any]) -> str:
    """``data`` as YAML, a line per key. A value that fits on its line is in flow style
    (``{step: 2, tools: [...]}``); a longer one is laid out in block style, its parts by the same
    rule. Never a blank line (a text with line breaks is one quoted line), so the parts of a reply
    stay apart."""
    plain = json.loads(json.dumps(data, ensure_ascii=False, default=str))
    lines: list[str] = []
    for key, value in plain.items():
        lines.extend(_block(f"{_flow(key)}:", value, ""))
    return "\n".join(lines)


#: a value whose flow style would make its line longer than this is laid out in block style
LINE_WIDTH = 160


def _block(head: str, value: Any, indent: str) -> list[str]:
    """The lines of ``head`` (``key:`` or ``-``) and its ``value``, at ``indent``."""
    flow = _flow(value)
    if not isinstance(value, dict | list) or not value or len(indent) + len(head) + 1 + len(flow) <= LINE_WIDTH:
        return [f"{indent}{head} {flow}"]
    inner = indent + "  "
    lines = [f"{indent}{head}"]
    if isinstance(value, dict):
        for key, item in value.items():
            lines.extend(_block(f"{_flow(key)}:", item, inner))
        return lines
    at = inner if head == "-" else indent  # a list under a key may start at the key's column
    for item in value:
        lines.extend(_record(item, at) if isinstance(item, dict) else _block("-", item, at))
    return lines


def _record(item: dict[str, Any], indent: str) -> list[str]:
    """A mapping as an item of a block list: ``- {…}`` when it fits, else its first key after
    the dash and the others under it."""
    if not item or len(indent) + 2 + len(_flow(item)) <= LINE_WIDTH:
        return [f"{indent}- {_flow(item)}"]
    lines: list[str] = []
    for key, value in item.items():
        lines.extend(_block(f"{_flow(key)}:", value, indent + "  "))
    lines[0] = f"{indent}- {lines[0][len(indent) + 2 :]}"
    return lines


class _FlowDumper(yaml.SafeDumper):
    """Flow style everywhere, one line however long; a text with line breaks double-quoted
    (``\\n``), never folded over lines."""


def _text_scalar(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(mark in value for mark in LINE_BREAKS) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_FlowDumper.add_representer(str, _text_scalar)


def _flow(value: Any) -> str:
    """One value in YAML's flow style, on one line."""
    dumped = yaml.dump(
        [value], Dumper=_FlowDumper, default_flow_style=True, width=2**31, allow_unicode=True, sort_keys=False
    )
    return dumped.strip()[1:-1]  # the list around it kept a lone scalar from gaining "..."


def _without_blank_lines(message: str) -> str:
    return "\n".join(line for line in message.strip().splitlines() if line.strip())


# -- the screen ------------------------------------------------------------------------------------


def whole_screen(shown: str) -> str:
    return WHOLE_SCREEN + shown


def screen_update(before: str | None, after: str) -> str:
    """The screen part of an action's reply: unchanged, what changed since ``before`` (the
    screen the client was last sent), or ``after`` whole — whichever says it in fewer
    characters. A changed line is one element (its ref) reading otherwise; every line not
    mentioned is as it was, ref included."""
    if before is None:
        return whole_screen(after)
    if before == after:
        return UNCHANGED_SCREEN
    whole = whole_screen(after)
    changed = CHANGED_SCREEN + "\n".join(screen_changes(before.splitlines(), after.splitlines()))
    return changed if len(changed) < len(whole) else whole


def screen_changes(before: list[str], after: list[str]) -> list[str]:
    """The lines of ``after`` that are new (``+``) or whose element reads otherwise now (``~``),
    and the lines of ``before`` that are gone (``-``), in screen order, each as the screen shows it."""
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, start, end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = before[start:end], after[new_start:new_end]
        old_refs = {ref for ref in map(_ref, old) if ref is not None}
        new_refs = {ref for ref in map(_ref, new) if ref is not None}
        out.extend(REMOVED + line for line in old if _ref(line) not in new_refs)
        out.extend((CHANGED if _ref(line) in old_refs else ADDED) + line for line in new)
    return out


def _ref(line: str) -> str | None:
    found = _REF.search(line)
    return found.group(1) if found else None
