"""Built-in plugin: the ``playwright-native`` web driver, the ``web_*`` tools, and everything the
web driver is set with — its options (``--headed``, ``--base-url``, ``--remote-debugging-port``,
``--trace``), its keys of ``trailblaze.yaml`` (``base_url``, ``headless``, ``browser``, the
``web:`` section) and ``sample-app``, the name a ``base_url`` may be (``parser.add_named_url``), its
checks before a run (a ``/path`` URL without a ``base_url``, a visible browser without a
display) and its evidence: a Playwright trace (``trace.zip``, which ``playwright show-trace``
opens) of a trail's first ``--retries`` retry, unless ``--trace on|off|retain-on-failure`` says
otherwise. It adds ``trailblaze sample-app``, which serves the bundled app ``base_url: sample-app``
runs against, and tells ``trailblaze doctor`` about Playwright and the browser."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    import click

    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.results import Artifact, TrailResult
    from trailblaze.api.session import PlannedTrail, Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.core.errors import TrailblazeError
    from trailblaze.drivers.web.device import WebDevice
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Trail

#: the commands that open a browser
BROWSING = ("run", "record", "mcp")


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    from trailblaze.drivers.web.settings import SAMPLE_APP
    from trailblaze.project.config import BaseUrl
    from trailblaze.tools.bundled import TRAILMAPS

    parser.add_trailmap(TRAILMAPS / "web")  # its toolsets, and what upstream workspaces may depend on

    group = parser.getgroup("web", "Web driver (playwright-native)")
    group.addoption("--headed", is_flag=True, help="Show the browser window.", commands=BROWSING)
    group.addoption(
        "--base-url",
        metavar="URL",
        help="Base URL for '/path' navigation ('sample-app' serves the bundled app).",
        commands=BROWSING,
    )
    group.addoption(
        "--remote-debugging-port",
        type=click.IntRange(0, 65535),
        metavar="PORT",
        help="Let other tools drive the browser over CDP on 127.0.0.1:PORT (0 picks a free port).",
        commands=("record",),
    )
    group.addoption(
        "--trace",
        choices=("on", "off", "retain-on-failure", "on-first-retry"),
        default="on-first-retry",
        help="Record a Playwright trace per trail (trace.zip in the artifacts folder; `playwright show-trace` "
        "opens it): on, off, kept only when the trail fails, or on a trail's first --retries retry only "
        "(default, as Playwright Test).",
        commands=("run",),
    )
    group.addoption(
        "--connect",
        metavar="WS_URL",
        help="Use the Playwright browser server at WS_URL instead of launching a browser (web: connect:).",
        commands=BROWSING,
    )
    group.addoption(
        "--cdp",
        metavar="URL",
        help="Use the Chromium at this DevTools endpoint instead of launching one (web: cdp:).",
        commands=BROWSING,
    )
    # by name: a project without web: does not import the model (nor the web server's, with asyncio)
    parser.add_section(
        "web",
        "trailblaze.drivers.web.remote:RemoteBrowserConfig",
        "a remote browser: connect/cdp, connect_headers, connect_timeout",
    )
    parser.add_named_url(SAMPLE_APP, "the bundled sample app, served by the web driver (trailblaze sample-app)")
    parser.addini("base_url", "'/path' URLs join this; 'sample-app' serves the bundled app", type=BaseUrl)
    parser.addini("headless", "run the browser without a window (--headed shows it)", type=bool, default=True)
    parser.addini("browser", "a Chromium executable; default: Playwright's, else the system's", type=str | None)


@hookimpl
def trailblaze_configure(config: Config) -> None:
    """A ``base_url`` that cannot work is misuse, found before anything runs."""
    from trailblaze.core.errors import ErrorList, UsageError
    from trailblaze.drivers.web.settings import SAMPLE_APP
    from trailblaze.project.config import base_url_problem, url_problem

    problems: list[TrailblazeError] = []
    problem = base_url_problem(config.getini("base_url"), config.root, config.named_urls)
    if problem is not None:
        problems.append(UsageError(problem, config.location(("base_url",))))
    given = config.getoption("base_url")
    if given and given != SAMPLE_APP and "://" in given:
        problem = url_problem(given)
        if problem is not None:
            problems.append(UsageError(f"--base-url: {problem}"))
    connect, cdp = config.getoption("connect", None), config.getoption("cdp", None)
    if connect and cdp:
        problems.append(UsageError("--connect and --cdp exclude each other"))
    for option, url in (("--connect", connect), ("--cdp", cdp)):
        if not url:
            continue
        from trailblaze.drivers.web.remote import endpoint_problem

        problem = endpoint_problem(option, url)
        if problem is not None:
            problems.append(UsageError(problem))
    if problems:
        raise ErrorList(problems)


@hookimpl
def trailblaze_register_drivers(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.web.driver import PlaywrightDriver

    register(PlaywrightDriver)


@hookimpl
def trailblaze_start_early(driver: str | None) -> None:
    """Playwright's Node.js driver boots (about half a second) while the run is planned; the web
    driver takes it (:mod:`trailblaze.drivers.web.early`)."""
    if driver is not None:
        from trailblaze.drivers.web.driver import PlaywrightDriver

        if driver not in (PlaywrightDriver.key, *PlaywrightDriver.aliases):
            return
    from trailblaze.drivers.web import early

    early.start()


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.web.checks import WEB_CHECKS
    from trailblaze.drivers.web.tools import WEB_TOOLS
    from trailblaze.tools.bundled import TRAILMAPS, register_trailmap

    for fn in (*WEB_TOOLS, *WEB_CHECKS):
        register(fn)
    register_trailmap(register, TRAILMAPS / "web")


@hookimpl
def trailblaze_session_setup(session: Session) -> None:
    """A session for an app target with a ``base_url`` of its own (or its web block's) starts
    from there, unless ``--base-url`` was given."""
    if session.info.platform != "web":
        return
    from trailblaze.drivers.web.device import WebDevice
    from trailblaze.drivers.web.driver import PlaywrightDriver

    driver, device = session.driver, session.device
    if not (isinstance(driver, PlaywrightDriver) and isinstance(device, WebDevice)):
        return
    config = session.run.config
    target = session.run.project.target_config(session.target, session.workspace)
    url = target.web_base_url if target is not None else None
    if url and not config.getoption("base_url"):
        device.base_url = driver.url_for(config.base_url(url))


@hookimpl
def trailblaze_check_run(run: Run) -> list[TrailblazeError]:
    from trailblaze.core.errors import UsageError

    config = run.config
    web = [p for p in run.planned if p.skip_reason is None and _is_web(run, p)]
    problems: list[TrailblazeError] = []
    for planned in web:
        if not base_url_for(run, planned):
            problems.extend(relative_urls(planned.trail))
    if web:
        problems.extend(_header_problems(config))
    if web and config.getoption("headed"):
        from trailblaze.drivers.web.browser import display_problem

        problem = display_problem()
        if problem is not None:
            hint = (
                "record with --headless and drive the browser over --remote-debugging-port, or where a display is"
                if config.command == "record"
                else "run without --headed, or where there is a display"
            )
            problems.append(UsageError(f"a visible browser needs a display (--headed): {problem}; {hint}"))
    return problems


def _header_problems(config: Config) -> list[TrailblazeError]:
    """A remote browser's ``connect_headers`` naming a ``${VAR}`` that is not set: misuse,
    found before the run with its place in trailblaze.yaml (not when the browser connects)."""
    from trailblaze.core.errors import UsageError
    from trailblaze.drivers.web.settings import WebSettings

    settings = WebSettings.from_config(config)
    if not (settings.connect or settings.cdp):
        return []
    from trailblaze.drivers.web.remote import SECTION, expand_headers

    problems: list[TrailblazeError] = []
    for name, value in settings.connect_headers:
        try:
            expand_headers({name: value})
        except UsageError as exc:
            problems.append(UsageError(exc.message, config.location((SECTION, "connect_headers", name))))
    return problems


def _is_web(run: Run, planned: PlannedTrail) -> bool:
    return run.project.drivers.resolve(planned.driver_key).platform == "web"


def base_url_for(run: Run, planned: PlannedTrail) -> str | None:
    """The ``base_url`` a trail's ``/path`` URLs join: ``--base-url``, its target's (its own
    ``base_url`` or its web block's, from trailblaze.yaml or the trail's workspace), the
    default target's, trailblaze.yaml's — what the session will start from."""
    config = run.config
    given: str | None = config.getoption("base_url")
    if given:
        return given
    for name in (planned.target, config.getoption("target", None) or config.project.target):
        target = run.project.target_config(name, planned.workspace)
        if target is not None and target.web_base_url:
            return target.web_base_url
    setting: str | None = config.getini("base_url")
    return setting


def relative_urls(trail: Trail) -> list[TrailblazeError]:
    """``web_navigate`` calls to ``/path`` in a session without a ``base_url``: they could only
    fail, so they are misuse found now rather than a failed step later."""
    from trailblaze.core.errors import UsageError

    problems: list[TrailblazeError] = []
    for step in trail.all_steps:
        for call in step.recording_for(("web",)) or []:
            url = call.args.get("url")
            if call.name == "web_navigate" and isinstance(url, str) and url.startswith("/"):
                problems.append(
                    UsageError(
                        f"web_navigate: {url!r} is relative to base_url, but no base_url is configured "
                        "(base_url: in trailblaze.yaml, or --base-url)",
                        call.arg_location(["url"]),
                    )
                )
    return problems


@hookimpl
def trailblaze_trail_start(trail: Trail, session: Session) -> None:
    """Tell the browser which run of the trail this is, for ``--trace on-first-retry``."""
    from trailblaze.drivers.web.device import WebDevice

    if isinstance(session.device, WebDevice):
        session.device.attempt = session.attempt


@hookimpl
def trailblaze_trail_evidence(
    trail: Trail, result: TrailResult, session: Session, folder: Path
) -> Awaitable[list[Artifact]] | None:
    """Keep the trail's trace when ``--trace on``, when it failed and ``--trace
    retain-on-failure``, or (``on-first-retry``: only the first retry is traced) whatever the
    retry's outcome, as Playwright Test does; else drop it (stopping without a path writes nothing)."""
    if session.info.platform != "web":
        return None
    from trailblaze.drivers.web.device import WebDevice

    device = session.device
    if not isinstance(device, WebDevice) or not device.tracing:
        return None
    failed = result.status in ("failed", "error", "incomplete")
    keep = device.trace in ("on", "on-first-retry") or (device.trace == "retain-on-failure" and failed)
    path = folder / "trace.zip" if keep else None
    return _stop_trace(device, path, session.secrets, result, session.run.options.artifacts_dir)


async def _stop_trace(
    device: WebDevice, path: Path | None, secrets: set[str], result: TrailResult, root: Path | None
) -> list[Artifact]:
    """Stop the trace, writing it to ``path``; a trace that cannot be written whole (a full
    disk) is removed and named in ``result.evidence_errors``."""
    import contextlib

    from trailblaze.api.results import Artifact
    from trailblaze.device import masking
    from trailblaze.runner.evidence import not_saved

    try:
        written = await device.stop_trace(path)
        if not written or path is None:
            return []
        if secrets:  # the trace holds what web_fillSecret typed (the fill call, the DOM, the network)
            masking.redact_zip(path, secrets)
    except Exception as exc:
        if path is None:
            raise
        with contextlib.suppress(OSError):
            path.unlink()  # half a zip (or one with a secret in it) is no evidence
        result.evidence_errors.append(not_saved("trace", path, exc, root))
        return []
    return [Artifact("trace", str(path))]


@hookimpl
def trailblaze_doctor(run: Run) -> Awaitable[list[DoctorCheck]]:
    """Playwright, the browser a headless run launches (started and closed: about half a second)
    and the one ``--headed`` would open; failures when the project has web trails."""
    from trailblaze.drivers.web.doctor import web_checks

    return web_checks(run)


@hookimpl
def trailblaze_register_commands(cli: click.Group) -> None:
    from trailblaze.cli.sampleapp import sample_app

    cli.add_command(sample_app)
