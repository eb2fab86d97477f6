"""One device's Appium sessions: one per trail, named after it, deleted when it ends.

A cloud bills for open sessions and runs one session per rented phone, so each trail gets its
own: the first is started when the device opens (a phone the cloud cannot give fails there, and
its trails go to the other devices of the run), renamed after the first trail where the cloud
can rename; every later one is started when its trail starts, with the trail's title as its
name. A trail's session is deleted when the trail ends — passed, failed, interrupted — after
its pass or fail is sent to the cloud (``report_status: true``). What is left open when the
device closes (``trailblaze mcp``, Ctrl-C) is deleted then.

Everything here blocks: it runs on the device's worker thread, except :meth:`Sessions.abandon`,
which deletes the session from any thread (Ctrl-C must not wait behind a request in flight).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trailblaze.api.results import RemoteSession
from trailblaze.core.errors import InfrastructureError
from trailblaze.device import masking

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver as Remote

    from trailblaze.drivers.appium.clouds import Cloud
    from trailblaze.drivers.appium.settings import CapabilitySet, Hub


@dataclass(frozen=True, slots=True)
class Timeouts:
    request: float
    start: float


class Sessions:
    """The sessions of one capability set at one hub."""

    def __init__(
        self, hub: Hub, device: CapabilitySet, cloud: Cloud, timeouts: Timeouts, *, report_status: bool
    ) -> None:
        self.hub = hub
        self.device = device
        self.cloud = cloud
        self.timeouts = timeouts
        self.report_status = report_status
        self.secrets = frozenset(hub.secrets | device.secrets)
        self.driver: Remote | None = None
        self.current: RemoteSession | None = None
        #: whether ``current`` was started before a trail named it
        self._unnamed = False
        #: the session each trail ran in, last one first out (what the results name)
        self.ended: RemoteSession | None = None
        self._lock = threading.Lock()

    # -- starting ------------------------------------------------------------------------------------

    def start(self, name: str | None) -> Remote:
        """A new session (named ``name``, where the cloud reads names from the capabilities)."""
        from trailblaze.drivers.appium import client

        caps = self.cloud.named(self.device.capabilities, name) if name else dict(self.device.capabilities)
        try:
            driver = client.start_session(
                self.hub, caps, start_timeout=self.timeouts.start, request_timeout=self.timeouts.request
            )
        except client.client_errors() as exc:
            raise InfrastructureError(self.redact(self.start_failure(exc))) from None
        session_id = str(driver.session_id)
        with self._lock:
            self.driver = driver
            self.current = RemoteSession(
                session_id, self.cloud.name, self.hub.url, self.cloud.dashboard(session_id, self.hub.url), name
            )
            self._unnamed = name is None
        return driver

    def start_failure(self, exc: BaseException) -> str:
        from trailblaze.drivers.appium import client

        where = f"the Appium server at {self.hub.url}"
        reason = client.unreachable(exc)
        if reason is not None:
            return f"{where} does not answer ({reason}): is it running, and is the URL right?"
        said = client.message(exc)
        if "authoriz" in said.lower() or "401" in said or "unauthori" in said.lower():
            return f'{where} refused the credentials for {self.device.id}: "{said}"'
        return f'{where} refused a session for {self.device.id}: "{said}"'

    def name(self, title: str) -> None:
        """Give the session started before its trail was known the trail's title, where the cloud
        can rename a running session."""
        from trailblaze.drivers.appium import client

        driver, session = self.driver, self.current
        if driver is None or session is None or not self._unnamed:
            return
        self._unnamed = False
        script = self.cloud.rename_script(title)
        if script is not None:
            try:
                driver.execute_script(script)
            except client.client_errors():  # the name is a courtesy: the trail runs on without it
                return
        self.current = RemoteSession(session.id, session.service, session.hub, session.url, title)

    # -- ending --------------------------------------------------------------------------------------

    def end(self, passed: bool | None, reason: str | None) -> None:
        """Tell the cloud how the trail went (``report_status``; None: nothing to tell), then
        delete the session."""
        from trailblaze.drivers.appium import client

        driver, session = self._take()
        if driver is None:
            return
        try:
            script = self.cloud.status_script(passed, self.redact(reason or "")) if passed is not None else None
            if script is not None and self.report_status:
                driver.execute_script(script)
        except client.client_errors():  # the verdict is in the results; the session must still go
            pass
        finally:
            self.ended = session
            self._quit(driver)

    def abandon(self) -> None:
        """Delete the session now, from any thread (the device closes)."""
        driver, session = self._take()
        if driver is not None:
            self.ended = session
            self._quit(driver)

    def lost(self) -> None:
        """The server said the session is gone: forget it (nothing to delete)."""
        driver, session = self._take()
        if driver is not None:
            self.ended = session
            driver.command_executor.close()

    def _take(self) -> tuple[Remote | None, RemoteSession | None]:
        with self._lock:
            driver, session = self.driver, self.current
            self.driver, self.current = None, None
            return driver, session

    def _quit(self, driver: Remote) -> None:
        from trailblaze.drivers.appium import client

        try:
            client.quit_session(driver)
        except client.client_errors():  # gone already, or the hub is: the cloud's timeout ends it
            pass

    def redact(self, text: str) -> str:
        return masking.redact(text, self.secrets)
