"""A browser somewhere else: a Playwright browser server (``connect: ws://…``: ``playwright
launch-server``/``run-server``, the Playwright Docker image, Moon, a cloud's Playwright endpoint)
or a Chromium speaking the DevTools protocol (``cdp: http://…``: Browserless, Selenium Grid 4,
a Chromium started with ``--remote-debugging-port``).

Set in the ``web:`` section of trailblaze.yaml or with ``--connect``/``--cdp``. The run
connects once; every session (``--workers N``: N of them) opens browser contexts of its own
there, and closing only disconnects — the remote browser is someone else's. Header values may
use ``${VAR}`` so tokens stay out of the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from trailblaze.core.errors import InfrastructureError, UsageError
from trailblaze.core.limits import MAX_WAIT_SECONDS
from trailblaze.drivers.web.webserver import WebServerConfig

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserType

SECTION = "web"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class RemoteBrowserConfig(BaseModel):
    """The ``web:`` section of trailblaze.yaml: where the browser is, when it is not launched
    here, and the app server to start for the run (``server:``)."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, loc_by_alias=False
    )

    connect: str | None = Field(default=None, description="a Playwright browser server's ws:// URL")
    cdp: str | None = Field(default=None, description="a Chromium DevTools endpoint (http:// or ws://)")
    connect_headers: dict[str, str] = Field(default_factory=dict, description="sent when connecting; ${VAR} allowed")
    connect_timeout: float = Field(
        default=30.0, gt=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False, description="seconds to wait for the endpoint"
    )
    server: WebServerConfig | None = Field(
        default=None, description="the app under test, started before the run and stopped after it"
    )

    @model_validator(mode="after")
    def _one_endpoint(self) -> RemoteBrowserConfig:
        if self.connect and self.cdp:
            raise ValueError("give connect or cdp, not both")
        for name, url, schemes in (("connect", self.connect, ("ws://", "wss://")), ("cdp", self.cdp, _CDP)):
            if url is not None and not url.startswith(schemes):
                raise ValueError(f"{name}: {url!r} should start with {' or '.join(schemes)}")
        return self


_CDP = ("http://", "https://", "ws://", "wss://")


def endpoint_problem(option: str, url: str) -> str | None:
    """Why ``--connect``/``--cdp`` ``url`` cannot be an endpoint, if it cannot."""
    schemes = ("ws://", "wss://") if option == "--connect" else _CDP
    if not url.startswith(schemes):
        return f"{option}: {url!r} should start with {' or '.join(schemes)}"
    return None


def expand_headers(headers: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``${VAR}`` in header values from the environment; an unset one is misuse, named."""
    env = os.environ if environ is None else environ

    def value(name: str, text: str) -> str:
        def sub(match: re.Match[str]) -> str:
            if match.group(1) not in env:
                raise UsageError(f"web: connect_headers.{name}: ${{{match.group(1)}}} is not set in the environment")
            return env[match.group(1)]

        return _VAR.sub(sub, text)

    return {name: value(name, text) for name, text in headers.items()}


async def connect(
    chromium: BrowserType, *, ws: str | None, cdp: str | None, headers: Mapping[str, str], timeout: float
) -> Browser:
    """The remote browser at ``ws`` (Playwright's protocol) or ``cdp``; exit 2 naming the
    endpoint when it does not answer in ``timeout`` seconds."""
    from playwright.async_api import Error

    url = ws or cdp or ""
    kwargs: dict[str, Any] = {"headers": dict(headers) or None, "timeout": timeout * 1000}
    try:
        if ws is not None:
            return await chromium.connect(ws, **kwargs)
        return await chromium.connect_over_cdp(url, **kwargs)
    except Error as exc:
        kind = "browser server" if ws is not None else "CDP endpoint"
        raise InfrastructureError(f"cannot connect to the {kind} at {url}: {first_line(exc)}") from None


def first_line(exc: BaseException) -> str:
    """Playwright's reason without its call log: ``connect ECONNREFUSED 127.0.0.1:9``."""
    text = getattr(exc, "message", None) or str(exc)
    text = text.split("Call log:", 1)[0].strip()
    line = next((part.strip() for part in text.splitlines() if part.strip()), "no answer")
    return re.sub(r"^BrowserType\.connect(_over_cdp)?: ", "", line)
