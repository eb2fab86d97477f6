"""The ``mcp_toolsets`` plugin's keys of ``trailblaze.yaml``: ``mcp_servers:`` at the top level,
in each target and in each toolset, each entry one :class:`McpServerConfig` (declared by
:mod:`trailblaze.plugins.mcp_toolsets` with ``parser.addini``, so the core's models know
nothing of MCP)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, model_validator

from trailblaze.project.config.models import SettingsModel, WaitSeconds


class McpServerConfig(SettingsModel):
    """One MCP server: spawned (``command:`` or ``script:``) or reached over HTTP (``url:``).

    ``env:`` values and ``headers:`` may use ``${VAR}`` to take a value from Trailblaze's own
    environment (tokens stay out of the file). Relative ``script:``/``working_dir:`` paths, and a
    ``command:`` holding a slash, resolve against the folder of the file that declares them.
    """

    name: str | None = Field(
        default=None,
        min_length=1,
        description="how messages and `trailblaze tools` name it (default: from its script, command or URL)",
    )
    command: str | None = Field(default=None, description="an executable to spawn, speaking MCP on stdio")
    args: list[str] = Field(default_factory=list, description="the arguments of command: or script:")
    env: dict[str, str] = Field(
        default_factory=dict, description="environment variables it gets (${VAR} takes trailblaze's)"
    )
    working_dir: str | None = Field(
        default=None, description="where command: runs (default: the folder of the file that declares it)"
    )
    script: str | None = Field(
        default=None,
        description="a .py (this Python), .js (node) or .ts (bun, else tsx) server, run in its own folder; "
        "Trailblaze-aware",
    )
    transport: Literal["stdio", "http"] | None = Field(
        default=None, description="http: connect to url: (someone else runs it); default: stdio, or http with url:"
    )
    url: str | None = Field(default=None, description="the address of a server already running (Streamable HTTP)")
    headers: dict[str, str] = Field(
        default_factory=dict, description="HTTP headers sent to url: (${VAR} takes trailblaze's: tokens)"
    )
    multi_device: Literal["http"] | None = Field(
        default=None,
        description="http: when a run has several sessions at once (devices, --workers), start this server once, "
        "with --transport http --port N appended, and share it; default: one stdio process per session",
    )
    timeout_s: WaitSeconds = Field(default=60.0, description="seconds one tools/call may take")
    startup_timeout_s: WaitSeconds = Field(default=30.0, description="seconds to spawn/connect and handshake")

    @model_validator(mode="after")
    def _one_kind(self) -> McpServerConfig:
        kinds = [k for k in ("command", "script", "url") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("an MCP server needs exactly one of command:, script: or url:")
        if self.url and self.transport not in (None, "http"):
            raise ValueError("url: is for transport: http")
        if (self.command or self.script) and self.transport == "http":
            raise ValueError("transport: http needs url: (Trailblaze connects; it does not spawn)")
        if self.url and (self.args or self.env or self.working_dir):
            raise ValueError("args:, env: and working_dir: are for spawned servers (command: or script:), not url:")
        if self.url and self.multi_device:
            raise ValueError(
                "multi_device: is for spawned servers (command: or script:); a url: server is shared already"
            )
        if self.headers and not self.url:
            raise ValueError("headers: is for transport: http servers (url:)")
        if self.script and self.working_dir:
            raise ValueError("working_dir: is for command: entries; a script: runs in its own folder")
        if self.script and not self.script.endswith((".py", ".ts", ".js", ".mjs", ".cjs", ".mts")):
            raise ValueError("script: must be a .py, .ts or .js file (use command: for anything else)")
        return self

    @property
    def kind(self) -> Literal["stdio", "http"]:
        return "http" if self.url else "stdio"


#: ``mcp_servers:`` as a list of entries, or (seed 000) a mapping from each server's name to its
#: entry. The tags appear in pydantic's error locations and are dropped from messages.
McpServers = Annotated[
    Annotated[list[McpServerConfig], Tag("list[server]")] | Annotated[dict[str, McpServerConfig], Tag("dict[server]")],
    Discriminator(lambda value: "dict[server]" if isinstance(value, dict) else "list[server]"),
]

#: the key, at the top level and in each target and toolset
KEY = "mcp_servers"
#: the blocks that take it besides the top level
BLOCKS = ("targets", "toolsets")


def servers_in(block: Any) -> list[McpServerConfig] | dict[str, McpServerConfig]:
    """A target's or a toolset's ``mcp_servers:`` (none when the block has no such key: a
    workspace's target, or a file loaded without the ``mcp_toolsets`` plugin)."""
    servers: list[McpServerConfig] | dict[str, McpServerConfig] = getattr(block, KEY, None) or []
    return servers


def server_entries(
    servers: list[McpServerConfig] | dict[str, McpServerConfig],
) -> list[tuple[str | int, McpServerConfig]]:
    """Each server with its key in the file (an index, or its name in the mapping form, which
    is also its ``name:`` unless it sets one)."""
    if isinstance(servers, dict):
        return [(key, s if s.name else s.model_copy(update={"name": key})) for key, s in servers.items()]
    return list(enumerate(servers))
