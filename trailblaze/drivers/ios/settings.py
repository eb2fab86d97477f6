"""The ``ios:`` section of trailblaze.yaml (declared by the ``ios_wda`` plugin): the
WebDriverAgents of a device farm, each one a device::

    ios:
      devices:
        - http://mac-mini-1.internal:8100
        - http://mac-mini-1.internal:8101
        - http+usbmux://00008110-001A2B3C4D5E6F70:8100

``trailblaze devices`` lists them, ``--all-devices`` and the shard options use them, and a run
without ``--device`` uses the first. This module needs pydantic only, so validating a project's
file does not import facebook-wda.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

SECTION = "ios"
URL_SCHEMES = ("http://", "https://", "http+usbmux://")


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a WebDriverAgent endpoint, if it cannot."""
    if url.startswith(URL_SCHEMES):
        return None
    return f"{url!r} is not a WebDriverAgent URL (like http://127.0.0.1:8100 or http+usbmux://UDID:8100)"


def _checked(url: str) -> str:
    problem = url_problem(url)
    if problem is not None:
        raise ValueError(problem)
    return url.rstrip("/")


#: a WebDriverAgent URL, without a trailing slash
WdaUrl = Annotated[str, AfterValidator(_checked)]


class IosConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    devices: list[WdaUrl] = Field(default_factory=list, description="WebDriverAgent URLs, each one a device")
