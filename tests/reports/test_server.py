"""``trailblaze show-report`` answers only what a report needs: the guard of ``mcp --http``
(Host and Origin), no folder listings, nothing from outside the report's folder — real HTTP
requests to the real command."""

from __future__ import annotations

import http.client
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import CliProcess

SECRET = "the host's own file"


@pytest.fixture
def served(tmp_path: Path, cli_process: CliProcess) -> Iterator[int]:
    """A report folder served by ``trailblaze show-report``, with links in and out of it; its port."""
    (tmp_path / "secret.txt").write_text(SECRET)
    folder = tmp_path / "trailblaze-report"
    (folder / "data" / "run").mkdir(parents=True)
    (folder / "index.html").write_text("<title>the report</title>")
    (folder / "data" / "run" / "step-1.png").write_text("PNG a screenshot")
    (folder / "data" / "run" / "inside").symlink_to(folder / "data" / "run" / "step-1.png")
    (folder / "data" / "run" / "outside").symlink_to(tmp_path / "secret.txt")
    (folder / "data" / "escape").symlink_to(tmp_path)  # a folder link that leads out
    os.mkfifo(folder / "data" / "run" / "fifo")
    proc = cli_process("show-report", "--no-open", cwd=tmp_path)
    assert proc.stdout is not None
    match = re.search(r"at http://127\.0\.0\.1:(\d+)/index\.html", proc.stdout.readline())
    assert match is not None
    try:
        yield int(match.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def get(port: int, path: str, host: str | None = "127.0.0.1:{port}", origin: str | None = None) -> tuple[int, str]:
    """GET ``path`` as written (no client normalises it), with this Host and Origin."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # a bound on a hang
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host.format(port=port))
        if origin is not None:
            connection.putheader("Origin", origin)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def test_the_report_and_its_files_are_served(served: int) -> None:
    assert get(served, "/index.html") == (200, "<title>the report</title>")
    assert get(served, "/")[0] == 200
    assert get(served, "/data/run/step-1.png") == (200, "PNG a screenshot")
    assert get(served, "/data/run/inside")[0] == 200  # a link that stays inside the folder
    for host in ("localhost:{port}", "[::1]:{port}", "LOCALHOST:{port}"):
        assert get(served, "/index.html", host=host)[0] == 200, host
    assert get(served, "/index.html", origin="http://localhost:5173")[0] == 200  # a local dev server's page


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.nip.io:{port}", None])
def test_a_request_through_another_name_is_refused_as_dns_rebinding(served: int, host: str | None) -> None:
    status, body = get(served, "/data/run/step-1.png", host=host)
    assert status == 421 and "screenshot" not in body


def test_a_page_elsewhere_is_refused(served: int) -> None:
    status, body = get(served, "/index.html", origin="https://evil.example")
    assert status == 403 and "the report" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/data/",  # a folder: never listed
        "/data/run/",
        "/data/run/outside",  # a link to a file outside the folder
        "/data/escape/secret.txt",  # through a folder link that leads out
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/data/run/fifo",  # never opened: it would hang the server
    ],
)
def test_nothing_outside_the_report_folder_and_no_listing_is_served(served: int, path: str) -> None:
    status, body = get(served, path)  # a FIFO opened would hang the server: get's timeout ends the test
    assert status == 404, (path, body)
    assert SECRET not in body and "step-1.png" not in body
    assert get(served, "/index.html")[0] == 200  # and the server still answers
