"""The callback API's description (sdks/callback-api.openrpc.json) against the Python side: the
file is what the server implements, the server serves it, and the Python client SDK has exactly
its methods. The TypeScript SDK's tests hold its client to the same file, so a command added to
one side only fails one of the two."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from trailblaze.mcpclient import wire
from trailblaze.mcpclient.rpc import CallbackServer, openrpc
from trailblaze.mcpclient.sdk import TrailblazeClient

SPEC = Path(__file__).resolve().parents[2] / "sdks" / "callback-api.openrpc.json"
#: what the Python client has besides the API's methods
CLIENT_HELPERS = {"call", "from_context", "platform", "tools"}


def _spec() -> dict[str, Any]:
    return json.loads(SPEC.read_text(encoding="utf-8"))


def test_the_file_describes_what_the_server_implements() -> None:
    assert _spec() == openrpc(), "the callback API changed: run `python scripts/callback_api.py` and commit the file"


def test_every_method_names_its_kind_and_the_commands_kinds_are_the_devices() -> None:
    kinds = {m["name"]: m["x-kind"] for m in _spec()["methods"]}
    assert kinds["tap"] == kinds["fill"] == kinds["evaluateJs"] == kinds["pinch"] == "action"
    assert kinds["isVisible"] == "query"
    assert kinds["waitForSelector"] == kinds["assertVisible"] == "assertion"
    assert kinds["callTool"] == "tool"


def test_the_python_client_has_exactly_the_apis_methods_with_its_parameters() -> None:
    methods = {wire.snake(m["name"]): m for m in _spec()["methods"]}
    public = {
        name
        for name, member in inspect.getmembers(TrailblazeClient)
        if not name.startswith("_") and name not in CLIENT_HELPERS
    }
    assert public == set(methods), "trailblaze.mcpclient.sdk.TrailblazeClient and the callback API differ"
    for name, method in methods.items():
        function = getattr(TrailblazeClient, name)
        assert inspect.iscoroutinefunction(function), name
        params = list(inspect.signature(function).parameters.values())[1:]
        assert [p.name for p in params] == [wire.snake(p["name"]) for p in method["params"]], name
        assert [p.default is inspect.Parameter.empty for p in params] == [p["required"] for p in method["params"]], name


@pytest.mark.anyio
async def test_the_server_answers_rpc_discover_with_the_description(server: CallbackServer) -> None:
    token = server.new_session()
    body = {"jsonrpc": "2.0", "id": 7, "method": "rpc.discover", "params": {}}
    async with httpx.AsyncClient() as http:
        answer = await http.post(server.url, json=body, headers={"Authorization": f"Bearer {token}"})
        refused = await http.post(server.url, json=body)
    assert answer.json() == {"jsonrpc": "2.0", "id": 7, "result": _spec()}
    assert refused.status_code == 401  # the description is no secret, but the port is the session's
