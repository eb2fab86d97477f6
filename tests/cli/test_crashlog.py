"""An unexpected exception is an internal error: exit 4 (not 1, a failed trail), one line naming
the exception and a log file, the traceback in that file."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import CliRunner, Project
from trailblaze.cli.crashlog import write_crash_log

CRASHER = """
import trailblaze


@trailblaze.hookimpl
def trailblaze_configure(config):
    raise RuntimeError("the plugin has a bug")
"""


def test_an_unexpected_exception_is_one_line_exit_4_and_a_log(cli: CliRunner, project: Project, tmp_path: Path) -> None:
    project.write("crasher.py", CRASHER)
    result = cli("validate", "-p", "crasher", env={"PYTHONPATH": str(tmp_path)})
    assert (result.returncode, result.stdout) == (4, "")
    (line,) = result.stderr.splitlines()
    prefix = "internal error: RuntimeError: the plugin has a bug; the traceback is in "
    assert line.startswith(prefix)
    log = Path(line.removeprefix(prefix))
    assert log.parent == tmp_path / ".trailblaze" / "logs"
    text = log.read_text(encoding="utf-8")
    assert "command: trailblaze validate -p crasher" in text
    assert "Traceback (most recent call last)" in text
    assert 'raise RuntimeError("the plugin has a bug")' in text


def test_the_log_goes_to_the_temporary_folder_when_the_project_cannot_take_it(tmp_path: Path) -> None:
    (tmp_path / ".trailblaze").write_text("a file where a folder would go", encoding="utf-8")
    try:
        raise ValueError("boom")
    except ValueError as exc:
        log = write_crash_log(exc, ["run"], tmp_path)
    assert log is not None and not log.is_relative_to(tmp_path)
    try:
        assert "ValueError: boom" in log.read_text(encoding="utf-8")
    finally:
        log.unlink()


def test_the_log_is_written_when_the_error_holds_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    name = b"caf\xe9".decode("utf-8", "surrogateescape")  # how Python keeps a Latin-1 file name
    try:
        raise ValueError(f"cannot open {name}")
    except ValueError as exc:
        log = write_crash_log(exc, ["run", name], tmp_path)
    assert log is not None  # it was a 0-byte file and a second traceback
    text = log.read_text(encoding="utf-8")
    assert "command: trailblaze run caf\\udce9" in text and "ValueError: cannot open caf\\udce9" in text


def test_the_log_never_writes_through_a_link_left_under_its_name(tmp_path: Path) -> None:
    """The log's name is predictable (a time and a pid) and the temporary folder is shared: a
    link someone left there is replaced, not written through."""
    users = tmp_path / "precious.txt"
    users.write_text("the user's\n")
    logs = tmp_path / ".trailblaze" / "logs"
    logs.mkdir(parents=True)
    import datetime as dt
    import os

    stamp = dt.datetime.now().strftime("%Y-%m-%dT%H-%M-%S")
    for seconds in (0, 1):  # the second may turn while the log is written
        later = (dt.datetime.now() + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H-%M-%S")
        for name in {stamp, later}:
            link = logs / f"internal-error-{name}-{os.getpid()}.log"
            if not link.is_symlink():
                link.symlink_to(users)
    path = write_crash_log(RuntimeError("boom"), ["run"], tmp_path)
    assert path is not None and not path.is_symlink() and "RuntimeError: boom" in path.read_text()
    assert users.read_text() == "the user's\n"
