"""facebook-wda, with the run's timeout instead of its 180-second default.

facebook-wda sends every request with ``wda.HTTP_TIMEOUT`` (180 s) unless told otherwise, so an
iPhone that stops answering would hang a run for three minutes per call. :class:`WdaClient`
gives every request the session's timeout instead, without touching the library's module
globals (several devices may run at once with different clients).

"Nothing is listening" surfaces from facebook-wda as ``wda.usbmux.exceptions.HTTPError``, which
is *not* one of its ``WDAError`` classes; :func:`unreachable` recognises it. This module imports
wda at the top: import it lazily.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import wda
from wda.exceptions import WDAError, WDARequestError
from wda.usbmux.exceptions import HTTPError


class WdaClient(wda.Client):
    """A WebDriverAgent client whose requests time out after ``timeout()`` seconds."""

    def __init__(self, url: str, timeout: Callable[[], float] | float) -> None:
        super().__init__(url)
        self.url = url
        self._timeout = timeout if callable(timeout) else (lambda: float(timeout))

    def _fetch(
        self,
        method: str,
        urlpath: str,
        data: dict[str, Any] | None = None,
        with_session: bool = False,
        timeout: float | None = None,
    ) -> Any:
        return super()._fetch(method, urlpath, data, with_session, self._timeout() if timeout is None else timeout)

    def start_session(self) -> str:
        """Open a session without launching anything; return its id."""
        response = self.http.post("session", {"capabilities": {}})
        session_id = response.get("sessionId") or (response.get("value") or {}).get("sessionId")
        if not session_id:
            raise WDAError("WebDriverAgent did not return a session id")
        self.session_id = session_id
        return str(session_id)

    def session_post(self, path: str, data: dict[str, Any] | None = None) -> Any:
        return self._session_http.post(path, data)


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` means nothing answered at the WebDriverAgent URL."""
    return isinstance(exc, HTTPError | ConnectionError)


def client_errors() -> tuple[type[BaseException], ...]:
    return (WDAError, HTTPError, OSError)


def request_error() -> type[Exception]:
    error: type[Exception] = WDARequestError
    return error


def error_message(exc: BaseException) -> str:
    """WebDriverAgent's own message for a refused request, else the exception's text."""
    if isinstance(exc, WDARequestError) and isinstance(exc.value, dict):
        return str(exc.value.get("message") or exc.value.get("error") or exc)
    cause = exc.args[0] if isinstance(exc, HTTPError) and exc.args else exc
    text = " ".join(str(cause).split())
    return f"{type(cause).__name__}: {text}" if text else type(cause).__name__
