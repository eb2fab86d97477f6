"""Reports and recordings written where the user points, whatever is there."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trailblaze.core.fileio import write_atomic


def test_a_new_or_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "r.json"
    write_atomic(target, "one\n")
    write_atomic(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]  # no temporary file left


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    write_atomic(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "real.json").read_text() == "new"


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
