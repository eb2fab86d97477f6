"""An agent's task, scripted, through ``trailblaze mcp`` and through ``@playwright/mcp``: what
each server sends back for the same clicks and typing on the same real web application, and how
soon each is gone when the client closes stdin (``mcp_context.py`` turns them into figures).

The applications are real ones from PyPI, installed by ``make bench-peers`` into an environment
of their own (``benchmarks/peers/.venv-apps``, pinned in ``benchmarks/peers/apps.txt``):

* **datasette** serving a SQLite database made here (200 orders of 40 customers): filter the
  orders by status with the table's filter form, sort them by total, open the first order's
  customer, then that customer's orders;
* **Django's admin** (a project ``django-admin startproject`` makes, migrated, with a
  superuser): log in, add a user (username, password twice), then fill in the new user's
  name and email and save — the form-filling the admin is for.

Each side's agent acts only on what its server told it, as an LLM would: the refs of
``trailblaze mcp`` come from its replies (the whole screen, or the lines that changed);
``@playwright/mcp`` (0.0.83) writes the page snapshot of an action's reply to a file and shows
it only for ``browser_snapshot``, so its agent takes a snapshot before it acts on a page it has
not seen yet. The clients speak JSON-RPC over the servers' pipes themselves, so that what is
counted is what each server wrote: a reply's *text* (what a client shows its LLM) and its
*whole* result (the ``tools/call`` result as sent, compact JSON).
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the applications' environment (``make bench-peers``)
APPS = ROOT / "benchmarks" / "peers" / ".venv-apps"
ADMIN_USER, ADMIN_PASSWORD = "admin", "bench-Secret-42"


def apps_python() -> Path:
    python = APPS / "bin" / "python"
    if not python.exists():
        raise SystemExit("datasette and Django are not installed for the benchmarks: run `make bench-peers`")
    return python


# -- a server over stdio, spoken to as a client does ---------------------------------------------------


@dataclass
class Reply:
    text: str
    #: characters of the ``tools/call`` result as the server sent it (compact JSON)
    whole: int
    error: bool


class StdioServer:
    """An MCP server on pipes: ``initialize``, ``tools/list``, then ``tools/call`` one at a time."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._id = 0
        self.replies: list[tuple[str, Reply]] = []
        opening = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        self.request("initialize", opening)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request("tools/list", {})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._id += 1
        self._send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server ended during {method}")
            message = json.loads(line)
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message["result"])

    def request_soon(self, method: str, params: dict[str, Any]) -> None:
        """Send a request and do not wait for its answer (a call still running when the client leaves)."""
        self._id += 1
        self._send({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})

    def call(self, name: str, arguments: dict[str, Any]) -> Reply:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")
        whole = len(json.dumps(result, separators=(",", ":"), ensure_ascii=False))
        reply = Reply(text, whole, bool(result.get("isError")))
        if reply.error:
            raise RuntimeError(f"{name}({arguments}) failed: {text[:2000]}")
        self.replies.append((name, reply))
        return reply

    def close(self) -> float:
        """Close stdin, as a client leaving does: seconds until the server has exited."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        start = time.perf_counter()
        self.proc.stdin.close()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        elapsed = time.perf_counter() - start
        self.proc.stdout.close()
        return elapsed


# -- the agents: the same task, each on what its server says ---------------------------------------------

#: an element's line: its role, its name (when it has one), its ref — in trailblaze's screen
#: (``  link "Forms" url=forms.html [e2]``) and in a Playwright snapshot (``- link "Forms" [ref=e2]``)
_OURS = re.compile(r'^\s*(?P<role>[\w-]+)(?: (?P<name>"(?:[^"\\]|\\.)*"))?.* \[(?P<ref>e\d+)\]$')
_THEIRS = re.compile(r'^\s*- (?P<role>[\w-]+)(?: (?P<name>"(?:[^"\\]|\\.)*"))?.*?\[ref=(?P<ref>(?:f\d+)?e\d+)\]')


@dataclass
class Element:
    role: str
    name: str
    ref: str

    @property
    def order(self) -> tuple[int, ...]:
        """Page order: refs are numbered as the page is read (``e12``; after a navigation
        @playwright/mcp's carry the frame's number first, ``f1e12``)."""
        return tuple(int(number) for number in re.findall(r"\d+", self.ref))


def _element(found: re.Match[str]) -> Element:
    name = found.group("name")
    return Element(found.group("role"), json.loads(name) if name else "", found.group("ref"))


@dataclass
class Agent:
    """What both agents share: the elements they know, by ref, and how they pick one."""

    server: StdioServer
    known: dict[str, Element] = field(default_factory=dict)

    def find(self, role: str, name: str = "", nth: int = 0) -> str:
        """The ref of the ``nth`` element (in page order) with ``role`` whose whole name matches
        the regex ``name`` (any name when empty)."""
        matching = sorted(
            (e for e in self.known.values() if e.role == role and (not name or re.fullmatch(name, e.name))),
            key=lambda e: e.order,
        )
        if len(matching) <= nth:
            shown = "\n".join(
                f"{e.role} {e.name!r} {e.ref}" for e in sorted(self.known.values(), key=lambda e: e.order)
            )
            raise LookupError(f"no {role} {name!r} (#{nth}) on the screen the agent knows:\n{shown}")
        return matching[nth].ref


class TrailblazeAgent(Agent):
    """Reads the screen from every reply: whole (``The screen now:``), or the lines that changed."""

    #: the last whole screen was cut (``… N more elements not shown``)
    cut = False

    def _see(self, reply: Reply) -> None:
        text = reply.text
        if "\n\nThe screen now:\n" in text:
            self.known = {}
            self.cut = "more elements not shown" in text
            for line in text.split("\n\nThe screen now:\n", 1)[1].splitlines():
                if found := _OURS.match(line):
                    element = _element(found)
                    self.known[element.ref] = element
        elif "\n\nThe screen changed" in text:
            for line in text.split("\n\nThe screen changed", 1)[1].splitlines()[1:]:
                mark, rest = line[:2], line[2:]
                if "more elements not shown" in rest:  # the note of a cut screen came or went
                    self.cut = mark != "- "
                if not (found := _OURS.match(rest)):
                    continue
                element = _element(found)
                if mark == "- ":
                    self.known.pop(element.ref, None)
                else:
                    self.known[element.ref] = element

    def act(self, name: str, arguments: dict[str, Any]) -> None:
        self._see(self.server.call(name, arguments))

    def find(self, role: str, name: str = "", nth: int = 0) -> str:
        """A screen cut at 150 lines says so: what is below is asked for (``ask`` shows 1,000)."""
        try:
            return super().find(role, name, nth)
        except LookupError:
            if not self.cut:
                raise
        self._see(self.server.call("ask", {"question": "the rest of the page", "viewHierarchy": "STANDARD"}))
        return super().find(role, name, nth)

    def navigate(self, path: str) -> None:
        self.act("web_navigate", {"url": path})

    def click(self, role: str, name: str = "", nth: int = 0) -> None:
        self.act("web_click", {"ref": self.find(role, name, nth)})

    def type(self, role: str, name: str, text: str) -> None:
        self.act("web_type", {"ref": self.find(role, name), "text": text})

    def select(self, role: str, name: str, value: str) -> None:
        self.act("web_selectOption", {"ref": self.find(role, name), "values": [value]})

    def look(self) -> None:
        """The last reply showed what changed: nothing more to ask."""


class PlaywrightAgent(Agent):
    """Acts by the refs of ``browser_snapshot``, taken when the page may have changed since."""

    def __init__(self, server: StdioServer, base_url: str) -> None:
        super().__init__(server)
        self.base_url = base_url
        self.stale = True

    def _fresh(self) -> None:
        if not self.stale:
            return
        text = self.server.call("browser_snapshot", {}).text
        self.known = {}
        for line in text.splitlines():
            if found := _THEIRS.match(line):
                element = _element(found)
                self.known[element.ref] = element
        self.stale = False

    def find(self, role: str, name: str = "", nth: int = 0) -> str:
        """On a page still loading (its click's reply came before the next page did), wait a
        second and look again, as an agent would, up to three times."""
        for attempt in range(4):
            self._fresh()
            try:
                return super().find(role, name, nth)
            except LookupError:
                if attempt == 3:
                    raise
            self.server.call("browser_wait_for", {"time": 1})
            self.stale = True
        raise AssertionError("unreachable")

    def navigate(self, path: str) -> None:
        self.server.call("browser_navigate", {"url": self.base_url + path})
        self.stale = True

    def click(self, role: str, name: str = "", nth: int = 0) -> None:
        ref = self.find(role, name, nth)
        self.server.call("browser_click", {"element": f"{role} {name}".strip(), "target": ref})
        self.stale = True

    def type(self, role: str, name: str, text: str) -> None:
        ref = self.find(role, name)
        self.server.call("browser_type", {"element": f"{role} {name}".strip(), "target": ref, "text": text})

    def select(self, role: str, name: str, value: str) -> None:
        ref = self.find(role, name)
        self.server.call(
            "browser_select_option", {"element": f"{role} {name}".strip(), "target": ref, "values": [value]}
        )

    def look(self) -> None:
        self._fresh()


# -- the tasks ---------------------------------------------------------------------------------------------


def datasette_task(agent: TrailblazeAgent | PlaywrightAgent) -> None:
    """Shipped orders by total, the first one's customer, that customer's orders: 7 actions."""
    agent.navigate("/shop/orders")
    agent.select("combobox", "", "status")  # the filter's column (datasette's select has no label)
    agent.type("textbox", "", "shipped")
    agent.click("button", "Apply")
    agent.click("link", "total")
    agent.click("link", r"Customer \d+")  # the first row's customer
    agent.click("link", r"\d+ rows?")  # "Links from other tables": their orders
    agent.look()


def admin_task(agent: TrailblazeAgent | PlaywrightAgent) -> None:
    """Log in, add a user, give them a name and an email: 13 actions, 8 of them field edits."""
    agent.navigate("/admin/")
    agent.type("textbox", "Username:?", ADMIN_USER)
    agent.type("textbox", "Password:?", ADMIN_PASSWORD)
    agent.click("button", "Log in")
    agent.click("link", "Add", nth=1)  # the Users row's (Groups come first)
    agent.type("textbox", "Username:?", "ada")
    agent.type("textbox", "Password:?", "Analytical-Engine-1843")
    agent.type("textbox", "Password confirmation:?", "Analytical-Engine-1843")
    agent.click("button", "Save")
    agent.type("textbox", "First name:?", "Ada")
    agent.type("textbox", "Last name:?", "Lovelace")
    agent.type("textbox", "Email address:?", "ada@example.com")
    agent.click("button", "Save")
    agent.look()


TASKS: dict[str, Callable[[Any], None]] = {"datasette": datasette_task, "Django admin": admin_task}


# -- the applications ----------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serving(url: str, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.2)


@contextmanager
def _served(command: list[str], cwd: Path, url: str, what: str) -> Iterator[str]:
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _serving(url, proc, what)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def datasette(folder: Path) -> Iterator[str]:
    """datasette serving ``shop.db`` (orders and customers); yields its base URL."""
    database = folder / "shop.db"
    with sqlite3.connect(database) as db:
        db.execute("create table customers (id integer primary key, name text, city text)")
        db.execute(
            "create table orders (id integer primary key, customer_id integer references customers(id), "
            "status text, total real)"
        )
        cities = ["Lisbon", "Oslo", "Lima", "Austin", "Kyoto"]
        db.executemany(
            "insert into customers values (?, ?, ?)", [(i, f"Customer {i}", cities[i % 5]) for i in range(1, 41)]
        )
        statuses = ["open", "shipped", "cancelled"]
        db.executemany(
            "insert into orders values (?, ?, ?, ?)",
            [(i, 1 + i % 40, statuses[i % 3], round(10 + i * 3.7, 2)) for i in range(1, 201)],
        )
    port = free_port()
    command = [str(apps_python()), "-m", "datasette", "serve", str(database), "--port", str(port)]
    with _served(command, folder, f"http://127.0.0.1:{port}", "datasette") as url:
        yield url


@contextmanager
def django_admin(folder: Path) -> Iterator[str]:
    """Django's admin of a new project (migrated, with a superuser), on runserver; yields its URL."""
    python = str(apps_python())
    site = folder / "site"
    site.mkdir()
    subprocess.run([python, "-m", "django", "startproject", "benchsite", str(site)], check=True)
    env = {
        **os.environ,
        "DJANGO_SUPERUSER_USERNAME": ADMIN_USER,
        "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
        "DJANGO_SUPERUSER_EMAIL": "admin@example.com",
    }
    quiet = {"check": True, "cwd": site, "env": env, "stdout": subprocess.DEVNULL}
    subprocess.run([python, "manage.py", "migrate", "--noinput"], **quiet)  # type: ignore[call-overload]
    subprocess.run([python, "manage.py", "createsuperuser", "--noinput"], **quiet)  # type: ignore[call-overload]
    port = free_port()
    command = [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    with _served(command, site, f"http://127.0.0.1:{port}/admin/login/", "Django's runserver") as url:
        yield url.removesuffix("/admin/login/")


APPLICATIONS = {"datasette": datasette, "Django admin": django_admin}


# -- the servers ---------------------------------------------------------------------------------------------


def trailblaze_server(folder: Path, base_url: str) -> StdioServer:
    (folder / "trailblaze.yaml").write_text(f"base_url: {base_url}\n", encoding="utf-8")
    env = {**os.environ, "TRAILBLAZE_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    return StdioServer([sys.executable, "-m", "trailblaze", "mcp"], folder, env)


def playwright_server(folder: Path, command: list[str]) -> StdioServer:
    return StdioServer([*command, "--output-dir", str(folder / "playwright-mcp")], folder, dict(os.environ))


@dataclass
class TaskRun:
    """One task through one server: every reply, and the seconds from stdin closing to its exit."""

    replies: list[tuple[str, Reply]]
    exit_s: float

    @property
    def text(self) -> int:
        return sum(len(reply.text) for _, reply in self.replies)

    @property
    def whole(self) -> int:
        return sum(reply.whole for _, reply in self.replies)


def run_task(task: str, server: StdioServer, agent: TrailblazeAgent | PlaywrightAgent) -> TaskRun:
    try:
        TASKS[task](agent)
    except BaseException:
        server.close()
        raise
    return TaskRun(server.replies, server.close())
