"""The bundled sample app's server (``base_url: sample-app`` and ``trailblaze sample-app``)."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from trailblaze.drivers.web.sample_server import SAMPLE_APP_DIR, SampleAppServer


@pytest.fixture
def server() -> Iterator[SampleAppServer]:
    running = SampleAppServer().start()
    try:
        yield running
    finally:
        running.stop()


def test_serves_every_page_of_the_app(server: SampleAppServer) -> None:
    pages = sorted(p.name for p in SAMPLE_APP_DIR.iterdir() if p.suffix in (".html", ".js", ".css"))
    assert {"index.html", "forms.html", "lists.html", "detail.html", "delayed.html", "about.html"} <= set(pages)
    for name in pages:
        with urllib.request.urlopen(f"{server.url}/{name}", timeout=10) as response:
            assert response.status == 200
            assert response.read() == (SAMPLE_APP_DIR / name).read_bytes()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{server.url}/nothing.html", timeout=10)
    assert missing.value.code == 404
    missing.value.close()


def test_a_client_that_goes_away_is_not_reported_as_an_error(
    server: SampleAppServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Closing a browser context resets its open connections; the run must not print a
    traceback for that. Any other error is still reported."""
    for gone in (ConnectionResetError(104, "Connection reset by peer"), BrokenPipeError(32, "Broken pipe")):
        try:
            raise gone
        except ConnectionError:
            server._server.handle_error(None, ("127.0.0.1", 50000))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a real problem")
    except ValueError:
        server._server.handle_error(None, ("127.0.0.1", 50000))
    assert "ValueError: a real problem" in capsys.readouterr().err


def test_a_server_that_never_started_stops() -> None:
    server = SampleAppServer()
    stopping = threading.Thread(target=server.stop, daemon=True)
    stopping.start()
    stopping.join(timeout=30)
    assert not stopping.is_alive()
