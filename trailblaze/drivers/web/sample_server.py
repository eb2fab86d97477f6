"""Serve the bundled sample web app on 127.0.0.1 (``base_url: sample-app``, ``trailblaze sample-app``)."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAMPLE_APP_DIR = Path(__file__).resolve().parents[2] / "sample_app"
#: how often the serving thread looks for ``stop()``: shutdown() waits for that look, and at the
#: standard library's 0.5 s every run on the sample app ended up to half a second later
POLL_INTERVAL_S = 0.05


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser context closing mid-request (a trail ended) resets its connections; that is
        # not a server problem, and a traceback in the run's output would say it is.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class SampleAppServer:
    """A static file server in a background thread. ``url`` is known once started."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, directory: Path = SAMPLE_APP_DIR) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self._server = _Server((host, port), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, name="sample-app", daemon=True
        )
        self._serving = False

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> SampleAppServer:
        self._serving = True
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._serving = True
        self._server.serve_forever()

    def stop(self) -> None:
        if self._serving:  # shutdown() waits for a serve_forever() loop, forever if none ever ran
            self._server.shutdown()
        self._server.server_close()


def serve(host: str, port: int, echo: Callable[[str], Any]) -> int:
    """``trailblaze sample-app``: serve until Ctrl-C. An address that cannot be bound is misuse."""
    from trailblaze.core.errors import UsageError

    try:
        server = SampleAppServer(host, port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    echo(f"serving the sample app at {server.url}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
