"""A Trailblaze-aware MCP server for the tests (the ``mcp`` SDK's MCPServer, over stdio).

It reports what it sees (request ``_meta``, raw arguments, its environment) as JSON lines in
``$PROBE_OUT``, delegates what it is told to, calls back through ``TrailblazeClient``, carries
every ``trailblaze/*`` metadata key, and misbehaves on request:

    probe.py [--prefix P] [--mode normal|crash-at-start|garbage|hang-at-start] [--registry JSON]
             [--transport stdio|http --port N]

With ``--transport http`` it serves MCP over Streamable HTTP at http://127.0.0.1:N/mcp (what
``multi_device: http`` starts it with) instead of stdio.
"""

# ruff: noqa: E402 - faults and the start line come before the slow imports, as in real servers

from __future__ import annotations

import json
import os
import sys
import time

if os.environ.get("PROBE_OUT"):  # first, before the slow imports: one "start" line per process
    with open(os.environ["PROBE_OUT"], "a", encoding="utf-8") as out:
        out.write(
            json.dumps({"kind": "start", "pid": os.getpid(), "argv": sys.argv[1:], "started": time.time()}) + "\n"
        )

import argparse
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("--prefix", default="")
parser.add_argument("--mode", default="normal")
parser.add_argument("--registry", default=None)
parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
parser.add_argument("--port", type=int, default=0)
options = parser.parse_args()
P = options.prefix

if options.mode == "crash-at-start":
    print("probe: cannot start, the configuration is missing", file=sys.stderr, flush=True)
    sys.exit(4)
if options.mode == "hang-at-start":
    print("probe: stuck before reading stdin", file=sys.stderr, flush=True)
    time.sleep(3600)
if options.mode == "garbage":
    print("probe: a banner on stdout breaks the protocol", flush=True)

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from trailblaze.mcpclient.sdk import TrailblazeClient, TrailblazeRPCError

server = MCPServer(f"probe{P}", version="1.0.0")


def record(kind: str, ctx: Context, **extra: Any) -> None:
    out = os.environ.get("PROBE_OUT")
    if not out:
        return
    request = ctx.request_context
    meta = request.meta
    if meta is not None and hasattr(meta, "model_dump"):
        meta = meta.model_dump(by_alias=True, exclude_none=True)
    params = request.params or {}
    entry = {
        "kind": kind,
        "pid": os.getpid(),
        "meta": {k: v for k, v in dict(meta or {}).items() if not k.startswith("io.modelcontextprotocol")},
        "arguments": dict(params.get("arguments") or {}),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("TRAILBLAZE_", "PROBE_"))},
        "cwd": os.getcwd(),
        **extra,
    }
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


@server.tool(name=f"{P}report")
async def report(ctx: Context, note: str = "") -> dict[str, Any]:
    """Record what this call carried (meta, arguments, environment)."""
    record("report", ctx, note=note)
    return {"ok": True, "note": note}


@server.tool(name=f"{P}context_report", meta={"trailblaze/requiresContext": True})
async def context_report(ctx: Context, note: str = "") -> str:
    """Like report, but marked trailblaze/requiresContext."""
    record("context_report", ctx, note=note)
    return note


@server.tool(name=f"{P}fail")
async def fail(message: str) -> str:
    """Fail the call with this message (isError)."""
    raise ToolError(message)


