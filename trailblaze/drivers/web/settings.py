"""The web driver's own settings: its options (``--headed``, ``--base-url``,
``--remote-debugging-port``) and its keys of ``trailblaze.yaml`` (``headless``, ``browser``,
``base_url``, and the ``web:`` section), all declared by the ``web_playwright`` plugin and
read from the configuration here, so nothing outside the web driver knows them; and
:data:`SAMPLE_APP`, the name a ``base_url`` may be (``parser.add_named_url``) for the bundled
sample app.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.drivers.web.remote import RemoteBrowserConfig
    from trailblaze.drivers.web.webserver import WebServerConfig
    from trailblaze.project.config import Config

#: ``base_url`` value that makes the web driver serve the bundled sample app itself.
SAMPLE_APP = "sample-app"


@dataclass(frozen=True, slots=True)
class WebSettings:
    """How the browser is launched, and the URL ``/path`` navigation joins by default."""

    #: no window (``headless:`` in trailblaze.yaml, unless ``--headed``)
    headless: bool = True
    #: a Chromium executable (``browser:``); None: Playwright's, else the system's
    browser: str | None = None
    #: ``--base-url`` or ``base_url:`` (``sample-app``, a URL, or a folder's ``file://`` URL)
    base_url: str | None = None
    #: open the browser to CDP clients on this port (0: a free one), ``record --remote-debugging-port``
    remote_debugging_port: int | None = None
    #: a Playwright browser server to connect to instead of launching (``--connect``, ``web: connect:``)
    connect: str | None = None
    #: a Chromium DevTools endpoint to connect to instead of launching (``--cdp``, ``web: cdp:``)
    cdp: str | None = None
    #: headers sent when connecting (``${VAR}`` not yet expanded)
    connect_headers: tuple[tuple[str, str], ...] = ()
    connect_timeout: float = 30.0
    #: ``web: server:``: the app under test, started for the run, in ``server_cwd``
    server: WebServerConfig | None = None
    server_cwd: Path | None = None

    @classmethod
    def from_config(cls, config: Config | None) -> WebSettings:
        if config is None:
            return cls()
        browser = config.getini("browser")
        remote = _remote_section(config)
        connect, cdp = config.getoption("connect", None), config.getoption("cdp", None)
        if not (connect or cdp):
            connect, cdp = remote.connect if remote else None, remote.cdp if remote else None
        return cls(
            connect=connect,
            cdp=cdp,
            connect_headers=tuple(remote.connect_headers.items()) if remote else (),
            connect_timeout=remote.connect_timeout if remote else 30.0,
            headless=not config.getoption("headed") and bool(config.getini("headless")),
            browser=str(config.resolve(browser)) if browser else None,
            base_url=config.base_url(config.getoption("base_url") or config.getini("base_url")),
            remote_debugging_port=config.getoption("remote_debugging_port"),
            server=remote.server if remote else None,
            server_cwd=config.root,
        )


def _remote_section(config: Config) -> RemoteBrowserConfig | None:
    """The ``web:`` section, when the web plugin declared it (a config built without it has
    none) and the file sets it: without one, its defaults are :class:`WebSettings`'s, and its
    model (declared by name) is not imported."""
    if not config.declares("web"):
        return None
    try:
        section: RemoteBrowserConfig = config.section("web")
    except ValueError:
        return None
    return section
