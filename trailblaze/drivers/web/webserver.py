"""The app under test, started for the run: ``web: server:`` in trailblaze.yaml, as Playwright
Test's ``webServer``.

The web driver starts it when the run's first browser session opens (so a run of Android trails
only, ``--list`` and ``validate`` never start it) and stops it when the run ends — also after a
failure or Ctrl-C. Starting waits until the URL answers (any status below 404, as Playwright),
bounded by ``timeout``; a command that exits first or never answers is an infrastructure error
(exit 2) naming the command and the last lines of its output. The command runs through the
shell in the config file's folder, in a process group of its own: stopping sends SIGTERM to the
whole group, then SIGKILL to whatever is left; what it started and that left the group (a
daemon that detached itself with ``setsid``) carries the run's token and is swept when the run
ends (:mod:`trailblaze.core.processes`). Something that still answers at the URL after that is
named in a warning, with its pid where it can be found. Its output goes to ``web-server.log`` in
the run's artifacts folder as MCP servers' stderr goes to theirs: every secret the run's trails
used masked, the file rotated at ``TRAILBLAZE_MAX_LOG_BYTES`` (the one before kept as
``web-server.log.1``).

``reuse_existing``: when something already answers at the URL, use it instead of starting the
command (a developer's own server); under CI it is an error instead, so a stale server never
hides a broken start. It defaults to true except when ``CI`` is set (as Playwright).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from trailblaze.core import processes
from trailblaze.core.errors import InfrastructureError
from trailblaze.core.limits import MAX_WAIT_SECONDS, one_line
from trailblaze.core.processlog import ProcessLog
from trailblaze.device import masking

LOG_NAME = "web-server.log"
#: lines of the server's output an error quotes
TAIL_LINES = 10
#: seconds the server has to stop after SIGTERM before its process group gets SIGKILL
STOP_GRACE_S = 5.0
#: seconds one look at the URL may take
PROBE_TIMEOUT_S = 2.0
#: a host name (letters, digits, dots, hyphens, underscores), an IPv4 or an IPv6 address
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,252})|[0-9A-Fa-f:.]+(?:%[A-Za-z0-9]+)?")
#: bytes of output taken as one line at most (a server that never ends a line still gets logged)
OUTPUT_CHUNK = 64 * 1024


class WebServerConfig(BaseModel):
    """``web: server:``: the command that serves the app under test, and where it answers."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, loc_by_alias=False
    )

    command: str = Field(min_length=1, description="shell command that serves the app, run in trailblaze.yaml's folder")
    url: str = Field(description="http:// or https:// URL that answers (status below 404) once the app is up")
    timeout: float = Field(
        default=60.0,
        gt=0,
        le=MAX_WAIT_SECONDS,
        allow_inf_nan=False,
        description="seconds to wait for the URL to answer",
    )
    reuse_existing: bool | None = Field(
        default=None,
        description="use a server already answering at url instead of starting one; default: true, "
        "false when CI is set",
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"{url!r} should start with http:// or https://")
        if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
            raise ValueError(f"{url!r} holds a space or a control character; a URL holds neither (write %20)")
        parts = urlsplit(url)
        host = parts.hostname or ""
        if not _HOST.fullmatch(host):
            raise ValueError(f"{url!r} names no host this machine can reach (a name, an IPv4 or a [IPv6] address)")
        try:
            parts.port  # noqa: B018 - it raises for a port that is not a number from 0 to 65535
        except ValueError:
            raise ValueError(f"{url!r} has a port that is not a number from 0 to 65535") from None
        return url


def under_ci(environ: dict[str, str] | None = None) -> bool:
    """``CI`` set to anything but empty, ``0`` or ``false`` (CI services set ``CI=true``)."""
    value = (os.environ if environ is None else environ).get("CI", "")
    return value.strip().lower() not in ("", "0", "false")


