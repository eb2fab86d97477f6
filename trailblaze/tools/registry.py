"""The tool registry: every tool by its advertised name, and which source gave it.

Names are registered exactly as advertised. Two sources offering one name is an error that
names both (:class:`trailblaze.core.registry.Registry`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from trailblaze.core.errors import Location, UsageError
from trailblaze.core.registry import Registry
from trailblaze.device.drivernames import driver_of_tool
from trailblaze.tools.authoring import spec_of
from trailblaze.tools.model import ToolSpec


class UnknownToolError(UsageError):
    """A call to a tool no registry entry has. ``name`` is the tool's; ``other_driver`` whether
    it belongs to a driver of upstream's this project does not have (then nothing here could
    define it); the message is ``unknown tool 'name'`` (``head``), then the nearest names (``hint``)."""

    def __init__(
        self,
        message: str,
        location: Location | None = None,
        name: str = "",
        *,
        head: str = "",
        hint: str = "",
        other_driver: bool = False,
    ) -> None:
        super().__init__(message, location)
        self.name, self.head, self.hint, self.other_driver = name, head or message, hint, other_driver

    def at(self, location: Location | None) -> UnknownToolError:
        """The same error, for a call at ``location``."""
        return UnknownToolError(
            self.message, location, self.name, head=self.head, hint=self.hint, other_driver=self.other_driver
        )

    def saying(self, why: str) -> UnknownToolError:
        """The same error, saying why the tool is unknown before the nearest names."""
        head = f"{self.head}: {why}"
        return UnknownToolError(
            head + self.hint, self.location, self.name, head=head, hint=self.hint, other_driver=self.other_driver
        )


class ToolRegistry(Registry[ToolSpec]):
    """Tools by the name they advertise; ``ToolSpec.source`` says which plugin, server or file
    gave each."""

    kind = "tool"

    def names_of(self, item: ToolSpec) -> Iterable[str]:
        return (item.name,)

    def check(self, item: Any) -> ToolSpec:
        spec = spec_of(item)
        if spec is None:
            raise TypeError(f"{item!r} is not a tool: decorate the function with @trailblaze.tool or pass a ToolSpec")
        return spec

    def bind(self, item: ToolSpec, source: str | None) -> ToolSpec:
        return item if source is None or item.source == source else item.with_source(source)

    def source_of(self, item: ToolSpec) -> str:
        return item.source

    def require(self, name: str, location: Location | None = None, *, driver: str | None = None) -> ToolSpec:
        """The tool ``name``; an unknown one is an error with the nearest names (or the
        upstream driver the tool belongs to)."""
        spec = self.get(name)
        if spec is not None:
            return spec
        hint = ""
        close = difflib.get_close_matches(name, self.names(), n=3, cutoff=0.75)
        if close:
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?"
        upstream = driver_of_tool(name)
        if upstream is not None:
            hint = f": a tool of {upstream.label}, which this project does not have"
        head = f"unknown tool {name!r}" + (f" for driver {driver}" if driver else "")
        raise UnknownToolError(head + hint, location, name, head=head, hint=hint, other_driver=upstream is not None)

    def for_device(self, driver: str, platform: str) -> ToolRegistry:
        """The tools a session on this driver may use (seed 000: platforms and drivers filter)."""
        return ToolRegistry(s for s in self if s.metadata.applies_to(driver, platform))
