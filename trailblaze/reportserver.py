"""``trailblaze show-report``: serve a report's folder on 127.0.0.1 and open it in a browser.

A page opened from ``file://`` works too, but browsers refuse some things there (a trace
viewer fetching the trace, for one); served over HTTP the report behaves as it will when
a CI system hosts it.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from trailblaze.errors import UsageError

HOST = "127.0.0.1"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not worth a line each in the terminal."""


def page_of(path: Path) -> tuple[Path, str]:
    """The folder to serve and the page in it: ``path`` is a report's folder or its page."""
    if path.is_dir():
        if not (path / "index.html").is_file():
            raise UsageError(f"no report in {path} (no index.html): write one with `trailblaze run --html`")
        return path, "index.html"
    if path.is_file():
        return path.parent, path.name
    raise UsageError(f"no report at {path}: write one with `trailblaze run --html`")


def should_open() -> bool:
    """A browser is opened for a person at a terminal, not in CI or a pipe."""
    return sys.stdout.isatty() and not os.environ.get("CI")


def serve(path: Path, port: int, *, open_browser: bool, echo: Callable[[str], Any]) -> int:
    folder, page = page_of(path)
    handler = functools.partial(_Quiet, directory=str(folder))
    try:
        server = ThreadingHTTPServer((HOST, port), handler)
    except OSError as exc:
        raise UsageError(f"cannot listen on {HOST}:{port}: {exc.strerror}") from None
    url = f"http://{HOST}:{server.server_address[1]}/{page}"
    echo(f"serving {folder} at {url} (Ctrl-C to stop)")
    if open_browser and should_open():
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
