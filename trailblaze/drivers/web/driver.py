"""``playwright-native``: the web driver, on Playwright's async API.

One browser per run (launching costs ~0.3–1 s), a fresh browser context per trail (so cookies,
storage and history never leak between trails). The browser is Playwright's own when it is
installed, else a system Chromium, else a clear error saying how to get one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from trailblaze.api.driver import Driver, DriverOptions
from trailblaze.core.errors import UsageError
from trailblaze.device.commands import DeviceInfo
from trailblaze.drivers.web import early
from trailblaze.drivers.web.browser import VIEWPORT, launch, node_compile_cache, quiet_driver_exit, system_chromium
from trailblaze.drivers.web.device import DRIVER_KEY, WebDevice
from trailblaze.drivers.web.settings import SAMPLE_APP, WebSettings

if TYPE_CHECKING:
    from playwright.async_api import Browser, Playwright

    from trailblaze.drivers.web.sample_server import SampleAppServer
    from trailblaze.drivers.web.webserver import WebServer


class PlaywrightDriver(Driver):
    key: ClassVar[str] = DRIVER_KEY
    aliases: ClassVar[tuple[str, ...]] = ("web", "PLAYWRIGHT_NATIVE", "playwright")
    platform: ClassVar[str] = "web"
    description: ClassVar[str] = "Web pages in Chromium through Playwright"
    sessions_per_device: ClassVar[int] = 64
    fallback: ClassVar[bool] = True  # a trail that names no driver is a web trail

    _playwright: Playwright | None = None
    _browser: Browser | None = None
    _server: SampleAppServer | None = None
    _web_server: WebServer | None = None
    base_url: str | None = None

    def __init__(self, options: DriverOptions, settings: WebSettings | None = None) -> None:
        super().__init__(options)
        self.settings = settings if settings is not None else WebSettings.from_config(options.config)
        config = options.config
        # traces are evidence of `run` (`record` and `mcp` sessions keep a context open for long)
        self.trace: str = config.getoption("trace", "off") if config is not None and config.command == "run" else "off"

    def url_for(self, base_url: str | None) -> str | None:
        """``base_url`` as the browser opens it: ``sample-app`` is the bundled app, served on a
        free port from the first time it is asked for."""
        if base_url != SAMPLE_APP:
            return base_url
        if self._server is None:
            from trailblaze.drivers.web.sample_server import SampleAppServer

            self._server = SampleAppServer().start()
        return self._server.url

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        async def start_playwright() -> None:
            started = await early.take()  # the driver `trailblaze run` started while it started up
            if started is not None:
                manager, self._playwright = started
            else:
                manager = async_playwright()
                with node_compile_cache():
                    self._playwright = await manager.start()
            quiet_driver_exit(manager)

        # the app under test and Playwright's driver start side by side; when the app fails, the
        # driver is still taken (and stopped by close()), never left to die with the process
        playwright = asyncio.ensure_future(start_playwright())
        try:
            await self._start_web_server()
        finally:
            await playwright
        assert self._playwright is not None
        chromium = self._playwright.chromium
        self.base_url = self.url_for(self.settings.base_url)
        settings = self.settings
        if settings.connect or settings.cdp:  # someone else's browser: connect, do not launch
            from trailblaze.drivers.web.remote import connect, expand_headers

            headers = expand_headers(dict(settings.connect_headers))
            self._browser = await connect(
                chromium,
                ws=settings.connect,
                cdp=settings.cdp,
                headers=headers,
                timeout=settings.connect_timeout,
            )
            return
        self._browser = await launch(chromium, settings.browser, headless=settings.headless, args=self._cdp_args())

    async def _start_web_server(self) -> None:
        """``web: server:``: the app under test, up before the browser opens (once a run: a
        failure is remembered, so every session of the run gets the same answer at once)."""
        if self.settings.server is None:
            return
        if self._web_server is None:
            from trailblaze.drivers.web.webserver import WebServer

            cwd = self.settings.server_cwd or Path.cwd()
            self._web_server = WebServer(self.settings.server, cwd, self.options.artifacts_dir)
        await self._web_server.start()

    def _cdp_args(self) -> list[str]:
        """``--remote-debugging-port``: other tools (a test scripting a demonstration for the
        browser agent, DevTools) may connect over CDP; only on 127.0.0.1."""
        port = self.settings.remote_debugging_port
        if port is None:
            return []
        if port == 0:
            import socket
            import sys

            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            print(f"note: the browser accepts CDP connections at http://127.0.0.1:{port}", file=sys.stderr)
        return [f"--remote-debugging-port={port}", "--remote-debugging-address=127.0.0.1"]

    async def devices(self) -> list[DeviceInfo]:
        path = self.settings.browser or (system_chromium(headless=self.settings.headless) or "")
        return [
            DeviceInfo(
                id="chromium",
                platform="web",
                driver=self.key,
                width=VIEWPORT["width"],
                height=VIEWPORT["height"],
                model=path or "Playwright Chromium",
                classifiers=("web",),
            )
        ]

    async def open(self, device_id: str | None) -> WebDevice:
        if device_id not in (None, "chromium", "web"):
            raise UsageError(f"unknown web device {device_id!r}: the web driver has one device, 'chromium'")
        if self._browser is None:
            await self.start()
        assert self._browser is not None
        return WebDevice(self._browser, self.base_url, self.options.timeout, trace=self.trace)

    async def close(self) -> None:
        try:
            if self._browser is not None:
                await self._browser.close()
            if self._playwright is not None:
                await self._playwright.stop()
        finally:
            self._browser = None
            self._playwright = None
            if self._server is not None:
                self._server.stop()
                self._server = None
            if self._web_server is not None:
                await self._web_server.stop()
