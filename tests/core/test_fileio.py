"""Reports, state, logs and recordings written where the user points, whatever is there — and
never through a link."""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trailblaze.core.fileio import copy_whole, open_log, write_atomic, write_whole


def test_a_new_or_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "r.json"
    write_atomic(target, "one\n")
    write_atomic(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]  # no temporary file left


@pytest.mark.parametrize("writer", ["text", "bytes", "copy"])
def test_a_link_is_replaced_by_the_file_and_what_it_pointed_to_is_left_alone(tmp_path: Path, writer: str) -> None:
    """A repository can commit a link where trailblaze writes (`.trailblaze/lastfailed.json`
    aimed at a user's file): the link becomes trailblaze's file; the user's file is untouched."""
    users = tmp_path / "elsewhere" / "precious.txt"
    users.parent.mkdir()
    users.write_text("the user's")
    users.chmod(0o600)
    link = tmp_path / "state.json"
    link.symlink_to(users)
    source = tmp_path / "source.bin"
    source.write_bytes(b"new")
    {
        "text": lambda: write_atomic(link, "new"),
        "bytes": lambda: write_whole(link, b"new"),
        "copy": lambda: copy_whole(source, link),
    }[writer]()
    assert not link.is_symlink() and link.read_text() == "new"
    assert users.read_text() == "the user's" and stat.S_IMODE(users.stat().st_mode) == 0o600
    assert stat.S_IMODE(link.stat().st_mode) != 0o600  # its own permissions, not the target's
    device = tmp_path / "device.png"
    device.symlink_to("/dev/null")
    write_whole(device, b"evidence")  # a file trailblaze names itself: never a stream
    assert not device.is_symlink() and device.read_bytes() == b"evidence"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere" / "x.json")
    write_atomic(dangling, "made")
    assert dangling.read_text() == "made" and not (tmp_path / "nowhere").exists()


def test_a_log_is_appended_to_but_never_through_a_link_or_into_a_fifo(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "server.log"
    with open_log(log) as handle:
        handle.write(b"one\n")
    with open_log(log) as handle:
        handle.write(b"two\n")
    assert log.read_bytes() == b"one\ntwo\n"
    users = tmp_path / "precious.txt"
    users.write_text("the user's")
    (tmp_path / "linked.log").symlink_to(users)
    with pytest.raises(OSError) as linked:  # noqa: PT011 - told apart by errno below
        open_log(tmp_path / "linked.log")
    assert linked.value.errno == errno.ELOOP
    os.mkfifo(tmp_path / "fifo.log")
    with pytest.raises(OSError) as fifo:  # noqa: PT011 - at once: opened without blocking
        open_log(tmp_path / "fifo.log")
    assert fifo.value.errno in (errno.ENXIO, errno.EINVAL)  # no reader; or a reader, and not a file
    assert users.read_text() == "the user's"


def test_a_socket_or_other_special_file_is_an_error(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError, match="not a regular file"):
            write_atomic(path, "x")


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_device_is_written_into_never_replaced(tmp_path: Path) -> None:
    null, full = tmp_path / "null", tmp_path / "full"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    write_atomic(null, "gone")
    with pytest.raises(OSError, match="No space left"):  # the error reaches the caller (exit 2 there)
        write_atomic(full, "x")
    assert stat.S_ISCHR(null.stat().st_mode) and stat.S_ISCHR(full.stat().st_mode)


def test_a_fifo_is_written_into_and_one_nobody_reads_is_an_error_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="No such device or address"):  # ENXIO: no reader, no hang
        write_atomic(fifo, "x")
    received: list[str] = []
    # a daemon: should the write never come, a reader blocked in open() must not keep pytest alive
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    for _ in range(50):
        try:
            write_atomic(fifo, "for the reader")
            break
        except OSError:  # the reader has not opened it yet
            time.sleep(0.1)
    reader.join(10)
    assert received == ["for the reader"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_file_where_a_folder_should_be_is_named_as_such(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    with pytest.raises(NotADirectoryError, match="Not a directory"):
        write_atomic(tmp_path / "afile" / "out.json", "x")


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
@example("caf\udce9 \ud800")
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_text_is_written_and_json_reads_it_back(tmp_path: Path, text: str) -> None:
    """Lone surrogates — bytes that were not UTF-8 in a file name or an argument — used to stop
    every report with a UnicodeEncodeError; they are written escaped, and JSON reads them back."""
    target = tmp_path / "r.json"
    write_atomic(target, json.dumps({"text": text}, ensure_ascii=False))
    assert json.loads(target.read_bytes().decode("utf-8")) == {"text": text}
