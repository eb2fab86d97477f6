"""Parameters many built-in tools share, with the description an agent reads for each.

Every parameter of a tool offered to an agent says what it is for (``Field(description=…)``):
an LLM reads the schema, not the source. The ones below mean the same in every tool that takes
them, so they are written once.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from trailblaze.device.selectors import ElementSelector, NodeSelector
from trailblaze.tools.bounds import WaitMs

#: the element an agent saw on the screen, by its ephemeral ref
Ref = Annotated[
    str | None,
    Field(description="The element's ref on the current screen, e.g. e12 (refs change with the screen)"),
]
#: the same, for a tool that needs it
RequiredRef = Annotated[
    str,
    Field(description="The element's ref on the current screen, e.g. e12 (refs change with the screen)"),
]
#: the element as recordings hold it
Target = Annotated[
    NodeSelector | None,
    Field(description="Instead of ref, the element as a stable selector (what recordings hold)"),
]
#: the same, where a selector is all the tool takes
RequiredTarget = Annotated[NodeSelector, Field(description="The element, as a stable selector")]
#: upstream's legacy element selector
LegacyTarget = Annotated[
    ElementSelector | None,
    Field(description="The element as a legacy (Maestro-style) selector, as older recordings hold it"),
]
#: how long an action or check waits for the UI
TimeoutMs = Annotated[
    WaitMs | None,
    Field(description="How long to wait for the element, in milliseconds (default: the trail's timeout)"),
]
#: a memory name the remember tools write (``{{memory.<variable>}}``)
Variable = Annotated[str, Field(description="The name to remember it under: {{memory.<variable>}}")]
#: the element a remember tool reads
ReadTarget = Annotated[
    NodeSelector | None, Field(description="The element to read, as a stable selector (a ref works too)")
]
#: what an agent was asked to remember: kept with upstream's recordings, not used at replay
Prompt = Annotated[str | None, Field(description="What to remember, in words (kept for the record)")]
