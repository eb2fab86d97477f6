"""A local OpenAI-compatible chat-completions server that answers from a script, over real HTTP.

Each request gets the next entry of the script. An entry answers with tool calls, where an
argument ``Ref('textbox "Name"')`` becomes the ref of the first line of the latest screen in
the request that contains that text — so the agent under test must really send the screen
with its refs. An entry can also answer with an HTTP error, or hold the request until the test
releases it (to interrupt a recording mid-step). Every request body is kept for assertions.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "scripted-model"


@dataclass(frozen=True)
class Ref:
    """The ref of the screen line containing ``text``."""

    text: str


@dataclass
class Reply:
    calls: Sequence[tuple[str, dict[str, Any]]] = ()
    content: str = ""
    status: int = 200
    error: str = ""
    #: hold the request until ``FakeOpenAI.release`` is set
    hold: bool = False


@dataclass
class FakeOpenAI:
    script: list[Reply]
    api_key: str | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    #: set when a request is being held
    holding: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                status, answer = fake.answer(self.path, self.headers.get("Authorization"), body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, authorization: str | None, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no such endpoint {path}"}}
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return 401, {"error": {"message": "Incorrect API key provided"}}
        with self._lock:
            self.requests.append(body)
            if len(self.requests) > len(self.script):
                return 500, {"error": {"message": f"the script has only {len(self.script)} replies"}}
            reply = self.script[len(self.requests) - 1]
        if reply.hold:
            self.holding.set()
            self.release.wait(120)
        if reply.status != 200:
            return reply.status, {"error": {"message": reply.error}}
        screen = latest_screen(body["messages"])
        tool_calls = []
        for i, (name, args) in enumerate(reply.calls):
            try:
                resolved = {k: resolve(v, screen) for k, v in args.items()}
            except LookupError as exc:
                return 500, {"error": {"message": str(exc)}}
            tool_calls.append(
                {
                    "id": f"call_{len(self.requests)}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(resolved)},
                }
            )
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if tool_calls:
            message["tool_calls"] = tool_calls
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 20, "total_tokens": 0},
        }

    def conversations(self) -> Iterator[list[dict[str, Any]]]:
        """The requests that started a step (a system and a user message only)."""
        for body in self.requests:
            if len(body["messages"]) == 2:
                yield body["messages"]


def latest_screen(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        content = message.get("content") or ""
        if message["role"] == "user" and "[e" in content:
            return content
    return ""


def resolve(value: Any, screen: str) -> Any:
    if isinstance(value, Ref):
        for line in screen.splitlines():
            if value.text in line:
                found = re.search(r"\[(e\d+)\]", line)
                if found:
                    return found.group(1)
        raise LookupError(f"no line with a ref and {value.text!r} on the screen sent:\n{screen}")
    if isinstance(value, dict):
        return {k: resolve(v, screen) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, screen) for v in value]
    return value
