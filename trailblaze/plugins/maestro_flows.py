"""Built-in plugin: Maestro flow files run as they are (``trailblaze run flows/``).

A YAML file shaped like a Maestro flow — a header naming an app (``appId:``) or a page
(``url:``), ``---``, then the commands — is collected as a trail
(:mod:`trailblaze.drivers.maestro.flow`), in files named on the command line and in folders,
where Maestro's workspace rules choose which (:mod:`trailblaze.drivers.maestro.workspace`).
It also declares ``-e/--env NAME=VALUE`` (Maestro's flag for a flow's ``${NAME}``), the tool
``web_maestro`` that runs the commands of web flows, and puts the flows a workspace's
``executionOrder.flowsOrder`` names first. ``-p no:maestro_flows`` turns it all off.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze import hookimpl

if TYPE_CHECKING:
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config
    from trailblaze.trail.model import Trail

#: the values of ``-e NAME=VALUE`` for this process's command
_GIVEN_ENV: dict[str, str] = {}
#: seconds a flow's lookups wait when neither ``--timeout`` nor trailblaze.yaml's ``timeout:``
#: says (Maestro's 17 s); None once one of them does
_FLOW_TIMEOUT: list[float | None] = [None]


#: how long Maestro's lookups wait
MAESTRO_LOOKUP_S = 17.0


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    group = parser.getgroup("maestro", "Maestro flows")
    group.addoption(
        "-e",
        "--env",
        dest="maestro_env",
        multiple=True,
        metavar="NAME=VALUE",
        help="A value for ${NAME} in Maestro flows (repeatable), as Maestro's -e.",
        commands=("run", "validate", "record"),
    )
    group.addoption(
        "--from-maestro",
        is_flag=True,
        help="Write each Maestro flow named as a trail (NAME.trail.yaml beside NAME.yaml), its commands the "
        "recordings of its steps; no device is opened.",
        commands=("record",),
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    from trailblaze.core.errors import UsageError

    _GIVEN_ENV.clear()
    told = config.getoption("timeout", None) is not None or "timeout" in config.project.model_fields_set
    _FLOW_TIMEOUT[0] = None if told else MAESTRO_LOOKUP_S
    for value in config.getoption("maestro_env", None) or ():
        name, sep, text = str(value).partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-e/--env {value!r}: expected NAME=VALUE")
        _GIVEN_ENV[name.strip()] = text


@hookimpl
def trailblaze_register_tools(register: Callable[[Any], Any]) -> None:
    from trailblaze.drivers.maestro.web import web_maestro

    register(web_maestro)


@hookimpl
def trailblaze_collect_file(
    path: Path, root: Path | None, arg_values: dict[str, str], require_args: bool, given: bool
) -> Trail | None:
    if not path.name.endswith((".yaml", ".yml")):
        return None
    from trailblaze.drivers.maestro.flow import looks_like_flow

    if not looks_like_flow(path):
        return None
    from trailblaze.drivers.maestro.flow import read_flow
    from trailblaze.drivers.maestro.workspace import CONFIG_NAMES, flow_workspace_for
    from trailblaze.trail.loader import TrailErrors, trail_id

    workspace = flow_workspace_for(path, root)
    if not given and (path.name in CONFIG_NAMES or not workspace.takes(path)):
        return None  # a sub-flow: it runs through runFlow
    trail, problems = read_flow(
        path,
        default_id=trail_id(path, workspace.folder),
        given_env=_GIVEN_ENV,
        environ=os.environ,
    )
    if not given and not workspace.wants(trail.config.tags):
        return None
    trail.config.timeout = _FLOW_TIMEOUT[0]
    if trail.config.title in workspace.order:
        trail.config.metadata["maestro"]["order"] = workspace.order.index(trail.config.title)
    problems = [*workspace.problems, *problems]
    if problems:
        raise TrailErrors(problems, trail)
    return trail


@hookimpl
def trailblaze_modify_plan(run: Run) -> None:
    """The flows ``executionOrder.flowsOrder`` names run first, in its order (a stable sort:
    everything else keeps its place after them)."""

    def rank(index: int) -> tuple[int, int]:
        maestro = run.planned[index].trail.config.metadata.get("maestro")
        order = maestro.get("order") if isinstance(maestro, dict) else None
        return (0, order) if isinstance(order, int) else (1, index)

    if any(isinstance((p.trail.config.metadata.get("maestro") or {}).get("order"), int) for p in run.planned):
        ranked = sorted(range(len(run.planned)), key=rank)
        run.planned[:] = [run.planned[i] for i in ranked]
