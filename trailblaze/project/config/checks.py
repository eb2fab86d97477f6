"""Checks across ``trailblaze.yaml``'s keys once it is valid: a ``target:`` or ``tool_sets:``
entry naming nothing, a target's ``base_url`` that is neither a URL nor a folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import YamlDocument
from trailblaze.project.config.models import ProjectConfig
from trailblaze.project.config.urls import base_url_problem

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


def reference_problems(
    project: ProjectConfig, doc: YamlDocument, root: Path, parser: Parser | None = None
) -> list[UsageError]:
    """Names that point at nothing: ``target:`` and ``tool_sets:`` entries (a toolset no file
    defines is fine when a key that brings tools is set, MCP servers say: their tools may fill
    it), and a target's ``base_url`` that is neither a URL, a declared name nor a folder."""
    problems: list[UsageError] = []
    names = list(parser.named_urls) if parser is not None else []
    for name, t in project.targets.items():
        problem = base_url_problem(t.base_url, root, names)
        if problem is not None:
            problems.append(UsageError(problem, doc.location(("targets", name, "base_url"))))
    if project.target is not None and project.targets and project.target not in project.targets:
        known = ", ".join(sorted(project.targets))
        problems.append(
            UsageError(f"target: {project.target!r} is not defined in targets: ({known})", doc.location(("target",)))
        )
    lists: list[tuple[tuple[str | int, ...], list[str]]] = [(("tool_sets",), project.tool_sets)]
    lists += [(("targets", name, "tool_sets"), t.tool_sets) for name, t in project.targets.items()]
    lists += [
        (("targets", name, "platforms", key, "tool_sets"), block.tool_sets)
        for name, t in project.targets.items()
        for key, block in t.platforms.items()
    ]
    # a server's tools may put themselves in a toolset by name (``trailblaze/toolset`` in their
    # ``_meta``): where servers are declared, a name no file defines may be one they fill
    servers = _brings_tools(project, parser)
    for key_path, names in lists:
        for i, name in enumerate(names):
            if name not in project.toolsets and name not in _shipped_toolsets(parser) and not servers:
                known = ", ".join(sorted({*project.toolsets, *_shipped_toolsets(parser)}))
                problems.append(
                    UsageError(f"tool_sets: unknown toolset {name!r} (toolsets: {known})", doc.location((*key_path, i)))
                )
    return problems


def _shipped_toolsets(parser: Parser | None) -> frozenset[str]:
    """The names of the toolsets plugins ship (``parser.add_trailmap``), read only when a
    ``tool_sets:`` name is not the project's own."""
    from trailblaze.tools.bundled import toolset_names

    return toolset_names(parser.trailmaps) if parser is not None else frozenset()


def sets_tool_keys(parser: Parser | None, holder: Any, within: str | None = None) -> bool:
    """Whether ``holder`` (the file; an entry of ``within``, ``targets`` or ``toolsets``) sets a
    key that brings tools of its own (``parser.addini(…, brings_tools=True)``: MCP servers)."""
    if parser is None:
        return False
    declared = parser.settings if within is None else parser.block_settings(within)
    return any(s.brings_tools and getattr(holder, n, None) for n, s in declared.items())


def _brings_tools(project: ProjectConfig, parser: Parser | None) -> bool:
    """Whether such a key is set at the top level or in any target or toolset."""
    return (
        sets_tool_keys(parser, project)
        or any(sets_tool_keys(parser, t, "targets") for t in project.targets.values())
        or any(sets_tool_keys(parser, t, "toolsets") for t in project.toolsets.values())
    )
