"""Moved to :mod:`trailblaze.reports.resultsdoc`; this name keeps working, with a DeprecationWarning,
until the next release."""

import sys
import warnings

from trailblaze.reports import resultsdoc

warnings.warn(
    "trailblaze.resultsdoc moved to trailblaze.reports.resultsdoc; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = resultsdoc
