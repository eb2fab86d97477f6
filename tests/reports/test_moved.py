"""The reports' old module paths keep working for one release, each with a DeprecationWarning
that names the new one."""

from __future__ import annotations

import importlib
import sys

import pytest

from trailblaze.api.results import RunResult
from trailblaze.reports import html, inputs, merge, resultsdoc, server


@pytest.mark.parametrize(
    ("old", "new"),
    [("trailblaze.htmlreport", html), ("trailblaze.reportserver", server), ("trailblaze.resultsdoc", resultsdoc)],
)
def test_an_old_path_is_the_new_module_with_a_warning(old: str, new: object) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=rf"{old} has moved to {new.__name__}"):  # type: ignore[attr-defined]
        module = importlib.import_module(old)
    assert module is new
    sys.modules.pop(old, None)


def test_mergereports_names_what_it_had() -> None:
    sys.modules.pop("trailblaze.mergereports", None)
    with pytest.warns(DeprecationWarning, match="trailblaze.mergereports moved to trailblaze.reports.inputs"):
        module = importlib.import_module("trailblaze.mergereports")
    assert (module.load_inputs, module.merge, module.run_result) == (
        inputs.load_inputs,
        merge.merge,
        RunResult.from_dict,
    )
    sys.modules.pop("trailblaze.mergereports", None)
