"""The runner's options, read from the command line's values (``config.getoption``).

The options themselves are declared by plugins — the runner's own by ``main``, ``--retries`` by
``retries``, ``-k`` and the tags by ``selection`` — and read here by name, as any option is
(``config.getoption``), into the :class:`~trailblaze.api.session.RunOptions` the library takes, so
the CLI only parses. An option whose plugin is blocked (``-p no:retries``) has its default.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.api.session import RunOptions
from trailblaze.runner.selection import split_tags

if TYPE_CHECKING:
    from trailblaze.project.config import Config


def new_artifacts_dir(root: Path) -> Path:
    """A folder of its own for one run's artifacts, under ``.trailblaze/artifacts`` next to
    trailblaze.yaml: ``2026-11-23T07-15-30-3f9c1a`` (time first, so the newest sorts last), so
    two runs of one project never write over each other's snapshots."""
    import datetime as dt

    stamp = dt.datetime.now().strftime("%Y-%m-%dT%H-%M-%S")
    return root / ".trailblaze" / "artifacts" / f"{stamp}-{uuid.uuid4().hex[:6]}"


def run_options(config: Config, paths: Sequence[Path] = (), *, artifacts: bool = True) -> RunOptions:
    """What ``run`` (``record``, ``validate``) was asked, from ``config``'s options. Trail
    arguments are trailblaze.yaml's ``args:`` overridden by ``--arg``; ``artifacts``: a folder
    of its own for the run's artifacts unless ``--artifacts-dir`` names one."""
    option = config.getoption
    given = dict(option("arg", ()))
    devices = list(option("devices", ())) or ([option("device")] if option("device", None) else [])
    artifacts_dir = option("artifacts_dir", None) or (new_artifacts_dir(config.root) if artifacts else None)
    return RunOptions(
        paths=[Path(p) for p in paths],
        driver=option("driver", None),
        target=option("target", None),
        devices=devices,
        all_devices=option("all_devices", False),
        workers=option("workers", 1),
        shard_split=option("shard_split", None),
        shard_all=option("shard_all", None),
        arg_values={**{k: str(v) for k, v in config.project.args.items()}, **given},
        given_args=list(given),
        timeout=option("timeout", None),
        fail_fast=option("fail_fast", False),
        artifacts_dir=artifacts_dir,
        self_heal=option("self_heal", False),
        agent=option("agent", None),
        save_recording=option("save_recording", False),
        retries=_retries(config),
        fail_on_flaky=option("fail_on_flaky", False),
        keyword=option("keyword", None),
        include_tags=split_tags(option("include_tags", ())),
        exclude_tags=split_tags(option("exclude_tags", ())),
        last_failed=option("last_failed", False),
    )


def _retries(config: Config) -> int:
    """``--retries``, else ``retries:`` in trailblaze.yaml (when a plugin declares it), else 0."""
    given = config.getoption("retries", None)
    if given is not None:
        return int(given)
    declared = config.parser is not None and "retries" in config.parser.settings
    return int(config.getini("retries")) if declared else 0
