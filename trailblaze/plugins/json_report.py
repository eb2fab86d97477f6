"""Built-in plugin: ``--json FILE`` writes the results document (README, "Results JSON")."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from trailblaze import hookimpl
from trailblaze.fileio import write_atomic

if TYPE_CHECKING:
    from trailblaze.runner.results import RunResult
    from trailblaze.runner.session import Run


@hookimpl
def trailblaze_run_finish(run: Run, result: RunResult) -> None:
    path = run.options.json_path
    if path is None:
        return
    try:
        write_atomic(path, json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        result.report_failed("--json", path, exc)
