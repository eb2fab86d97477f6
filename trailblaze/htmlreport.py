"""Moved to :mod:`trailblaze.reports.html`; this name keeps working, with a DeprecationWarning,
until the next release."""

import sys
import warnings

from trailblaze.reports import html

warnings.warn(
    "trailblaze.htmlreport moved to trailblaze.reports.html; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = html
