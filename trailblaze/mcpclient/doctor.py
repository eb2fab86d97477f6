"""What ``trailblaze doctor`` says of what JavaScript needs: Node.js (or bun) and the
@trailblaze/scripting SDK that scripted tools and ``script:`` MCP servers in TypeScript run on.

Whether a missing piece fails depends on what the project has (:func:`javascript_uses`): a
trailmap's scripted tools (``tools/*.ts``, ``*.js``) need a runtime — bun, else node 20.6 or
later — and the SDK; a ``script:`` server in ``.ts`` needs the same; one in ``.js``, or a
``command:`` of npm's (``npx``, ``node``…), needs node. A project with none of them runs
without Node.js: then what is missing is a warning, and the check says nothing needs it.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.api.doctor import DoctorCheck
from trailblaze.project.scriptedtools import NODE_MINIMUM, SDK_ENV, SdkUnavailable, node_version, sdk_cli, sdk_folder

if TYPE_CHECKING:
    from trailblaze.api.session import Run
    from trailblaze.mcpclient.settings import McpServerConfig

#: commands of npm's world that run on node (``command: npx some-mcp-server``)
NODE_COMMANDS = frozenset({"node", "npx", "npm", "pnpm", "yarn", "tsx"})
INSTALL_NODE = "install Node.js 20.6 or later (https://nodejs.org) or bun (https://bun.sh), and put it on PATH"


@dataclass(slots=True)
class JavaScriptUses:
    """What of the project runs on JavaScript, said as a person would read it."""

    #: needs node itself (``.js`` servers, npm's commands)
    node: list[str] = field(default_factory=list)
    #: needs a runtime (bun, else node) and the SDK (scripted tools, ``.ts`` servers)
    sdk: list[str] = field(default_factory=list)

    def said(self) -> str:
        return ", ".join(dict.fromkeys([*self.sdk, *self.node]))


def javascript_uses(run: Run) -> JavaScriptUses:
    """The scripted tools of the workspaces the project's trails are in, and the MCP servers of
    trailblaze.yaml and of those workspaces, that need JavaScript."""
    uses = JavaScriptUses()
    workspaces = {id(p.workspace): p.workspace for p in run.planned if p.workspace is not None}
    for workspace in workspaces.values():
        for folder, found in workspace.script_folders.items():
            if found.files:
                uses.sdk.append(f"the scripted tools in {workspace.shown(folder)}")
    from trailblaze.mcpclient.declarations import root_servers
    from trailblaze.mcpclient.settings import server_entries, servers_in

    project = run.config.project
    blocks: list[Any] = [*project.targets.values(), *project.toolsets.values()]
    for workspace in workspaces.values():
        blocks += workspace.toolsets.values()
    servers = [s for _, s in server_entries(root_servers(run.config))]
    for block in blocks:
        servers += [s for _, s in server_entries(servers_in(block))]
    for server in servers:
        _classify(server, uses)
    return uses


def _classify(server: McpServerConfig, uses: JavaScriptUses) -> None:
    label = f"MCP server {server.name or server.script or server.command}"
    script = server.script or ""
    on_node = script.endswith((".js", ".mjs", ".cjs")) or Path(server.command or "").name in NODE_COMMANDS
    if script.endswith((".ts", ".mts")):
        uses.sdk.append(label)
    elif on_node:
        uses.node.append(label)


def javascript_checks(run: Run) -> list[DoctorCheck]:
    """Node.js (and bun, when it is there) and the scripting SDK."""
    uses = javascript_uses(run)
    bun = shutil.which("bun")
    node_needed = bool(uses.node) or (bool(uses.sdk) and bun is None)
    checks = [_node_check(node_needed, uses)]
    if bun is not None:
        checks.append(DoctorCheck("bun", "ok", f"{bun}: scripted tools and .ts servers run on it instead of node"))
    checks.append(_sdk_check(bool(uses.sdk), uses))
    return checks


def _for_whom(needed: bool, uses: JavaScriptUses) -> str:
    if needed:
        return f"; needed by {uses.said()}"
    return "; nothing in this project needs it (scripted tools and JavaScript MCP servers do)"


def _node_check(needed: bool, uses: JavaScriptUses) -> DoctorCheck:
    node = shutil.which("node")
    if node is None:
        return DoctorCheck.missing("node", "no `node` on PATH" + _for_whom(needed, uses), INSTALL_NODE, needed=needed)
    version = node_version(node)
    minimum = ".".join(map(str, NODE_MINIMUM))
    if version is None or version[:2] < NODE_MINIMUM:
        shown = "an unknown version" if version is None else "v" + ".".join(map(str, version))
        detail = f"{node} is {shown}, older than {minimum}" + _for_whom(needed, uses)
        return DoctorCheck.missing("node", detail, INSTALL_NODE, needed=needed)
    shown = "v" + ".".join(map(str, version))
    return DoctorCheck("node", "ok", f"Node.js {shown} at {node}")


def _sdk_check(needed: bool, uses: JavaScriptUses) -> DoctorCheck:
    name = "scripting SDK"
    try:
        cli = sdk_cli()
    except SdkUnavailable as exc:
        return DoctorCheck.missing(name, exc.what + _for_whom(needed, uses), exc.fix, needed=needed)
    folder = sdk_folder()
    register = cli.parent / "register.js"
    if not register.is_file():
        detail = f"the @trailblaze/scripting SDK at {folder} is incomplete (no dist/{register.name})"
        return DoctorCheck.missing(name, detail + _for_whom(needed, uses), _reinstall(), needed=needed)
    origin = f" ({SDK_ENV})" if os.environ.get(SDK_ENV) else ""
    return DoctorCheck(name, "ok", f"@trailblaze/scripting {sdk_version(folder)} at {folder}{origin}")


def sdk_version(folder: Path) -> str:
    """The SDK's version, and the TypeScript compiler's it was built with, from its
    ``build-info.json`` (its ``package.json`` when there is none: a checkout's SDK)."""
    for name in ("build-info.json", "package.json"):
        try:
            data = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("version"), str):
            typescript = data.get("typescript")
            version: str = data["version"]
            return version + (f" (TypeScript {typescript})" if isinstance(typescript, str) else "")
    return "(version unknown)"


def _reinstall() -> str:
    if os.environ.get(SDK_ENV):
        return f"unset {SDK_ENV} to use the SDK trailblaze carries, or build the one it names (`npm run build` there)"
    return "reinstall trailblaze (`pip install --force-reinstall trailblaze`); in a checkout, `make sdk`"
