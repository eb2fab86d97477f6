"""Maestro's workspace rules for a folder of flows.

A folder runs its top-level flows; flows in sub-folders run only through ``runFlow``. A
``config.yaml`` (or ``config.yml``) in the folder may say otherwise: ``flows:`` globs relative to
it (``*`` within one folder, ``**`` across folders), ``includeTags``/``excludeTags`` (a flow with
one of the included tags, and none of the excluded ones), and ``executionOrder.flowsOrder``
(these flows, by name, first and in this order).

Which folder is the workspace: the nearest folder above the flow, up to the folder searched,
that holds a ``config.yaml``; without one, the folder searched itself (``trailblaze run
flows/``). Every other key of the file is Maestro's business and ignored, as Maestro does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from trailblaze.core.errors import UsageError
from trailblaze.core.yamlsource import load_path

CONFIG_NAMES = ("config.yaml", "config.yml")


@dataclass(frozen=True, slots=True)
class WorkspaceConfig:
    folder: Path
    flows: tuple[str, ...] = ("*",)
    include_tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    order: tuple[str, ...] = ()
    file: Path | None = None
    problems: tuple[UsageError, ...] = field(default=())

    def takes(self, path: Path) -> bool:
        """Whether the flow at ``path`` is one of the workspace's flows (by ``flows:``)."""
        try:
            relative = path.resolve().relative_to(self.folder.resolve()).as_posix()
        except ValueError:
            return False
        return any(_glob(pattern).fullmatch(relative) for pattern in self.flows)

    def wants(self, tags: list[str]) -> bool:
        """Whether a flow with these tags runs (``includeTags``/``excludeTags``)."""
        if self.include_tags and not any(t in self.include_tags for t in tags):
            return False
        return not any(t in self.exclude_tags for t in tags)


def flow_workspace_for(path: Path, root: Path | None) -> WorkspaceConfig:
    """The workspace the flow at ``path`` belongs to, in the folder ``root`` searched: from
    ``root`` down to the flow's folder, the first folder that holds a ``config.yaml`` or a
    flow of its own (a project's folder holding a ``flows/`` folder is not the workspace)."""
    folder = path.resolve().parent
    top = (root if root is None or root.is_dir() else root.parent) or folder
    top = top.resolve()
    if not folder.is_relative_to(top):
        top = folder
    chain = [top, *(top / part for part in _prefixes(folder.relative_to(top)))]
    for candidate in chain:
        for name in CONFIG_NAMES:
            config = candidate / name
            if config.is_file():
                return _read(config, config.stat().st_mtime_ns)
        if candidate == folder or _holds_flows(candidate, candidate.stat().st_mtime_ns):
            return WorkspaceConfig(candidate)
    return WorkspaceConfig(folder)  # pragma: no cover - the flow's own folder ends the loop


def _prefixes(relative: Path) -> list[Path]:
    parts = relative.parts
    return [Path(*parts[: i + 1]) for i in range(len(parts))]


@lru_cache(maxsize=256)
def _holds_flows(folder: Path, mtime: int) -> bool:
    from trailblaze.drivers.maestro.flow import looks_like_flow

    try:
        with os.scandir(folder) as entries:
            return any(entry.is_file() and looks_like_flow(Path(entry.path)) for entry in entries)
    except OSError:
        return False


@lru_cache(maxsize=64)
def _read(path: Path, mtime: int) -> WorkspaceConfig:
    try:
        doc = load_path(path)
    except UsageError as exc:
        return WorkspaceConfig(path.parent, file=path, problems=(exc,))
    data = doc.data if isinstance(doc.data, dict) else {}
    problems: list[UsageError] = []

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        problems.append(UsageError(f"{key}: a name or a list of names", doc.location((key,))))
        return ()

    order = data.get("executionOrder")
    flows_order: tuple[str, ...] = ()
    if isinstance(order, dict) and isinstance(order.get("flowsOrder"), list):
        flows_order = tuple(str(n) for n in order["flowsOrder"])
    return WorkspaceConfig(
        path.parent,
        flows=strings("flows") or ("*",),
        include_tags=strings("includeTags"),
        exclude_tags=strings("excludeTags"),
        order=flows_order,
        file=path,
        problems=tuple(problems),
    )


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    """A ``flows:`` glob as Java's ``glob:`` reads it: ``*`` within a folder, ``**`` across."""
    out = []
    i = 0
    pattern = pattern.strip().removeprefix("./")
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{":
            end = pattern.find("}", i)
            if end > i:
                out.append("(?:" + "|".join(re.escape(p) for p in pattern[i + 1 : end].split(",")) + ")")
                i = end + 1
                continue
            out.append(re.escape(c))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))
