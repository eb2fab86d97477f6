"""Moved: the inputs to :mod:`trailblaze.reports.inputs`, the merging to
:mod:`trailblaze.reports.merge`, the document reader to :meth:`trailblaze.RunResult.from_dict`,
and the writing to the reporters (``trailblaze_run_finish``). These names keep working, with a
DeprecationWarning, until the next release."""

import warnings

from trailblaze.api.results import RunResult
from trailblaze.reports.inputs import Shard, load_inputs
from trailblaze.reports.merge import Merged, merge

run_result = RunResult.from_dict

__all__ = ["Merged", "Shard", "load_inputs", "merge", "run_result"]

warnings.warn(
    "trailblaze.mergereports moved to trailblaze.reports.inputs and trailblaze.reports.merge "
    "(RunResult.from_dict reads a results document); import them from there",
    DeprecationWarning,
    stacklevel=2,
)
