"""The callback server: tokens, invocation routing, the delegating rule, the wire format."""

from __future__ import annotations

import datetime
from collections.abc import Mapping

import httpx
import pytest

from trailblaze.core.errors import ToolFailure, TrailblazeError, UsageError
from trailblaze.device.commands import ViewNode
from trailblaze.mcpclient import rpc, wire
from trailblaze.mcpclient.rpc import CallbackServer, Invocation
from trailblaze.mcpclient.sdk import CommandFailed, TrailblazeClient, TrailblazeRPCError

from .support import PaperDevice, tool_context

pytestmark = pytest.mark.anyio


def _begin(server: CallbackServer, token: str, device: PaperDevice, invocation_id: str, **kw: bool) -> Invocation:
    invocation = Invocation(
        invocation_id, token, tool_context(device, invocation_id, **kw), "t", kw.get("delegating", False)
    )
    server.begin(invocation)
    return invocation


async def test_listens_on_loopback_with_a_free_port(server: CallbackServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert server.port > 0
    assert server.url.endswith("/rpc")


async def test_requests_without_the_sessions_token_are_refused(server: CallbackServer) -> None:
    token = server.new_session()
    device = PaperDevice("d1", ["OK"])
    _begin(server, token, device, "inv-1")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tap", "params": {"text": "OK"}}
    async with httpx.AsyncClient() as http:
        missing = await http.post(server.url, json=body)
        wrong = await http.post(server.url, json=body, headers={"Authorization": "Bearer nope"})
    assert missing.status_code == wrong.status_code == 401
    assert missing.json()["error"]["code"] == wire.UNAUTHORIZED
    assert "Bearer" in missing.json()["error"]["message"]
    assert device.actions == []  # nothing ran
    with pytest.raises(TrailblazeRPCError) as info:
        await TrailblazeClient(server.url, "inv-1", "nope").tap(text="OK")
    assert info.value.code == wire.UNAUTHORIZED


async def test_unknown_and_finished_invocations_get_the_seed_error(server: CallbackServer) -> None:
    token = server.new_session()
    device = PaperDevice("d1", ["OK"])
    invocation = _begin(server, token, device, "inv-1")
    client = TrailblazeClient(server.url, "inv-1", token)
    assert await client.is_visible(text="OK") is True
    server.end(invocation)
    with pytest.raises(TrailblazeRPCError) as info:
        await client.is_visible(text="OK")
    assert info.value.code == -32602
    assert info.value.message == "Unknown invocation ID: inv-1. The tool call may have completed or timed out."
    with pytest.raises(TrailblazeRPCError, match="Unknown invocation ID: inv-zzz"):
        await TrailblazeClient(server.url, "inv-zzz", token).is_visible(text="OK")


async def test_another_sessions_invocation_is_unknown_to_this_token(server: CallbackServer) -> None:
    mine, theirs = server.new_session(), server.new_session()
    _begin(server, theirs, PaperDevice("d2", ["OK"]), "inv-theirs")
    with pytest.raises(TrailblazeRPCError, match="Unknown invocation ID: inv-theirs"):
        await TrailblazeClient(server.url, "inv-theirs", mine).tap(text="OK")


async def test_callbacks_are_routed_to_their_invocations_device(server: CallbackServer) -> None:
    first, second = server.new_session(), server.new_session()
    one, two = PaperDevice("phone-1", ["Home"]), PaperDevice("phone-2", ["Home"])
    _begin(server, first, one, "inv-a")
    _begin(server, second, two, "inv-b")
    await TrailblazeClient(server.url, "inv-b", second).navigate("/two")
    await TrailblazeClient(server.url, "inv-a", first).navigate("/one")
    await TrailblazeClient(server.url, "inv-a", first).tap(text="Home")
    assert one.actions == [("navigate", "/one"), ("tap", "Home")]
    assert two.actions == [("navigate", "/two")]


async def test_the_id_may_be_omitted_with_one_invocation_in_flight(server: CallbackServer) -> None:
    token = server.new_session()
    device = PaperDevice("d1", ["OK"])
    client = TrailblazeClient(server.url, None, token)
    with pytest.raises(TrailblazeRPCError, match="no tool call of this session is in flight"):
        await client.tap(text="OK")
    _begin(server, token, device, "inv-1")
    await client.tap(text="OK")
    assert device.actions == [("tap", "OK")]
    _begin(server, token, device, "inv-2")
    with pytest.raises(TrailblazeRPCError, match="2 tool calls of this session are in flight: pass the invocation id"):
        await client.tap(text="OK")


async def test_a_delegating_call_may_query_but_not_act(server: CallbackServer) -> None:
    token = server.new_session()
    device = PaperDevice("d1", ["Sign in"])
    invocation = _begin(server, token, device, "inv-1", delegating=True)
    client = TrailblazeClient(server.url, "inv-1", token)
    assert await client.is_visible(text="Sign in") is True
    assert await client.get_element_count(text="Sign in") == 1
    await client.assert_visible(text="Sign in")
    with pytest.raises(TrailblazeRPCError) as info:
        await client.tap(text="Sign in")
    assert info.value.code == wire.ACTION_REFUSED
    assert "must return the actions as _trailblaze_delegates" in info.value.message
    assert device.actions == []
    assert len(invocation.failures) == 1
    assert "tap()" in invocation.failures[0]


async def test_an_executable_call_acts_and_failed_assertions_raise_command_failed(server: CallbackServer) -> None:
    token = server.new_session()
    device = PaperDevice("d1", ["Pay"])
    invocation = _begin(server, token, device, "inv-1")
    client = TrailblazeClient(server.url, "inv-1", token)
    await client.tap(text="Pay")
    assert device.actions == [("tap", "Pay")]
    with pytest.raises(CommandFailed, match="not visible"):
        await client.assert_visible(text="Receipt", timeout_ms=50)
    assert invocation.failures == [invocation.failures[0]]
    assert invocation.failures[0].startswith("assert_visible: ")


async def test_camel_case_methods_and_params_and_decoded_results(server: CallbackServer) -> None:
    token = server.new_session()
    _begin(server, token, PaperDevice("d1", ["A", "B"]), "inv-1")
    client = TrailblazeClient(server.url, "inv-1", token)
    assert await client.call("isVisible", text="A", timeoutMs=10) is True
    assert await client.call("getElementText", id="id-B") == "B"
    screen = await client.capture_screen()
    assert (screen.screenshot, screen.width, screen.height, screen.url) == (
        b"\x89PNG-not-really",
        100,
        200,
        "paper://screen",
    )
    assert [c.text for c in screen.hierarchy.children] == ["A", "B"]
    tree = await client.view_hierarchy()
    assert isinstance(tree, ViewNode)
    assert [c.text for c in tree.children] == ["A", "B"]
    assert tree.children[0].parent is tree


async def test_unknown_commands_bad_params_and_unsupported_commands(server: CallbackServer) -> None:
    token = server.new_session()
    _begin(server, token, PaperDevice("d1", ["A"]), "inv-1")
    client = TrailblazeClient(server.url, "inv-1", token)
    with pytest.raises(TrailblazeRPCError) as unknown:
        await client.call("launchRocket")
    assert unknown.value.code == wire.METHOD_NOT_FOUND
    assert "is_visible" in unknown.value.message
    with pytest.raises(TrailblazeRPCError) as bad:
        await client.call("tap", colour="red")
    assert bad.value.code == wire.INVALID_PARAMS
    assert "colour" in bad.value.message
    with pytest.raises(TrailblazeRPCError) as unsupported:
        await client.press_back()
    assert unsupported.value.code == wire.UNSUPPORTED
    assert "press_back is not supported by the paper driver" in unsupported.value.message


async def test_tools_by_name_go_to_the_calls_resolver_and_their_failures_keep_their_kind(
    server: CallbackServer,
) -> None:
    """The wire of ``callTool`` (the resolver behind ``ctx.run_tool`` is tested end to end in
    test_callbacks.py): arguments through, the output back, each failure with its exit code."""
    token = server.new_session()
    invocation = _begin(server, token, PaperDevice("d1", ["A"]), "inv-1")
    ran: list[tuple[str, dict[str, object]]] = []

    async def run_tool(name: str, args: Mapping[str, object]) -> object:
        ran.append((name, dict(args)))
        if name == "check":
            raise ToolFailure("check: 'B' is not there")
        if name == "nope":
            raise UsageError("unknown tool 'nope'")
        if name == "broken":
            raise TrailblazeError("broken raised KeyError: 'x'")
        if name == "odd":  # a Python tool may return what JSON has no form for
            return {"when": datetime.date(2026, 1, 2)}
        return {"echo": args}

    invocation.ctx.run_tool = run_tool
    client = TrailblazeClient(server.url, "inv-1", token)
    assert await client.call_tool("echo", {"n": 1}) == {"echo": {"n": 1}}
    assert await client.tools.echo(n=2) == {"echo": {"n": 2}}
    assert await client.call("callTool", name="echo") == {"echo": {}}
    assert await client.call_tool("odd") == {"when": "2026-01-02"}
    with pytest.raises(CommandFailed, match="'B' is not there") as failed:
        await client.tools.check()
    with pytest.raises(TrailblazeRPCError) as unknown:
        await client.call_tool("nope")
    with pytest.raises(TrailblazeRPCError) as broken:
        await client.call_tool("broken")
    assert (failed.value.exit_code, unknown.value.exit_code, broken.value.exit_code) == (1, 3, 2)
    assert (unknown.value.code, broken.value.code) == (wire.INVALID_PARAMS, wire.INTERNAL_ERROR)
    assert [name for name, _ in ran] == ["echo", "echo", "echo", "odd", "check", "nope", "broken"]
    assert len(invocation.failures) == 3  # the tool's own failure message will name them

    invocation.ctx.run_tool = None  # a call outside a trail (``trailblaze mcp``'s own calls)
    with pytest.raises(TrailblazeRPCError, match="only during a trail's tool call"):
        await client.call_tool("echo")


async def test_http_misuse_is_answered_not_crashed(server: CallbackServer) -> None:
    token = server.new_session()
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient() as http:
        assert (await http.get(server.url, headers=auth)).status_code == 405
        assert (await http.post(server.url.replace("/rpc", "/nope"), headers=auth, json={})).status_code == 404
        parse = await http.post(server.url, headers=auth, content=b"{not json")
        deep = await http.post(server.url, headers=auth, content=b"[" * 100_000)
        batch = await http.post(server.url, headers=auth, json=[1, 2])
        again = await http.post(server.url, headers=auth, json={"jsonrpc": "2.0", "id": 7, "method": 3})
    assert parse.json()["error"]["code"] == wire.PARSE_ERROR
    assert deep.json()["error"]["code"] == wire.PARSE_ERROR  # was a RecursionError and no answer
    assert "nested more than 100 levels deep" in deep.json()["error"]["message"]
    assert batch.json()["error"]["code"] == wire.INVALID_REQUEST
    assert again.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": wire.INVALID_REQUEST,
            "message": 'a request needs "jsonrpc": "2.0", a "method" and "params" {…}',
        },
    }


async def test_one_shared_server_per_loop_closes_with_its_last_user() -> None:
    first = await rpc.acquire()
    second = await rpc.acquire()
    assert first is second
    await rpc.release(first)
    async with httpx.AsyncClient() as http:
        assert (await http.post(first.url, json={})).status_code == 401  # still serving
    await rpc.release(second)
    async with httpx.AsyncClient() as http:
        with pytest.raises(httpx.ConnectError):
            await http.post(first.url, json={})