class WebServer:
    """One ``web: server:`` for one run: :meth:`start` once, :meth:`stop` always."""

    def __init__(self, config: WebServerConfig, cwd: Path, artifacts_dir: Path | None) -> None:
        self.config = config
        self.cwd = cwd
        self.artifacts_dir = artifacts_dir
        self.reuse = config.reuse_existing if config.reuse_existing is not None else not under_ci()
        self.log_path: Path | None = None
        self.log: ProcessLog | None = None
        self._reader: _OutputReader | None = None
        self._process: _Adopted | None = None
        self._pgid = 0
        self._failure: InfrastructureError | None = None
        self._started = False

    async def start(self) -> None:
        """Start the command (or find the URL already answering) and wait until it answers."""
        if self._failure is not None:  # another session of the run asks again: the same answer
            raise self._failure
        if self._started:
            return
        try:
            await self._start()
        except InfrastructureError as exc:
            self._failure = exc
            raise
        self._started = True

    async def _start(self) -> None:
        config = self.config
        if await answers(config.url):
            if self.reuse:
                return
            raise InfrastructureError(
                f"web server: {config.url} already answers before `{config.command}` started; stop what serves "
                "it, or set reuse_existing: true under web: server: in trailblaze.yaml to use it"
            )
        self._spawn()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + config.timeout
        pause = 0.05
        try:
            while True:
                process = self._process
                assert process is not None
                if process.returncode is not None:
                    raise self._error(f"exited with code {process.returncode} before {config.url} answered")
                if await answers(config.url, timeout=max(0.05, min(PROBE_TIMEOUT_S, deadline - loop.time()))):
                    return
                if loop.time() >= deadline:
                    raise self._error(f"did not answer at {config.url} within {config.timeout:g} s")
                await process.poll_wait(min(pause, max(0.0, deadline - loop.time())))  # exiting ends it early
                pause = min(pause * 2, 0.5)
        except BaseException:
            await self.stop()
            raise

    def _spawn(self) -> None:
        self.log = self._open_log()
        marker = processes.arm()  # what the command starts and leaves behind is swept with the run
        env = {**os.environ, processes.TOKEN_VARIABLE: marker} if marker is not None else None
        try:
            # a plain Popen: it needs no child watcher, and is waited on by polling (_Adopted)
            popen = subprocess.Popen(
                ["/bin/sh", "-c", self.config.command],
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped as a whole, and Ctrl-C is ours
                preexec_fn=processes.die_with_parent_setup(),
            )
        except OSError as exc:
            self.log.close()
            raise InfrastructureError(f"web server: cannot start `{self.config.command}`: {exc}") from None
        self._pgid = popen.pid
        processes.on_die_now(self.kill)
        self._process = _Adopted(popen)
        assert popen.stdout is not None
        self._reader = _OutputReader(popen.stdout, self.log)
        self._reader.start()

    def _open_log(self) -> ProcessLog:
        """Where the output goes: the artifacts folder's web-server.log (evidence), else a
        temporary file, removed when the server stops. Secrets the run's trails used are masked."""
        if self.artifacts_dir is not None:
            self.log_path = self.artifacts_dir / LOG_NAME
        else:
            handle, name = tempfile.mkstemp(prefix="trailblaze-web-server-", suffix=".log")
            os.close(handle)
            self.log_path = Path(name)
        return ProcessLog(
            self.log_path, lines=TAIL_LINES, redact=masking.redact_known, what="the command", stream="output"
        )

    def _error(self, what: str) -> InfrastructureError:
        if self._reader is not None:
            self._reader.settle()  # what it printed before it exited is in the tail
        tail = self.output_tail()
        shown = "\n".join(f"  | {one_line(line)}" for line in tail) if tail else "  (it printed nothing)"
        where = f" (whole output: {self.log_path})" if self.artifacts_dir is not None and self.log_path else ""
        return InfrastructureError(f"web server: `{self.config.command}` {what}; its last output{where}:\n{shown}")

    def output_tail(self) -> list[str]:
        """The last :data:`TAIL_LINES` lines the command printed, secrets masked."""
        return [line for line in self.log.lines if line.strip()] if self.log is not None else []

    async def stop(self) -> None:
        """SIGTERM to the command's process group, SIGKILL to what is left after a grace; a
        warning when something still answers at the URL (a daemon that detached itself, for
        the run's end to sweep, or one no sweep can find); a temporary log goes away (one in
        the artifacts folder stays as evidence)."""
        process, self._process = self._process, None
        if process is not None:
            processes.signal_group(self._pgid, signal.SIGTERM)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + processes.grace(STOP_GRACE_S)
            while processes.group_alive(self._pgid) and loop.time() < deadline:
                await process.poll_wait(0.05)
            processes.signal_group(self._pgid, signal.SIGKILL)
            await process.poll_wait(1.0)
            await self._warn_if_still_served()
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.stop()
        if self.log is not None:
            self.log.close()
        if self.artifacts_dir is None and self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    async def _warn_if_still_served(self) -> None:
        if not self._started or not await answers(self.config.url, timeout=0.5):
            return
        port = _port_of(self.config.url)
        pid = processes.listener(port) if port is not None else None
        who = f"pid {pid}, listening on port {port}" if pid is not None else f"port {port}"
        how = "it carries the run's token and is ended with the run" if pid in _carriers() else "end it yourself"
        print(
            f"warning: web server: {self.config.url} still answers after `{self.config.command}` was stopped "
            f"({who}): something it started left its process group; {how}",
            file=sys.stderr,
        )

    def kill(self) -> None:
        """Trailblaze must end now (a second Ctrl-C): SIGKILL the whole group."""
        if self._process is not None:
            processes.signal_group(self._pgid, signal.SIGKILL)


