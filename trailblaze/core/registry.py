"""One registry for what plugins register by name: tools, drivers, agents.

Plugins hand their contributions to a ``register`` callback (``trailblaze_register_tools``,
``…_drivers``, ``…_agents``); the host validates each, remembers which plugin gave it, and
refuses a name two plugins claim — silently picking one would make a trail's meaning depend
on load order. :func:`trailblaze.pluginmanager.collect` calls a registration hook one plugin at
a time with a callback adding to a registry, so the registry knows who is calling.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from trailblaze.core.errors import Location, UsageError

T = TypeVar("T")


class Registry(Generic[T]):
    """Items by name (and alias), with the source of each. Subclasses say how an item is named
    (:meth:`names_of`), checked (:meth:`check`) and described in messages (:meth:`label`)."""

    #: "tool", "driver", "agent": how messages name what is registered
    kind = "item"
    #: upstream matches driver names in any case; tool and agent names are exact
    case_sensitive = True
    #: how the command-line option that names an item shows its value (``--driver KEY``)
    metavar = "NAME"

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._by_name: dict[str, T] = {}
        #: each item once, in registration order, by id
        self._items: dict[int, T] = {}
        self._sources: dict[int, str] = {}
        for item in items:
            self.add(item)

    # -- what subclasses decide ---------------------------------------------------------------------

    def names_of(self, item: T) -> Iterable[str]:
        """The names ``item`` is registered under (its name first)."""
        raise NotImplementedError

    def check(self, item: Any) -> T:
        """``item`` as this registry keeps it; a TypeError saying what is wrong otherwise."""
        raise NotImplementedError

    def bind(self, item: T, source: str | None) -> T:
        """``item`` as registered by ``source`` (None: keep what it says of itself)."""
        return item

    def describe(self, item: T, source: str) -> str:
        """How messages name ``item`` registered by ``source``."""
        return source or "?"

    # -- the default ---------------------------------------------------------------------------------

    def fallback(self) -> T:
        """The item used when nothing names one: the first registered whose ``fallback``
        attribute is true (a plugin declares its driver or agent the default), else the only one
        there is; otherwise an error asking for ``--<kind>``."""
        registered = self.items()
        chosen = next(
            (item for item in registered if getattr(item, "fallback", False)),
            registered[0] if len(registered) == 1 else None,
        )
        if chosen is None:
            known = ", ".join(self.names()) or "none"
            raise UsageError(
                f"no {self.kind} is named and none is the default: pass --{self.kind} {self.metavar} "
                f"({self.kind}s here: {known})"
            )
        return chosen

    # -- registering --------------------------------------------------------------------------------

    def add(self, item: Any, source: str | None = None) -> T:
        """Register ``item`` (from ``source``, a plugin's name); a name another item already has
        is an error naming both sources."""
        kept = self.bind(self.check(item), source)
        origin = source if source is not None else self.source_of(kept)
        for name in self.names_of(kept):
            other = self._by_name.get(self._key(name))
            if other is not None and other is not kept:
                raise UsageError(
                    f"{self.kind} {name!r} is registered twice: by {self.describe(other, self.source_of(other))} "
                    f"and by {self.describe(kept, origin)}; {self.kind} names must be unique (rename one, or block "
                    "a plugin with -p no:NAME)"
                )
        for name in self.names_of(kept):
            self._by_name[self._key(name)] = kept
        self._items[id(kept)] = kept
        self._sources[id(kept)] = origin
        return kept

    def _key(self, name: str) -> str:
        return name if self.case_sensitive else name.lower()

    # -- looking up ---------------------------------------------------------------------------------

    def get(self, name: str) -> T | None:
        return self._by_name.get(self._key(name))

    def resolve(self, name: str, location: Location | None = None) -> T:
        """The item ``name`` means; an unknown name is an error listing the known ones, with the
        nearest as a guess."""
        item = self.get(name)
        if item is not None:
            return item
        raise UsageError(self.unknown(name), location)

    def unknown(self, name: str) -> str:
        known = self.names()
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        guess = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown {self.kind} {name!r} (known {self.kind}s: {', '.join(known) or 'none'}){guess}"

    def source_of(self, item: T) -> str:
        return self._sources.get(id(item), "")

    def source(self, name: str) -> str:
        item = self.get(name)
        return self.source_of(item) if item is not None else ""

    def items(self) -> list[T]:
        """Each item once, in registration order."""
        return list(self._items.values())

    def names(self) -> list[str]:
        """Each item's own name (not its aliases), sorted."""
        return sorted(next(iter(self.names_of(item))) for item in self.items())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)
