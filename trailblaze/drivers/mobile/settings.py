"""What the mobile drivers (Android, iOS) read from the configuration: ``settle_timeout:``
(declared by the ``mobile_tools`` plugin) and the ``device:`` a project names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from trailblaze.core.limits import MAX_WAIT_SECONDS

if TYPE_CHECKING:
    from trailblaze.project.config import Config

SETTLE_TIMEOUT = "settle_timeout"
#: seconds an action waits for two equal hierarchies in a row (0: do not settle)
SettleTimeout = Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False)]
DEFAULT_SETTLE_TIMEOUT = 2.0


def settle_timeout(config: Config | None) -> float:
    """``settle_timeout:`` of the project (the default outside one, or without ``mobile_tools``)."""
    if config is None:
        return DEFAULT_SETTLE_TIMEOUT
    try:
        return float(config.getini(SETTLE_TIMEOUT))
    except ValueError:
        return DEFAULT_SETTLE_TIMEOUT
