"""The trail file reference, made from ``trailblaze schema``: every key of a trail file — the
top level, ``config:`` and its ``args:``, a step, a recording, the trailhead, upstream's legacy
format — with its type, default and description. The selectors' fields are on the tool pages,
with the other types the tools' arguments use."""

from __future__ import annotations

import re
from typing import Any

from schema_text import Schema, cell, property_table

#: where the tool pages describe the selectors (the type sections of the core tools' page)
SELECTORS = "tools/core.md#nodeselector"
#: the section of this reference each type the tables name is in (the type's name made an anchor)
ANCHORS = {"config": "config", "argdecl": "argdecl", "step": "step", "recording": "recording", "calls": "recording"}
#: a type the tables link to: ``[ArgDecl](#argdecl)``
TYPE_LINK = re.compile(r"\]\(#(\w+)\)")


def reference(schema: Schema) -> str:
    """The reference as Markdown, for the page that has the marker."""
    defs: dict[str, Any] = schema["$defs"]
    legacy = defs["legacy"]["items"]
    prompts = legacy["properties"]["prompts"]
    parts = [
        "### A trail file",
        "",
        property_table(defs["current"], "key"),
        "### config: {#config}",
        "",
        property_table(defs["config"], "key"),
        "### Each of config.args {#argdecl}",
        "",
        property_table(defs["ArgDecl"], "key"),
        "### A step of trail: {#step}",
        "",
        property_table(defs["step"], "key"),
        "### A recording {#recording}",
        "",
        cell(defs["recording"]["description"]) + " Under each classifier, a list of calls, `- toolName: {arguments}`"
        " (or `- toolName` alone), or one call. Each tool's arguments are on the [tool pages](tools/index.md);"
        f" the fields of `nodeSelector` and `selector` are under [NodeSelector]({SELECTORS}).",
        "",
        "### trailhead:",
        "",
        property_table(defs["current"]["properties"]["trailhead"], "key"),
        "### The legacy format",
        "",
        f"{cell(defs['legacy']['description'])} Each item is one of:",
        "",
        property_table({**legacy, "properties": {**legacy["properties"], "prompts": _listing(prompts)}}, "item"),
        "An item of `prompts:`:",
        "",
        property_table(prompts["items"], "key"),
    ]
    return TYPE_LINK.sub(lambda link: f"](#{ANCHORS.get(link[1], link[1])})", "\n".join(parts))


def _listing(prompts: Schema) -> Schema:
    """``prompts:`` as the type column can read it: a list of mappings (its items say which keys
    they need with a ``oneOf``, which that column would read as "any value")."""
    return {**prompts, "items": {"type": "object"}}
