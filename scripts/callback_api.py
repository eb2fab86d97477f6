"""Write sdks/callback-api.openrpc.json, the callback API's description, from the Python
implementation (trailblaze.mcpclient.rpc.openrpc). Run it after adding or changing a command;
tests/mcp_toolsets/test_callback_api.py fails while the file and the code disagree, and the
TypeScript SDK's tests check its client against the same file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from trailblaze.mcpclient.rpc import openrpc

SPEC = Path(__file__).resolve().parent.parent / "sdks" / "callback-api.openrpc.json"


def render() -> str:
    return json.dumps(openrpc(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SPEC.write_text(render(), encoding="utf-8")
    print(f"wrote {SPEC}", file=sys.stderr)
