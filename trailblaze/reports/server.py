"""``trailblaze show-report``: serve a report's folder on 127.0.0.1 and open it in a browser.

A page opened from ``file://`` works too, but browsers refuse some things there (a trace
viewer fetching the trace, for one); served over HTTP the report behaves as it will when
a CI system hosts it.

The report holds screenshots and traces of what the trails saw (signed-in pages, typed
values), and any page open in the user's browser can send requests to 127.0.0.1. So the server
answers only what a report needs: ``GET`` and ``HEAD`` of regular files inside the report's
folder — a symbolic link is followed only when it ends inside the folder, a folder is never
listed (404), a FIFO or device is never opened — and only to requests that pass the guard
``trailblaze mcp --http`` uses (:mod:`trailblaze.core.localguard`): a ``Host`` that is not a local
name on its port is refused with 421 (DNS rebinding), an ``Origin`` of a page elsewhere with 403.

A folder without a report but with an agent log — an MCP session's, ``.trailblaze/mcp/<session>``,
or ``.trailblaze/mcp`` for the newest session — is shown as the agent view of its runs
(:func:`trailblaze.reports.agentview.write_session_page`).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from trailblaze.core.errors import UsageError

HOST = "127.0.0.1"


class _ReportHandler(SimpleHTTPRequestHandler):
    """Serves the files of one report's folder, and nothing else (see the module's docstring)."""

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not worth a line each in the terminal."""

    def send_head(self) -> Any:
        from trailblaze.core.localguard import LOCAL_NAMES, host_ok, origin_ok, with_port

        hosts = with_port(LOCAL_NAMES, getattr(self.server, "server_port", 0))
        if not host_ok(self.headers.get("Host"), hosts):
            self.send_error(421, "Invalid Host header")
            return None
        if not origin_ok(self.headers.get("Origin"), hosts):
            self.send_error(403, "Invalid Origin header")
            return None
        root = os.path.realpath(self.directory)
        real = os.path.realpath(self.translate_path(self.path))
        wanted = os.path.join(real, "index.html") if os.path.isdir(real) else real
        if not _inside(real, root) or (not _regular_inside(wanted, root) and not _needs_slash(real, self.path)):
            self.send_error(404, "File not found")
            return None
        return super().send_head()  # the file, or the redirect of a folder's address to its index

    def list_directory(self, path: Any) -> None:
        """A folder without index.html: no listing of what is in it."""
        self.send_error(404, "File not found")
        return None


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _regular_inside(path: str, root: str) -> bool:
    """``path`` is, links followed, a regular file inside ``root``."""
    import stat

    real = os.path.realpath(path)
    try:
        return _inside(real, root) and stat.S_ISREG(os.stat(real).st_mode)
    except OSError:
        return False


def _needs_slash(real: str, address: str) -> bool:
    """A folder asked for without its ``/``: the browser is sent to the address with it."""
    from urllib.parse import urlsplit

    return os.path.isdir(real) and not urlsplit(address).path.endswith("/")


def page_of(path: Path) -> tuple[Path, str]:
    """The folder to serve and the page in it: ``path`` is a report's folder or its page."""
    if path.is_dir():
        if not (path / "index.html").is_file():
            from trailblaze.reports.agentview import write_session_page

            try:
                page = write_session_page(path)  # an MCP session's folder: the agent view of its runs
            except OSError as exc:
                raise UsageError(f"cannot write the agent view into {path}: {exc.strerror or exc}") from None
            if page is not None:
                return page.parent, page.name
            raise UsageError(
                f"no report in {path} (no index.html, no agent log): write one with `trailblaze run --html`"
            )
        return path, "index.html"
    if path.is_file():
        return path.parent, path.name
    raise UsageError(f"no report at {path}: write one with `trailblaze run --html`")


def should_open() -> bool:
    """A browser is opened for a person at a terminal, not in CI or a pipe."""
    return sys.stdout.isatty() and not os.environ.get("CI")


def serve(path: Path, port: int, *, open_browser: bool, echo: Callable[[str], Any]) -> int:
    folder, page = page_of(path)
    handler = functools.partial(_ReportHandler, directory=str(folder))
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
