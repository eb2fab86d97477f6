"""Serve the bundled sample web app on 127.0.0.1 (``base_url: sample-app``, ``trailblaze sample-app``)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAMPLE_APP_DIR = Path(__file__).resolve().parent.parent / "sample_app"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class SampleAppServer:
    """A static file server in a background thread. ``url`` is known once started."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, directory: Path = SAMPLE_APP_DIR) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="sample-app", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> SampleAppServer:
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
