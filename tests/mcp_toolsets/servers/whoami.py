"""An MCP server that writes down how it was started: ``whoami.py OUT LABEL [ARGS…]`` appends
one JSON line to OUT at start (before anything else) with what a server can see of its own
process, then serves one tool, ``LABEL_whoami``. With ``WHOAMI_AT_EXIT`` set, once it is told
to stop it starts a (non-daemon) thread and registers an atexit handler, each appending its
name to OUT.exit: a fresh interpreter joins the thread first, then runs the handler."""

from __future__ import annotations

import atexit
import json
import os
import random
import sys
import threading
import time

OUT, LABEL = sys.argv[1], sys.argv[2]
with open(f"/proc/{os.getppid()}/cmdline", "rb") as parent:
    parent_command = parent.read().replace(b"\0", b" ").decode()
with open(OUT, "a", encoding="utf-8") as out:
    line = {
        "label": LABEL,
        "argv": sys.argv,
        "name": __name__,
        "cwd": os.getcwd(),
        "path0": sys.path[0],
        "pid": os.getpid(),
        "session_leader": os.getsid(0) == os.getpid(),
        "parent": parent_command,
        "env": {k: v for k, v in os.environ.items() if k.startswith(("WHOAMI_", "TRAILBLAZE_SESSION"))},
        "random": random.random(),
        "stdin_is_pipe": os.path.exists("/proc/self/fd/0") and "pipe:" in os.readlink("/proc/self/fd/0"),
    }
    out.write(json.dumps(line) + "\n")

from mcp.server.mcpserver import MCPServer  # noqa: E402 - after the line, as a real server's slow import

server = MCPServer(f"whoami-{LABEL}", version="1.0.0")


@server.tool(name=f"{LABEL}_whoami")
def whoami() -> str:
    """Say who this server is."""
    print(f"{LABEL}: asked", file=sys.stderr, flush=True)
    return LABEL


def _exit_event(name: str) -> None:
    with open(f"{OUT}.exit", "a", encoding="utf-8") as out:
        out.write(json.dumps({"label": LABEL, "event": name}) + "\n")


def _late_thread() -> None:
    time.sleep(0.3)
    _exit_event("thread")


if __name__ == "__main__":
    server.run()
    if os.environ.get("WHOAMI_AT_EXIT"):
        atexit.register(_exit_event, "atexit")
        threading.Thread(target=_late_thread).start()
