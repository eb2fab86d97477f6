"""An MCP server that is hard to stop, for the interrupt tests: its tool blocks the whole
process (a synchronous sleep: stdin closing goes unnoticed), it ignores SIGTERM, and with
``--escape`` it starts a child that leaves its process group (``setsid``) and ignores SIGTERM
too — what only a subreaper or a kill by PID can end.

    hung.py [--escape] [--prefix P]

It appends ``{"kind": "start"|"child"|"block", "pid": …}`` lines to ``$PROBE_OUT``.
"""

# ruff: noqa: E402 - the start line and the signal come before the slow import, as in real servers

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time


def note(kind: str, pid: int) -> None:
    out = os.environ.get("PROBE_OUT")
    if out:
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"kind": kind, "pid": pid}) + "\n")


note("start", os.getpid())
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if "--escape" in sys.argv:
    ESCAPEE = "import os, signal, time; os.setsid(); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
    child = subprocess.Popen([sys.executable, "-c", ESCAPEE], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    note("child", child.pid)

from mcp.server.mcpserver import MCPServer

PREFIX = sys.argv[sys.argv.index("--prefix") + 1] if "--prefix" in sys.argv else ""
server = MCPServer("hung")


@server.tool(name=f"{PREFIX}block")
def block() -> str:
    """Never answer, and hold the whole server while not answering."""
    note("block", os.getpid())
    time.sleep(3600)
    return "unreachable"


@server.tool(name=f"{PREFIX}ok")
def ok() -> str:
    """Answer at once."""
    return "ok"


if __name__ == "__main__":
    server.run()
