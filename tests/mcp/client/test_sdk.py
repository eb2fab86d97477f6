"""The client SDK: the same methods as ctx.commands, and where it finds its context."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

from trailblaze.device.commands import Commands, command_names
from trailblaze.mcpclient.sdk import TrailblazeClient


def test_the_client_has_every_command_with_the_same_parameters() -> None:
    commands = command_names(Commands)
    assert commands, "Commands lost its command markers"
    for name in commands:
        mine = getattr(TrailblazeClient, name, None)
        assert mine is not None, f"TrailblazeClient lacks {name}()"
        assert inspect.iscoroutinefunction(mine), f"TrailblazeClient.{name} must be async"
        theirs = inspect.signature(getattr(Commands, name)).parameters
        ours = inspect.signature(mine).parameters
        assert list(ours) == list(theirs), f"{name}: {list(ours)} != {list(theirs)}"
        for param in theirs:
            assert ours[param].default == theirs[param].default, f"{name}({param}) default differs"


META = {
    "trailblazeInvocationId": "inv-42",
    "trailblaze": {
        "baseUrl": "http://127.0.0.1:5/rpc",
        "sessionId": "sess-1",
        "token": "tok",
        "device": {"id": "emulator-5554", "platform": "ANDROID", "driver": "android-uiautomator2"},
    },
}


def test_from_context_reads_an_mcp_sdk_context() -> None:
    ctx = SimpleNamespace(
        request_context=SimpleNamespace(
            meta=META,
            params={"name": "t", "arguments": {"_trailblazeContext": {"memory": {"a": 1}}}},
        )
    )
    client = TrailblazeClient.from_context(ctx)
    assert (client.base_url, client.invocation_id, client.token) == ("http://127.0.0.1:5/rpc", "inv-42", "tok")
    assert client.session_id == "sess-1"
    assert client.platform == "android"
    assert client.device["id"] == "emulator-5554"
    assert client.context == {"memory": {"a": 1}}


def test_from_context_takes_the_meta_itself_and_pydantic_meta() -> None:
    assert TrailblazeClient.from_context(META).invocation_id == "inv-42"

    class Model:
        def model_dump(self, **kwargs: object) -> dict[str, object]:
            return META

    client = TrailblazeClient.from_context(SimpleNamespace(meta=Model(), params=None))
    assert client.invocation_id == "inv-42"
    assert client.context is None


def test_the_environment_of_a_spawned_server_is_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_CALLBACK_URL", "http://127.0.0.1:9/rpc")
    monkeypatch.setenv("TRAILBLAZE_CALLBACK_TOKEN", "env-token")
    client = TrailblazeClient(invocation_id="inv-1")
    assert (client.base_url, client.token) == ("http://127.0.0.1:9/rpc", "env-token")
    explicit = TrailblazeClient("http://127.0.0.1:7/rpc", "inv-2", "t")
    assert (explicit.base_url, explicit.invocation_id, explicit.token) == ("http://127.0.0.1:7/rpc", "inv-2", "t")


def test_without_any_callback_url_it_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_CALLBACK_URL", raising=False)
    with pytest.raises(ValueError, match="from_context"):
        TrailblazeClient()


def test_the_package_exports_the_client_without_importing_it_up_front() -> None:
    """Seed 000's ``from trailblaze import TrailblazeClient``; ``import trailblaze`` stays cheap."""
    import subprocess
    import sys

    code = (
        "import sys, trailblaze; assert 'trailblaze.mcpclient.sdk' not in sys.modules; "
        "from trailblaze import TrailblazeClient; from trailblaze.mcpclient.sdk import TrailblazeClient as C; "
        "assert TrailblazeClient is C and 'TrailblazeClient' in trailblaze.__all__; "
        "assert 'httpx' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
