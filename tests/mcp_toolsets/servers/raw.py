"""An MCP server written by hand, line by line, to misbehave precisely (no SDK: it starts fast).

    raw.py MODE [N]

Modes:
  ok                 a well-behaved server with one tool, ``echo``
  bad-schema         tools/list offers a tool whose inputSchema is not an object
  reject-initialize  answers initialize with a JSON-RPC error
  reject-32000 N     answers initialize with error -32000 (the SDK's own "connection closed" code)
                     and a message of N characters
  malformed-result   tools/call answers with a result that is not a CallToolResult
  big-result N       tools/call answers with N megabytes of text (one JSON line)
  big-error N        tools/call answers isError with N megabytes of text
  loud N             writes N lines of 10,000 characters to stderr, and exits when called
  chatty N           tools/call sends N notifications (log messages, progress) before its answer
  ref-cycle          tools/list offers a tool whose inputSchema's $ref leads back to itself
  silent-start       never answers initialize (a handshake that times out)
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 0
TOOL = {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object", "properties": {}}}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, object], result: object) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def text(megabytes: int) -> str:
    line = "0123456789abcdef" * 64 + "\n"  # 1 KiB
    return line * (megabytes * 1024)


def handle(request: dict[str, object]) -> None:
    method = request.get("method")
    if "id" not in request:
        return  # a notification
    if method == "initialize":
        if MODE == "reject-32000":
            words = ("server busy: " * (SIZE // 13 + 1))[:SIZE]
            send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32000, "message": words}})
            return
        if MODE == "reject-initialize":
            error = {"code": -32602, "message": "unsupported protocol version, this server speaks 1999-01-01"}
            send({"jsonrpc": "2.0", "id": request["id"], "error": error})
            return
        if MODE == "silent-start":
            return
        info = {"name": "raw", "version": "1"}
        answer(request, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info})
    elif method == "tools/list":
        tool = {**TOOL, "inputSchema": "not a schema"} if MODE == "bad-schema" else TOOL
        if MODE == "ref-cycle":
            loop = {"$ref": "#/$defs/a"}
            defs = {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}
            tool = {**TOOL, "inputSchema": {"type": "object", "properties": {"x": loop}, "$defs": defs}}
        answer(request, {"tools": [tool]})
    elif method == "tools/call":
        if MODE == "malformed-result":
            answer(request, {"content": "not a list", "isError": "perhaps"})
        elif MODE == "big-result":
            answer(request, {"content": [{"type": "text", "text": text(SIZE)}]})
        elif MODE == "big-error":
            answer(request, {"content": [{"type": "text", "text": text(SIZE)}], "isError": True})
        elif MODE == "loud":
            sys.exit(3)
        elif MODE == "chatty":
            log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "busy"}}
            token = (request.get("params") or {}).get("_meta", {}).get("progressToken")  # type: ignore[union-attr]
            lines = json.dumps(log) + "\n"
            if token is not None:
                progress = {"progressToken": token, "progress": 1}
                lines += json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}) + "\n"
            sys.stdout.write(lines * (SIZE // lines.count("\n")))
            answer(request, {"content": [{"type": "text", "text": "done talking"}]})
        else:
            answer(request, {"content": [{"type": "text", "text": "echo"}]})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no {method}"}})


if MODE == "loud":
    for i in range(SIZE):
        sys.stderr.write(f"line {i} " + "x" * 10_000 + "\n")
    sys.stderr.flush()
for raw in sys.stdin:
    if raw.strip():
        handle(json.loads(raw))
