"""What the HTTP stand-ins share: a threaded server on a free port, a handler that hands GET,
POST and DELETE to the stand-in's ``_respond``, and start/stop as a context manager. The
stand-ins differ in what they answer and how they keep connections (WebDriverAgent closes
them, Appium keeps them alive)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class StandInServer:
    """A stand-in's HTTP endpoint; ``url`` is where its client connects. Subclasses answer
    requests in ``_respond(handler, method)`` and call :meth:`_listen` at the end of ``__init__``."""

    #: the thread's name, in a traceback or a hang's dump
    name = "stand-in"

    def _listen(self, host: str, protocol: str, *, nodelay: bool = False) -> None:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = protocol
            disable_nagle_algorithm = nodelay

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                stand_in._respond(self, "GET")

            def do_POST(self) -> None:
                stand_in._respond(self, "POST")

            def do_DELETE(self) -> None:
                stand_in._respond(self, "DELETE")

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        self.host, self.port = str(self._server.server_address[0]), int(self._server.server_address[1])
        self.url = f"http://{self.host}:{self.port}"
        # the stop is looked for every 50 ms: shutdown() would wait the standard library's 0.5 s
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=self.name, daemon=True
        )
        self._stopped = False

    def _respond(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop answering: the endpoint becomes unreachable (mid-run, for the tests that want it)."""
        if not self._stopped:
            self._stopped = True
            self._server.shutdown()
            self._server.server_close()
