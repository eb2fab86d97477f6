"""Checks across ``trailblaze.yaml``'s keys once it is valid: a ``target:`` or ``tool_sets:``
entry naming nothing, a target's ``base_url`` that is neither a URL nor a folder."""

from __future__ import annotations

from pathlib import Path

from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import YamlDocument
from trailblaze.project.config.models import ProjectConfig
from trailblaze.project.config.urls import base_url_problem


def reference_problems(project: ProjectConfig, doc: YamlDocument, root: Path) -> list[UsageError]:
    """Names that point at nothing: ``target:`` and ``tool_sets:`` entries (a toolset no file
    defines is fine when MCP servers are declared: their tools may fill it), and a target's
    ``base_url`` that is neither a URL nor a folder."""
    problems: list[UsageError] = []
    for name, t in project.targets.items():
        problem = base_url_problem(t.base_url, root)
        if problem is not None:
            problems.append(UsageError(problem, doc.location(("targets", name, "base_url"))))
    if project.target is not None and project.targets and project.target not in project.targets:
        known = ", ".join(sorted(project.targets))
        problems.append(
            UsageError(f"target: {project.target!r} is not defined in targets: ({known})", doc.location(("target",)))
        )
    from trailblaze.tools.bundled import builtin_toolset_names

    lists: list[tuple[tuple[str | int, ...], list[str]]] = [(("tool_sets",), project.tool_sets)]
    lists += [(("targets", name, "tool_sets"), t.tool_sets) for name, t in project.targets.items()]
    lists += [
        (("targets", name, "platforms", key, "tool_sets"), block.tool_sets)
        for name, t in project.targets.items()
        for key, block in t.platforms.items()
    ]
    # a server's tools may put themselves in a toolset by name (``trailblaze/toolset`` in their
    # ``_meta``): where servers are declared, a name no file defines may be one they fill
    servers = bool(
        getattr(project, "mcp_servers", None)
        or any(t.mcp_servers for t in project.targets.values())
        or any(t.mcp_servers for t in project.toolsets.values())
    )
    for key_path, names in lists:
        for i, name in enumerate(names):
            if name not in project.toolsets and name not in builtin_toolset_names() and not servers:
                known = ", ".join(sorted({*project.toolsets, *builtin_toolset_names()}))
                problems.append(
                    UsageError(f"tool_sets: unknown toolset {name!r} (toolsets: {known})", doc.location((*key_path, i)))
                )
    return problems
