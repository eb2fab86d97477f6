"""Toolsets as upstream uses them: named lists of tools that decide what an agent is offered.

Upstream ships toolsets of its own (``core_interaction``, ``navigation``, ``web_core``…; here in
``trailblaze/trailmaps/<id>/toolsets/``, declared by the built-in plugins that ship each
trailmap, as any plugin may: ``parser.add_trailmap``) and targets name the ones their sessions use, per
platform (``targets: {app: {platforms: {android: {tool_sets: [core_interaction, memory]}}}}``).
A toolset applies to a session when it is named (at the root's ``tool_sets:``, the target's, or
the target's block for the session's platform) or ``always_enabled``, and its
``drivers:``/``platforms:`` include the session's.

Gating: once a session names a toolset that lists tools, the tools listed by any *other*
toolset are no longer offered to agents on it (replay can still run every tool), so a target
that names ``core_interaction`` and ``memory`` offers those, the always-enabled ones, its
platform's ``tools:``, and whatever no toolset lists (a plugin's own tools) — minus its
``excluded_tools:``. A session that names no such toolset is offered everything, as before.
Toolsets that bring MCP servers (a plugin's key that brings tools) filter their servers' tools
instead (see :mod:`trailblaze.mcpclient`).

A tool an MCP server pushes into a toolset (``_meta["trailblaze/toolset"]``, seed 003) belongs to
that toolset: on a session that names toolsets it is offered to agents only when its toolset
applies (named, or ``always_enabled``), as a listed tool is (:func:`pushed_hidden`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.device.drivernames import DriverContext
    from trailblaze.project.config import Config, TargetConfig, ToolsetConfig
    from trailblaze.tools.model import ToolSpec


def shipped_toolsets(config: Config) -> dict[str, ToolsetConfig]:
    """The toolsets of the trailmaps plugins ship (``parser.add_trailmap``: upstream's own,
    from the built-in plugins), by name."""
    parser = config.parser
    return _shipped(tuple(parser.trailmaps.values())) if parser is not None else {}


@functools.cache
def _shipped(folders: tuple[Path, ...]) -> dict[str, ToolsetConfig]:
    """A plugin's toolset file that does not validate is an error at its file:line (a
    third-party plugin's may be wrong), not a traceback."""
    from pydantic import ValidationError

    from trailblaze.core.errors import ErrorList
    from trailblaze.core.validation import describe_errors
    from trailblaze.core.yamlsource import load_path
    from trailblaze.project.config import ToolsetConfig
    from trailblaze.tools.bundled import toolset_files

    found: dict[str, ToolsetConfig] = {}
    for path in toolset_files(folders):
        doc = load_path(path)
        try:
            toolset = ToolsetConfig.model_validate(doc.data)
        except ValidationError as exc:
            raise ErrorList(describe_errors(exc, doc=doc, model=ToolsetConfig)) from None
        found[toolset.id or path.stem] = toolset
    return found


def known_toolsets(config: Config, extra: dict[str, ToolsetConfig] | None = None) -> dict[str, ToolsetConfig]:
    """Every toolset a name may refer to; the project's own (and a workspace's) win over the
    shipped ones of the same name."""
    return {**shipped_toolsets(config), **(extra or {}), **config.project.toolsets}


def named_toolsets(config: Config, target: TargetConfig | None, driver: DriverContext) -> list[str]:
    """The toolsets a session names: the root's, the target's, and its platform block's."""
    names = list(config.project.tool_sets)
    if target is not None:
        names += target.tool_sets
        block = target.platform_block(driver.platform, driver.key, driver.expand)
        if block is not None:
            names += block.tool_sets
    return list(dict.fromkeys(names))


def applying(toolsets: dict[str, ToolsetConfig], names: Iterable[str], driver: DriverContext) -> list[str]:
    """Of ``names`` plus the always-enabled toolsets, those whose drivers/platforms include the
    session's (unknown names are left out: configuration checks report them)."""
    wanted = [*names, *(n for n, t in toolsets.items() if t.always_enabled)]
    return [
        name
        for name in dict.fromkeys(wanted)
        if name in toolsets and driver.matches(toolsets[name].drivers, toolsets[name].platforms)
    ]


def hidden_tools(
    config: Config,
    target: TargetConfig | None,
    driver: DriverContext,
    extra: dict[str, ToolsetConfig] | None = None,
) -> frozenset[str]:
    """The tools agents are not offered on this session (see the module docstring)."""
    named = named_toolsets(config, target, driver)
    block = target.platform_block(driver.platform, driver.key, driver.expand) if target is not None else None
    excluded = set(block.excluded_tools) if block is not None else set()
    if not named:  # nothing gates: the toolset files need not be read
        return frozenset(excluded)
    toolsets = known_toolsets(config, extra)
    # a toolset whose key brings tools (MCP servers) filters those tools: it lists none to offer
    listing = {name: t for name, t in toolsets.items() if t.tools and not config.brings_tools(t, "toolsets")}
    if not any(name in listing for name in named):
        return frozenset(excluded)
    offered = {tool for name in applying(listing, named, driver) for tool in listing[name].tools}
    offered |= set(block.tools) if block is not None else set()
    gated = {tool for t in listing.values() for tool in t.tools}
    return frozenset((gated - offered) | excluded)


def pushed_hidden(
    config: Config,
    target: TargetConfig | None,
    driver: DriverContext,
    specs: Iterable[ToolSpec],
    extra: dict[str, ToolsetConfig] | None = None,
) -> frozenset[str]:
    """The tools of ``specs`` pushed into a toolset (their ``toolset`` metadata) that does not
    apply to this session; none when the session names no toolset (everything is offered then)."""
    named = named_toolsets(config, target, driver)
    if not named:
        return frozenset()
    applies = {*named, *applying(known_toolsets(config, extra), named, driver)}
    return frozenset(
        spec.name for spec in specs if spec.metadata.toolset is not None and spec.metadata.toolset not in applies
    )
