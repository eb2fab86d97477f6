"""Appium-Python-Client for one session, and what its failures mean.

A session is asked for with the capability set's W3C capabilities (``AppiumOptions`` prefixes
the ones without a vendor with ``appium:``) within ``session_start_timeout`` (a cloud may queue
it until a device is free); every later request gets ``request_timeout``. Credentials in the hub's
URL go into the client's configuration instead (selenium warns about them in the URL on every
request), and a connection that fails is tried once more, not urllib3's three times.

Selenium's and Appium's loggers print every request's body (the capabilities, credentials
included) at DEBUG: :func:`mask_client_logs` masks the secrets of every session in them.

This module imports Appium-Python-Client and selenium at the top: import it lazily.
"""

from __future__ import annotations

import logging
from typing import Any

import urllib3
from appium.options.common.base import AppiumOptions
from appium.webdriver.client_config import AppiumClientConfig
from appium.webdriver.webdriver import WebDriver as Remote
from selenium.common.exceptions import (
    InvalidSessionIdException,
    NoSuchDriverException,
    NoSuchElementException,
    UnknownMethodException,
    WebDriverException,
)
from selenium.webdriver.remote.command import Command

from trailblaze.device import masking
from trailblaze.drivers.appium.settings import Hub

#: the loggers that print requests and responses
_CLIENT_LOGGERS = ("selenium.webdriver.remote.remote_connection", "appium.common.logger")
#: what a server answers for a command or ``mobile:`` method its driver does not have
#: what selenium adds to some errors' messages (a link to its documentation)
_SELENIUMS_NOTE = "For documentation on this error"
_UNSUPPORTED = ("unknown method", "unknown command", "not implemented", "not supported", "unsupported")


def start_session(hub: Hub, capabilities: dict[str, Any], *, start_timeout: float, request_timeout: float) -> Remote:
    """A new session at ``hub`` with ``capabilities``; its later requests time out after ``request_timeout``."""
    options = AppiumOptions()
    options.load_capabilities(capabilities)
    config = AppiumClientConfig(
        hub.url,
        username=hub.username,
        password=hub.password,
        timeout=start_timeout,
        keep_alive=True,
        init_args_for_pool_manager={
            "init_args_for_pool_manager": {"retries": urllib3.Retry(connect=1, read=0, redirect=3, status=0, other=0)}
        },
    )
    driver = Remote(hub.url, options=options, client_config=config)
    config.timeout = request_timeout
    return driver


def quit_session(driver: Remote) -> None:
    """Delete the session at the server and close the connections (failures are the server's)."""
    try:
        driver.execute(Command.QUIT)
    finally:
        driver.command_executor.close()


def perform(driver: Remote, sources: list[dict[str, Any]]) -> None:
    """W3C actions (``POST /session/:id/actions``), exactly as given."""
    driver.execute(Command.W3C_ACTIONS, {"actions": sources})


def mobile(driver: Remote, method: str, **arguments: Any) -> Any:
    """A ``mobile:`` extension method of the session's Appium driver."""
    return driver.execute_script(f"mobile: {method}", arguments)


def client_errors() -> tuple[type[BaseException], ...]:
    """What the client raises when the server or the connection fails."""
    return (WebDriverException, urllib3.exceptions.HTTPError, OSError)


def unsupported(exc: BaseException) -> bool:
    """Whether the server said its driver has no such command or ``mobile:`` method."""
    if isinstance(exc, UnknownMethodException):
        return True
    return isinstance(exc, WebDriverException) and any(word in message(exc).lower() for word in _UNSUPPORTED)


def no_element(exc: BaseException) -> bool:
    return isinstance(exc, NoSuchElementException)


def session_gone(exc: BaseException) -> bool:
    """Whether the session no longer exists at the server (a cloud's timeout, a quota, a crash)."""
    return isinstance(exc, InvalidSessionIdException | NoSuchDriverException)


def unreachable(exc: BaseException) -> str | None:
    """Why nothing answered at the hub (``connection refused``, ``no answer within 60 s``), if so."""
    if isinstance(exc, urllib3.exceptions.MaxRetryError):
        exc = exc.reason or exc
    if isinstance(exc, urllib3.exceptions.NameResolutionError):
        return "its host name does not resolve"
    # before timeouts: urllib3's NewConnectionError is a ConnectTimeoutError too
    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionError | urllib3.exceptions.ProtocolError):
        text = " ".join(str(exc).split())
        return "connection refused" if "refused" in text.lower() else text.rsplit(": ", 1)[-1] or type(exc).__name__
    if isinstance(exc, urllib3.exceptions.TimeoutError | TimeoutError):
        return "it did not answer in time"
    if isinstance(exc, urllib3.exceptions.HTTPError | OSError):
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return None


def message(exc: BaseException) -> str:
    """The server's message for a failed command (its first lines, without selenium's stack
    trace), else the exception's text."""
    text = (exc.msg if isinstance(exc, WebDriverException) else str(exc)) or type(exc).__name__
    text = str(text).split(_SELENIUMS_NOTE, 1)[0].rstrip("; ")
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return " ".join(lines[:3])[:1000]


class _Masking(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = masking.redact_known(record.getMessage())
        record.args = None
        return True


_MASKING = _Masking()


def mask_client_logs() -> None:
    """Mask the secrets every session has used in what selenium and Appium log (once per process)."""
    for name in _CLIENT_LOGGERS:
        logger = logging.getLogger(name)
        if _MASKING not in logger.filters:
            logger.addFilter(_MASKING)
