"""A started process's log (trailblaze/core/processlog.py): never written through a link. Its
rotation and masking are tested with the MCP servers that write it (tests/mcp_toolsets/test_stdio.py)
and the web server (tests/drivers/web/test_webserver.py)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from trailblaze.core.processlog import ProcessLog


def test_a_link_where_the_log_goes_is_refused_and_what_it_points_to_left_alone(tmp_path: Path) -> None:
    users = tmp_path / "precious.txt"
    users.write_text("the user's\n")
    (tmp_path / "server.log").symlink_to(users)
    with pytest.raises(OSError) as refused:  # noqa: PT011 - told apart by errno
        ProcessLog(tmp_path / "server.log")
    assert refused.value.errno == errno.ELOOP
    assert users.read_text() == "the user's\n"


def test_what_was_there_is_appended_to_and_counted_towards_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    path.write_text("before\n")
    log = ProcessLog(path, redact=lambda line: line.replace("hunter22", "***"))
    log.write("password hunter22")
    log.close()
    assert path.read_text() == "before\npassword ***\n"
    assert log.lines == ["password ***"]
