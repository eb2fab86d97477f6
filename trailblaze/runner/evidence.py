"""Evidence of what a trail saw: where it goes, how the runner asks plugins for it, and what
the screen showed nearest to what a failed step looked for.

The files themselves are written by plugins (``trailblaze_step_evidence``,
``trailblaze_trail_evidence``): the built-in ``evidence`` plugin saves a failed step's
screenshot, hierarchy and console messages; the web driver's plugin keeps a Playwright trace.
Each run has a folder of its own (``--artifacts-dir``, else under ``.trailblaze/artifacts``);
each trail a folder in it named after its id, and a sub-folder per device when the run uses
several. Results name the files relative to the run's folder.

Saving evidence never changes a trail's outcome: a screenshot that cannot be taken (the
browser is gone, the phone stopped answering) or written (a full disk) is left out, within
:data:`CAPTURE_TIMEOUT`, and the result says so (``evidence_errors`` of the step or trail: the
terminal, the JSON and the HTML report show them). A file that could not be written whole is
removed, so no empty ``step-N.png`` passes for evidence.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.api.results import Artifact, StepResult, TrailResult
from trailblaze.core.pathnames import path_component

if TYPE_CHECKING:
    from trailblaze.api.session import Session
    from trailblaze.trail.model import Step, Trail

#: seconds one plugin may take to save its evidence of a step or trail
CAPTURE_TIMEOUT = 15.0
#: a run's folder as :func:`trailblaze.runner.options.new_artifacts_dir` names it
_RUN_FOLDER = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[0-9a-f]{6}$")


def trail_folder(session: Session, trail: Trail, attempt: int = 0) -> Path | None:
    """Where the evidence of ``trail`` on ``session`` goes, or None when the run keeps none. A
    ``--retries`` retry has a folder of its own, ``<trail>-retry1`` and so on (as Playwright Test
    names them), so an earlier attempt's evidence is kept."""
    options = session.run.options
    root = options.artifacts_dir
    if root is None:
        return None
    folder = root.absolute() / (path_component(trail.id) + (f"-retry{attempt}" if attempt else ""))
    several = len(options.devices) > 1 or options.all_devices or options.shard_all or options.shard_split
    return folder / path_component(session.info.id) if several else folder


def step_stem(step: Step) -> str:
    """``step-3`` as the terminal and the reports number steps (index + 1); ``trailhead``."""
    return "trailhead" if step.kind == "trailhead" else f"step-{step.index + 1}"


async def of_step(session: Session, trail: Trail, step: Step, result: StepResult, attempt: int = 0) -> None:
    """Let plugins save evidence of ``step`` (``trailblaze_step_evidence``) into ``result``."""
    folder = trail_folder(session, trail, attempt)
    if folder is None:
        return
    hook = session.run.project.hook
    pending = hook.trailblaze_step_evidence(step=step, result=result, session=session, folder=folder)
    await _collect(pending, session.run.options.artifacts_dir, result.artifacts, result.evidence_errors)


async def of_trail(session: Session, trail: Trail, result: TrailResult, attempt: int = 0) -> None:
    """Let plugins save evidence of the whole trail (``trailblaze_trail_evidence``) into ``result``."""
    folder = trail_folder(session, trail, attempt)
    if folder is None:
        return
    hook = session.run.project.hook
    pending = hook.trailblaze_trail_evidence(trail=trail, result=result, session=session, folder=folder)
    await _collect(pending, session.run.options.artifacts_dir, result.artifacts, result.evidence_errors)


async def _collect(
    pending: Iterable[Awaitable[list[Artifact]] | None], root: Path | None, found: list[Artifact], errors: list[str]
) -> None:
    """Await each plugin's evidence into ``found``; a plugin that fails (its files could not be
    written, the device is gone, it took too long) is named in ``errors`` with why."""
    for awaitable in pending:
        if awaitable is None:
            continue
        try:
            artifacts = await asyncio.wait_for(awaitable, CAPTURE_TIMEOUT)
        except TimeoutError:
            errors.append(f"not saved within {CAPTURE_TIMEOUT:.0f}s")
            continue
        except Exception as exc:  # evidence is best effort: the outcome stands without it, saying so
            errors.append(reason(exc))
            continue
        found.extend(relative_to_run(a, root) for a in artifacts or [])


def not_saved(what: str, path: Path, exc: BaseException, root: Path | None) -> str:
    """``screenshot t/step-2.png: No space left on device``: a piece of evidence that could not
    be saved, named by its path from the run's folder ``root``."""
    return f"{what} {_from_run(path, root)}: {reason(exc)}"


def reason(exc: BaseException) -> str:
    """Why saving failed, in one line: an ``OSError``'s own words, else the exception's first line."""
    from trailblaze.core.limits import printable, shorten

    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    first = (str(exc).strip().splitlines() or [""])[0]
    return printable(shorten(f"{type(exc).__name__}: {first}" if first else type(exc).__name__, 300))


def relative_to_run(artifact: Artifact, root: Path | None) -> Artifact:
    """``artifact`` with its path relative to the run's folder ``root`` (``/`` separated)."""
    return Artifact(artifact.kind, _from_run(Path(artifact.path), root))


def _from_run(path: Path, root: Path | None) -> str:
    """``path`` from the run's folder ``root`` (``/`` separated); as it is when elsewhere."""
    if root is not None and path.is_absolute():
        try:
            path = path.relative_to(root.absolute())
        except ValueError:
            return str(path)  # somewhere else: named as it is
    return path.as_posix()


def shown(artifact: Artifact, artifacts_dir: str | None) -> str:
    """Where ``artifact`` is, as reports show it: under the run's folder as reports show that."""
    return os.path.join(artifacts_dir, artifact.path) if artifacts_dir else artifact.path


def prune_runs(folder: Path, keep: int, current: Path | None = None) -> None:
    """Remove all but the newest ``keep`` run folders in ``folder`` (named by time, so the
    newest sort last); ``current`` counts as one of them even before anything is written."""
    import shutil

    try:
        runs = sorted(p for p in folder.iterdir() if p.is_dir() and _RUN_FOLDER.match(p.name) and p != current)
    except OSError:
        return
    spare = keep - (1 if current is not None else 0)
    for old in runs[: max(0, len(runs) - spare)]:
        shutil.rmtree(old, ignore_errors=True)
