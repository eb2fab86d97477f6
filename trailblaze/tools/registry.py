"""The tool registry: every tool by its advertised name, and which source gave it.

Names are registered exactly as advertised. Two sources offering one name is an error that
names both — silently picking one would make a trail's meaning depend on load order.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from trailblaze.drivernames import driver_of_tool
from trailblaze.errors import Location, UsageError
from trailblaze.tools.authoring import spec_of
from trailblaze.tools.model import ToolSpec


class ToolRegistry:
    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._tools: dict[str, ToolSpec] = {}
        for spec in specs:
            self.add(spec)

    def add(self, tool: ToolSpec | Any, source: str | None = None) -> ToolSpec:
        """Register a :class:`ToolSpec` or a ``@trailblaze.tool`` function under its name."""
        spec = spec_of(tool)
        if spec is None:
            raise TypeError(f"{tool!r} is not a tool: decorate the function with @trailblaze.tool or pass a ToolSpec")
        if source is not None and spec.source != source:
            spec = replace(spec, source=source)
        existing = self._tools.get(spec.name)
        if existing is not None:
            raise UsageError(
                f"tool {spec.name!r} is registered twice: by {existing.source or '?'} and by "
                f"{spec.source or '?'}; tool names must be unique (rename one, or block a plugin with -p no:NAME)"
            )
        self._tools[spec.name] = spec
        return spec

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def require(self, name: str, location: Location | None = None, *, driver: str | None = None) -> ToolSpec:
        spec = self._tools.get(name)
        if spec is not None:
            return spec
        hint = ""
        close = difflib.get_close_matches(name, list(self._tools), n=3, cutoff=0.75)
        if close:
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?"
        upstream = driver_of_tool(name)
        if upstream is not None:
            hint = f": a tool of {upstream.label}, which this project does not have"
        where = f" for driver {driver}" if driver else ""
        raise UsageError(f"unknown tool {name!r}{where}{hint}", location)

    def for_device(self, driver: str, platform: str) -> ToolRegistry:
        """The tools a session on this driver may use (seed 000: platforms and drivers filter)."""
        return ToolRegistry(s for s in self._tools.values() if s.metadata.applies_to(driver, platform))

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)
