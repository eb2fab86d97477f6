"""Built-in plugin: the ``appium`` driver (phones in device clouds, Selenium Grid or on a local
Appium server) and its ``appium:`` section of trailblaze.yaml; ``trailblaze doctor`` hears from
it whether its extra is installed and what the hub says of each device.

The driver is registered once the project is configured, for the platform the section's
capabilities ask for (the trails' tools and skips follow from it). Each trail's Appium session
is named in its result (``remote_session``: its id, the service and its dashboard page), and
the secrets of the capabilities join the session's, masked wherever the session's screens and
messages are shown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.doctor import DoctorCheck
    from trailblaze.api.results import Artifact, StepResult, TrailResult
    from trailblaze.api.session import Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Step, Trail

PLUGIN_NAME = "appium-driver"


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    parser.add_section(
        "appium",
        "trailblaze.drivers.appium.settings:AppiumConfig",
        "Appium: url (a device cloud's hub, a Selenium Grid, a local server), capabilities, devices",
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    config.pluginmanager.register(AppiumDriverPlugin(config), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    plugin = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if plugin is not None:
        config.pluginmanager.unregister(plugin)


class AppiumDriverPlugin:
    """What the driver needs of the configured project: its class for the section's platform,
    and its sessions' names, outcomes and secrets."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @hookimpl
    def trailblaze_register_drivers(self, register: Callable[[Any], Any]) -> None:
        from trailblaze.drivers.appium.driver import AppiumDriver

        section = getattr(self.config.project, "appium", None)
        if section is None:
            register(AppiumDriver)
            return
        from trailblaze.drivers.appium.settings import planned_platform

        register(AppiumDriver.for_platform(planned_platform(section)))

    @hookimpl
    def trailblaze_session_setup(self, session: Session) -> None:
        device = _appium(session)
        if device is not None:
            from trailblaze.device import masking

            masking.keep(session.secrets, *device.secrets)

    @hookimpl
    def trailblaze_step_finish(self, step: Step, result: StepResult, session: Session) -> None:
        device = _appium(session)
        if device is not None:
            device.note_step(result.status, result.error)

    @hookimpl
    def trailblaze_step_evidence(
        self, step: Step, result: StepResult, session: Session, folder: Path
    ) -> Awaitable[list[Artifact]] | None:
        """A failed step's page source as the Appium server sent it (``step-N.source.xml``,
        secrets masked), beside the screenshot and hierarchy the evidence plugin saves."""
        device = _appium(session)
        if device is None or result.status not in ("failed", "error") or device.sessions.driver is None:
            return None
        from trailblaze.runner.evidence import step_stem

        return _save_source(device, session, folder / f"{step_stem(step)}.source.xml")

    @hookimpl
    def trailblaze_trail_finish(self, trail: Trail, result: TrailResult, session: Session | None) -> None:
        device = _appium(session) if session is not None else None
        if device is not None and device.remote_session is not None:
            result.remote_session = device.remote_session

    @hookimpl
    def trailblaze_doctor(self, run: Run) -> Awaitable[list[DoctorCheck]]:
        """The driver's packages (its extra) and what the hub says of each device; failures when
        the project has trails for it."""
        from trailblaze.drivers.mobile.doctor import driver_checks

        driver = run.project.drivers.resolve("appium")
        return driver_checks(driver, run)


async def _save_source(device: Any, session: Session, path: Path) -> list[Artifact]:
    from trailblaze.api.results import Artifact
    from trailblaze.core.fileio import write_whole
    from trailblaze.device import masking

    source = masking.redact(await device.call(device.dump), session.secrets)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, source.encode("utf-8"))
    return [Artifact("hierarchy", str(path))]


def _appium(session: Session) -> Any:
    """The session's device when the appium driver opened it (without importing the driver otherwise)."""
    if session.driver.key != "appium":
        return None
    from trailblaze.drivers.appium.device import AppiumDevice

    device = session.device
    return device if isinstance(device, AppiumDevice) else None