class _OutputReader(threading.Thread):
    """Reads the command's output into its log, line by line, as long as anything holds the
    pipe's other end; stopped after the command is (a detached daemon may hold it for ever)."""

    def __init__(self, pipe: IO[bytes], log: ProcessLog) -> None:
        super().__init__(name="web-server-output", daemon=True)
        self.pipe = pipe
        self.log = log
        self._stopping = threading.Event()
        self._idle = threading.Event()
        self._lock = threading.Lock()

    def run(self) -> None:
        pending = b""
        fd = self.pipe.fileno()
        while not self._stopping.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                self._idle.set()
                continue
            chunk = os.read(fd, OUTPUT_CHUNK)
            if not chunk:
                break
            self._idle.clear()
            pending += chunk
            lines = pending.split(b"\n")
            pending = lines.pop()
            if len(pending) >= OUTPUT_CHUNK:  # a line without end: logged in pieces
                lines.append(pending)
                pending = b""
            with self._lock:
                for line in lines:
                    self.log.write(line.decode("utf-8", "replace").rstrip("\r"))
        if pending:
            with self._lock:
                self.log.write(pending.decode("utf-8", "replace"))
        self._idle.set()

    def settle(self, timeout: float = 1.0) -> None:
        """Wait (a little) until what the command wrote so far has been read."""
        self._idle.wait(timeout)

    def stop(self) -> None:
        self._stopping.set()
        self.join(5)
        with contextlib.suppress(OSError):
            self.pipe.close()


class _Adopted:
    """A :class:`subprocess.Popen` waited on without blocking the event loop."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def poll_wait(self, seconds: float) -> None:
        """Wait up to ``seconds`` for it to exit (reaping it), looking every 50 ms."""
        for _ in range(max(1, round(seconds / 0.05))):
            if self.popen.poll() is not None:
                return
            await asyncio.sleep(0.05)


def _port_of(url: str) -> int | None:
    parts = urlsplit(url)
    try:
        return parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None


def _carriers() -> list[int]:
    marker = processes.token()
    return processes.carriers(marker) if marker is not None and processes.linux() else []


async def answers(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether ``url`` answers with a status below 404 (a 401 or 403 is a server that is up)."""
    return await asyncio.to_thread(_answers, url, timeout)


def _answers(url: str, timeout: float) -> bool:
    import ssl
    import urllib.error
    import urllib.request

    # a local app: no proxy from the environment, and a self-signed certificate is still "up"
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=insecure))
    try:
        with opener.open(urllib.request.Request(url, method="GET"), timeout=timeout) as response:
            return bool(200 <= response.status < 404)
    except urllib.error.HTTPError as exc:
        return bool(200 <= exc.code < 404)
    except (OSError, ValueError):
        return False
