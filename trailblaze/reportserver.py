"""Moved to :mod:`trailblaze.reports.server`; this name keeps working, with a DeprecationWarning,
until the next release."""

import sys
import warnings

from trailblaze.reports import server

warnings.warn(
    "trailblaze.reportserver moved to trailblaze.reports.server; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = server
