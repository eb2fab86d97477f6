"""What ``trailblaze doctor`` says of a phone driver: whether its client library (the driver's
extra of ``trailblaze``) is installed, and which devices it reaches now — what ``trailblaze
devices`` lists for it, within :data:`DEVICES_TIMEOUT_S`.

Both are failures when the project has trails for the driver, and warnings otherwise: a
machine that runs only web trails needs no adb, and says so without failing. Written for any
:class:`~trailblaze.api.driver.Driver`, so the Android and iOS plugins say it the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from trailblaze.api.doctor import DoctorCheck
from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import TrailblazeError

if TYPE_CHECKING:
    from trailblaze.api.session import Run

#: how long a driver may take to list its devices (adb's server, each WebDriverAgent's status)
DEVICES_TIMEOUT_S = 10.0


def needs_driver(run: Run, key: str) -> bool:
    """Whether some trail of the project runs on the driver ``key``."""
    return any(p.driver_key == key and p.skip_reason is None for p in run.planned)


async def driver_checks(driver: type[Driver], run: Run) -> list[DoctorCheck]:
    """The driver's package (its extra) and its devices, as two checks named after its key."""
    needed = needs_driver(run, driver.key)
    devices = f"{driver.key} devices"
    module = driver.missing_module()
    if module is not None:
        detail = f"the {module} package is not installed: the driver cannot run here"
        return [
            DoctorCheck.missing(driver.key, detail, driver.install_command(module), needed=needed),
            DoctorCheck(devices, "skip", f"not looked for: the driver needs {module}"),
        ]
    installed = DoctorCheck(driver.key, "ok", installed_versions(driver.requires))
    config = run.config
    instance = driver(DriverOptions(timeout=config.project.timeout, config=config))
    try:
        found = await asyncio.wait_for(instance.devices(), DEVICES_TIMEOUT_S)
    except TimeoutError:
        detail = f"listing devices did not finish within {DEVICES_TIMEOUT_S:.0f} s"
        return [installed, DoctorCheck.missing(devices, detail, driver.no_devices, needed=needed)]
    except TrailblazeError as exc:  # its message says what to do (start adb's server, …)
        return [installed, DoctorCheck.missing(devices, str(exc), None, needed=needed)]
    available = [d for d in found if d.state == "available"]
    shown = ", ".join(
        f"{d.id} ({d.model or d.platform}{'' if d.state == 'available' else ', ' + d.state})" for d in found
    )
    if not found:
        return [installed, DoctorCheck.missing(devices, "none found", driver.no_devices, needed=needed)]
    if not available:
        return [installed, DoctorCheck.missing(devices, f"none available: {shown}", driver.no_devices, needed=needed)]
    return [installed, DoctorCheck(devices, "ok", f"{len(available)} available: {shown}")]


def installed_versions(modules: Sequence[str]) -> str:
    """``uiautomator2 3.7.1, adbutils 2.8.0``: each module with the version of the distribution
    that installed it (just the module's name when that is not known)."""
    from importlib import metadata

    owners = metadata.packages_distributions()
    shown = []
    for module in modules:
        names = owners.get(module, [])
        try:
            version = metadata.version(names[0]) if names else None
        except metadata.PackageNotFoundError:
            version = None
        label = module if not names or names[0] == module else f"{module} ({names[0]})"
        shown.append(f"{label} {version}" if version else label)
    return ", ".join(shown)