@server.tool(name=f"{P}crash")
async def crash(ctx: Context, once: str = "") -> str:
    """Exit the server in the middle of the call (with ``once``, a file: only when it does not
    exist yet; it is made first, so the call made again survives)."""
    if once:
        if os.path.exists(once):
            return "survived"
        os.close(os.open(once, os.O_CREAT | os.O_WRONLY))
    record("crash", ctx)
    print("probe: crashing on purpose in the middle of a call", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(name=f"{P}hang")
async def hang(ctx: Context) -> str:
    """Never answer."""
    record("hang", ctx)
    await anyio.sleep(3600)
    return "unreachable"


@server.tool(name=f"{P}delegate", meta={"trailblaze/isDelegating": True})
async def delegate(ctx: Context, delegates: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the given delegates (as JSON text)."""
    record("delegate", ctx)
    return {"_trailblaze_delegates": delegates}


@server.tool(name=f"{P}delegate_structured", meta={"trailblaze/isDelegating": True})
async def delegate_structured(delegates: list[dict[str, Any]]) -> CallToolResult:
    """Return the given delegates in structured content."""
    return CallToolResult(content=[], structured_content={"_trailblaze_delegates": delegates})


@server.tool(name=f"{P}answer", meta={"trailblaze/requiresContext": True})
async def answer(ctx: Context, meta: dict[str, Any], text: str = "", is_error: bool = False) -> CallToolResult:
    """Answer with this result ``_meta`` (memory changes, an exit code), text and isError."""
    record("answer", ctx)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error, _meta=meta)


@server.tool(name=f"{P}undeclared_delegates")
async def undeclared_delegates() -> dict[str, Any]:
    """Return delegates without being marked delegating (a mistake Trailblaze reports)."""
    return {"_trailblaze_delegates": [{"tool": "wait", "args": {"timeToWaitInSeconds": 0}}]}


async def _run_steps(ctx: Context, steps: list[dict[str, Any]], *, with_id: bool = True) -> list[Any]:
    tb = TrailblazeClient.from_context(ctx)
    if not with_id:
        tb.invocation_id = None
    results: list[Any] = []
    for step in steps:
        try:
            results.append(await tb.call(step["method"], **step.get("params", {})))
        except TrailblazeRPCError as exc:
            record("callback_error", ctx, code=exc.code, message=exc.message, exit_code=exc.exit_code)
            raise ToolError(f"callback {step['method']} failed ({exc.code}): {exc.message}") from None
    record("callback", ctx, results=results, invocation=tb.invocation_id)
    return results


@server.tool(name=f"{P}callback")
async def callback(ctx: Context, steps: list[dict[str, Any]], with_id: bool = True) -> dict[str, Any]:
    """Run callback steps ({method, params}) through TrailblazeClient and return their results."""
    return {"results": await _run_steps(ctx, steps, with_id=with_id)}


@server.tool(name=f"{P}delegating_callback", meta={"trailblaze/isDelegating": True})
async def delegating_callback(
    ctx: Context, steps: list[dict[str, Any]], delegates: list[dict[str, Any]]
) -> dict[str, Any]:
    """Run callback steps, then return delegates (queries are fine, actions are refused)."""
    await _run_steps(ctx, steps)
    return {"_trailblaze_delegates": delegates}


@server.tool(name=f"{P}navigate_and_read")
async def navigate_and_read(ctx: Context, path: str, pause_s: float = 0.0) -> dict[str, Any]:
    """Navigate this call's device, wait, and read the page's first heading back."""
    started = time.time()
    tb = TrailblazeClient.from_context(ctx)
    await tb.navigate(path)
    await anyio.sleep(pause_s)
    heading = await tb.get_element_text(selector={"web": {"headingLevel": 1}})
    record("navigate_and_read", ctx, path=path, heading=heading, started=started, ended=time.time())
    if heading is None:
        raise ToolError(f"no heading after navigating to {path}")
    return {"heading": heading}


ALL_KEYS = {
    "trailblaze/isRecordable": False,
    "trailblaze/isDelegating": False,
    "trailblaze/exposedToLlm": False,
    "trailblaze/supportedPlatforms": ["WEB"],
    "trailblaze/supportedDrivers": ["playwright-native"],
    "trailblaze/requiresHost": True,
    "trailblaze/requiresContext": True,
    "trailblaze/toolset": "probe_set",
    "trailblaze/groups": ["auth", "setup"],
    "trailblaze/isVerification": True,
}


@server.tool(name=f"{P}meta_all", meta=ALL_KEYS)
async def meta_all() -> str:
    """Carries every trailblaze/* key with a non-default value."""
    return "ok"


@server.tool(name=f"{P}meta_for_llm", meta={"trailblaze/isForLlm": False})
async def meta_for_llm() -> str:
    """Uses the isForLlm spelling."""
    return "ok"


@server.tool(name=f"{P}meta_delegating_only", meta={"trailblaze/isDelegating": True})
async def meta_delegating_only() -> dict[str, Any]:
    """Ships only isDelegating; the rest comes from the registry and the overlays."""
    return {"_trailblaze_delegates": []}


@server.tool(name=f"{P}meta_none")
async def meta_none() -> str:
    """Ships no metadata at all."""
    return "ok"


@server.tool(name=f"{P}android_only", meta={"trailblaze/supportedDrivers": ["android-uiautomator2"]})
async def android_only() -> str:
    """Only for Android sessions."""
    return "ok"


@server.tool(name=f"{P}ios_platform", meta={"trailblaze/supportedPlatforms": ["IOS"]})
async def ios_platform() -> str:
    """Only for iOS sessions."""
    return "ok"


@server.tool(name=f"{P}web_by_alias", meta={"trailblaze/supportedDrivers": ["web"]})
async def web_by_alias() -> str:
    """For the web driver, named by its alias."""
    return "ok"


if options.registry:
    registry_json = options.registry

    @server.resource("trailblaze://registry", mime_type="application/json")
    def registry() -> str:
        return registry_json


if __name__ == "__main__":
    if options.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=options.port)
    else:
        server.run()
