"""Built-in plugin: evidence of failed steps, and ``--screenshot on|off|only-on-failure``.

After a step fails, while the screen still shows what it failed on, this plugin saves into the
trail's artifacts folder (:mod:`trailblaze.runner.evidence`):

* ``step-N.png`` (``.jpg`` from phones that send JPEG): a screenshot, unless ``--screenshot off``;
* the screen's hierarchy: ``step-N.aria.yaml``, the page's ARIA snapshot, on the web;
  ``step-N.hierarchy.json``, the view hierarchy, on phones — secrets masked as everywhere;
* ``step-N.console.log``: what the trail's pages wrote to the console (web), masked too;

and adds to the step's error what the screen shows nearest to what the step looked for, when
the driver's message does not say what the screen shows (the whole screen is the hierarchy
file, never the message).
``--screenshot on`` also saves a screenshot after every passing step. Block the plugin with
``-p no:evidence`` to keep nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from trailblaze.api.results import Artifact, ArtifactKind, StepResult
    from trailblaze.api.session import Run, Session
    from trailblaze.core.argparsing import Parser
    from trailblaze.device.commands import ViewNode
    from trailblaze.trail.model import Step

SCREENSHOT_MODES = ("on", "off", "only-on-failure")


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    from typing import Annotated

    from pydantic import Field

    parser.getgroup("reporting", "Reporting").addoption(
        "--screenshot",
        choices=SCREENSHOT_MODES,
        default="only-on-failure",
        help="Screenshots in the artifacts folder: after every step (on), none (off), or after a failed step "
        "(only-on-failure, default). A failed step's hierarchy and console messages are always kept.",
        commands=("run",),
    )
    parser.addini(
        "artifacts_keep",
        "how many runs' artifacts folders .trailblaze/artifacts keeps (the newest)",
        type=Annotated[int, Field(ge=1)],
        default=10,
    )


@hookimpl
def trailblaze_run_start(run: Run) -> None:
    """Keep the newest ``artifacts_keep`` run folders under ``.trailblaze/artifacts`` (the
    default place; a folder named with ``--artifacts-dir`` is the user's to clear)."""
    folder = run.options.artifacts_dir
    config = run.config
    if folder is None or folder.parent != config.root / ".trailblaze" / "artifacts":
        return
    from trailblaze.runner.evidence import prune_runs

    prune_runs(folder.parent, keep=config.getini("artifacts_keep"), current=folder)


@hookimpl
def trailblaze_step_evidence(
    step: Step, result: StepResult, session: Session, folder: Path
) -> Awaitable[list[Artifact]] | None:
    mode = session.run.config.getoption("screenshot", "only-on-failure")
    failed = result.status in ("failed", "error")
    if not failed and (mode != "on" or result.status == "skipped"):
        return None
    from trailblaze.runner.evidence import step_stem

    return _save(session, result, folder, step_stem(step), screenshot=mode != "off", failed=failed)


async def _save(
    session: Session, result: StepResult, folder: Path, stem: str, *, screenshot: bool, failed: bool
) -> list[Artifact]:
    """Save each piece of the step's evidence; one that cannot be taken or written is named in
    ``result.evidence_errors`` and the others are still saved."""
    from trailblaze.device import masking

    folder.mkdir(parents=True, exist_ok=True)
    secrets = session.secrets
    saved = _Saved(result, session.run.options.artifacts_dir)
    device = session.device
    page = getattr(device, "page", None) if session.info.platform == "web" else None
    if page is not None:  # the web: Playwright's own screenshot and ARIA snapshot
        from trailblaze.drivers.web import aria
        from trailblaze.drivers.web.device import WebDevice

        # a page whose script does not return answers nothing: no screenshot or snapshot to wait for
        stuck = isinstance(device, WebDevice) and device.stuck and not await device.answers()
        if screenshot and not stuck:
            await saved.write("screenshot", folder / f"{stem}.png", lambda: page.screenshot(type="png"))
        if not failed:
            return saved.artifacts
        snapshot: list[str] = []

        async def hierarchy() -> bytes:
            snapshot.append(masking.redact(await page.aria_snapshot(), secrets))
            return snapshot[0].encode("utf-8")

        async def console() -> bytes:
            lines = [masking.redact(line, secrets) for line in getattr(device, "console", ())]
            return "".join(f"{line}\n" for line in lines).encode("utf-8")

        if not stuck:
            await saved.write("hierarchy", folder / f"{stem}.aria.yaml", hierarchy)
        await saved.write("console", folder / f"{stem}.console.log", console)
        if snapshot:
            _add_nearest(result, aria.parse_snapshot(snapshot[0]))
        return saved.artifacts
    try:
        screen = await device.capture_screen()
    except NotImplementedError:  # a driver with no screen to capture: nothing is missing
        return saved.artifacts
    if screenshot and screen.screenshot:
        await saved.write("screenshot", folder / f"{stem}.{screen.image_format}", screen.screenshot)
    if failed:
        import json

        tree = masking.masked_node(screen.hierarchy, secrets)
        text = json.dumps(tree.to_dict(), indent=2, ensure_ascii=False) + "\n"
        await saved.write("hierarchy", folder / f"{stem}.hierarchy.json", text.encode("utf-8"))
        _add_nearest(result, tree)
    return saved.artifacts


class _Saved:
    """The files of one step's evidence as they are written, and those that could not be."""

    def __init__(self, result: StepResult, root: Path | None) -> None:
        self.result = result
        self.root = root
        self.artifacts: list[Artifact] = []

    async def write(self, kind: ArtifactKind, path: Path, content: bytes | Callable[[], Awaitable[bytes]]) -> None:
        """Write ``content`` (bytes, or what capturing it returns) to ``path``."""
        from trailblaze.api.results import Artifact
        from trailblaze.core.fileio import write_whole
        from trailblaze.runner.evidence import not_saved

        try:
            write_whole(path, content if isinstance(content, bytes) else await content())
        except Exception as exc:  # the device is gone, the disk is full: say so, save the rest
            self.result.evidence_errors.append(not_saved(kind, path, exc, self.root))
            return
        self.artifacts.append(Artifact(kind, str(path)))


def _add_nearest(result: StepResult, screen: ViewNode) -> None:
    """Say what the screen shows that reads most like what the failed call looked for."""
    from trailblaze.device.nearest import nearest_on_screen, wanted_texts

    failing = next((t for t in reversed(result.tools) if t.status in ("failed", "error")), None)
    if failing is None or failing.status != "failed" or not result.error:
        return  # an error (a wrong recording, a broken device) is not about what is on screen
    if "on screen: " in result.error or " still visible after " in result.error:
        # the driver said what the screen shows (the built-in ones do), or a not-visible check
        # named the elements still shown: nearest to what it looked for, they are those
        return
    nearest = nearest_on_screen(wanted_texts(failing.args), screen)
    if not nearest:
        return
    said = f"; nearest on screen: {', '.join(nearest)}"
    result.error += said
    if failing.error:  # the call's own message says the same, so reports show it once
        failing.error += said
