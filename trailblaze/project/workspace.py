"""Upstream's workspace layout: ``trails/config/trailblaze.yaml`` and its trailmaps.

Upstream finds a workspace by walking up from a path (the working directory, or a trail file)
to the first folder holding ``trails/config/trailblaze.yaml`` (``TRAILBLAZE_CONFIG_DIR`` names
the config folder outright). Its ``targets:`` lists trailmap ids, each at
``trails/config/trailmaps/<id>/trailmap.yaml``; an empty list loads every trailmap that has a
``target:``. A trailmap's ``dependencies:`` are other trailmaps, the workspace's or the ones
trailblaze ships (``trailblaze``, whose ``defaults:`` fill in each platform a target declares).

What a workspace contributes here, next to this project's own ``trailblaze.yaml``:

* **targets** — ``target:`` blocks become app targets (display name, per-platform app ids,
  toolsets, tools, excluded tools, base URL) with the ``system_prompt_file`` read in;
* **tools** — the trailmaps' ``tools/**.tool.yaml``, ``shortcuts/**.shortcut.yaml`` and
  ``trailheads/**.trailhead.yaml`` files and the ``tools:`` of ``trailblaze.yaml``
  (see :mod:`trailblaze.tools.yamltool`); and
* **toolsets** — ``trails/config/toolsets/*.yaml``, a trailmap's ``toolsets:`` files and the
  ``toolsets:`` of ``trailblaze.yaml``.

* **scripted tools** — the ``.ts``/``.js`` files of every trailmap's ``tools/`` folder, described by
  :mod:`trailblaze.project.scriptedtools`; a target lists the ones its agents are offered in
  ``target.tools`` (or a platform's ``tools:``), its own or a dependency's (only those in the
  dependency's ``exports:`` when it has one). Where they cannot run (no node or bun), they are
  known by name and a trail calling one fails validation saying what to install.

Waypoints, LLM settings and providers are read and not used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trailblaze.core.errors import Location, TrailblazeError, UsageError
from trailblaze.core.sourcefile import read_source
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import PathKey, YamlDocument, load_path
from trailblaze.project.config import PlatformConfig, TargetConfig, ToolsetConfig
from trailblaze.project.projectfile import WORKSPACE_CONFIG_DIR_ENV, WORKSPACE_CONFIG_FILE
from trailblaze.project.projectfile import find_workspace as find_workspace  # found without loading one
from trailblaze.project.scriptedtools import ScriptedToolDef, ScriptFolder, read_folder
from trailblaze.tools.yamltool import ToolDeclaration, find_tool_files, load_entries, load_tool_file

CONFIG_DIR_ENV = WORKSPACE_CONFIG_DIR_ENV
CONFIG_FILE = WORKSPACE_CONFIG_FILE
MANIFEST = "trailmap.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class WorkspaceDefaults(_Strict):
    target: str | None = None
    llm: str | None = None
    max_llm_calls: int | None = Field(default=None, alias="max-llm-calls", ge=1)


class WorkspaceFile(_Strict):
    """``trails/config/trailblaze.yaml`` (upstream's ``TrailblazeProjectConfig``)."""

    defaults: WorkspaceDefaults | None = None
    targets: list[str] = Field(default_factory=list)
    toolsets: list[Any] = Field(default_factory=list)
    tools: list[Any] = Field(default_factory=list)
    providers: list[Any] = Field(default_factory=list)
    llm: dict[str, Any] | None = None


class TrailmapTarget(_Strict):
    id: str | None = None
    display_name: str
    platforms: dict[str, PlatformConfig] | None = None
    has_custom_ios_driver: bool = False
    system_prompt_file: str | None = None
    tools: list[str] = Field(default_factory=list)
    icon: str | None = None
    electron: dict[str, Any] | None = None


class TrailValidation(_Strict):
    exempt: str | None = None


class Trailmap(_Strict):
    """``trailmap.yaml`` (upstream's ``TrailblazeTrailmapManifest``)."""

    id: str
    target: TrailmapTarget | None = None
    dependencies: list[str] = Field(default_factory=list)
    defaults: dict[str, PlatformConfig] | None = None
    platforms: dict[str, PlatformConfig] | None = None
    exports: list[str] | None = None
    toolsets: list[str] = Field(default_factory=list)
    waypoints: list[str] = Field(default_factory=list)
    trails: list[str] = Field(default_factory=list)
    trail_validation: TrailValidation | None = None


@dataclass(slots=True)
class LoadedTrailmap:
    manifest: Trailmap
    folder: Path
    doc: YamlDocument | None
    bundled: bool = False


@dataclass(slots=True)
class Workspace:
    """A loaded upstream workspace: what it adds to the tools, targets and toolsets."""

    config_file: Path
    targets: dict[str, TargetConfig] = field(default_factory=dict)
    declarations: list[ToolDeclaration] = field(default_factory=list)
    #: tools known by name that cannot run here (scripted tools without a runtime), with the reason
    unavailable: dict[str, str] = field(default_factory=dict)
    #: the trailmaps' scripted tools, by name
    scripted: dict[str, ScriptedToolDef] = field(default_factory=dict)
    #: the scripted tools some target lists (the others are not offered to agents)
    listed_scripted: set[str] = field(default_factory=set)
    #: the trailmaps' ``tools/`` folders that hold scripts, by folder
    script_folders: dict[Path, ScriptFolder] = field(default_factory=dict)
    toolsets: dict[str, ToolsetConfig] = field(default_factory=dict)
    default_target: str | None = None
    problems: list[TrailblazeError] = field(default_factory=list)
    #: targets whose trailmap says why its trails call tools no file here defines
    #: (``trail_validation: {exempt: why}``), by target name
    exempt: dict[str, str] = field(default_factory=dict)
    #: what a toolset file is validated as: the core's model with the keys plugins declared in
    #: toolsets (``mcp_servers:``), as in trailblaze.yaml (``Config.block_model("toolsets")``)
    toolset_model: type[ToolsetConfig] = field(default=ToolsetConfig, repr=False, compare=False)
    #: the trailmaps plugins ship (``parser.add_trailmap``; ``dependencies: [trailblaze]`` and
    #: friends), by name: a workspace may depend on them or name them as targets
    shipped: Mapping[str, Path] = field(default_factory=dict, repr=False, compare=False)

    @property
    def config_dir(self) -> Path:
        return self.config_file.parent

    @property
    def root(self) -> Path:
        """The folder holding ``trails/`` (where ``.trailblaze/`` keeps what is cached)."""
        return self.config_dir.parent.parent

    def shown(self, path: Path) -> str:
        """``path`` as messages show it: relative to the folder holding ``trails/``."""
        try:
            return str(path.relative_to(self.config_dir.parent.parent))
        except ValueError:
            return str(path)


def load_workspace(
    config_file: Path,
    toolset_model: type[ToolsetConfig] = ToolsetConfig,
    shipped: Mapping[str, Path] | None = None,
) -> Workspace:
    """Read a workspace; problems are collected in ``problems`` (file:line each), not raised.
    Its toolset files are validated as ``toolset_model`` (the project's, with plugins' keys);
    ``shipped``: the trailmaps plugins ship, by name (``Parser.trailmaps``)."""
    workspace = Workspace(config_file, toolset_model=toolset_model, shipped=dict(shipped or {}))
    doc = _load(config_file, workspace.problems)
    if doc is None:
        return workspace
    data = doc.data if doc.data is not None else {}
    try:
        settings = WorkspaceFile.model_validate(data)
    except ValidationError as exc:
        workspace.problems.extend(describe_errors(exc, doc=doc, model=WorkspaceFile))
        return workspace
    workspace.default_target = settings.defaults.target if settings.defaults else None
    loaded = _trailmaps(workspace, settings.targets, doc)
    for trailmap in loaded.values():
        if not trailmap.bundled:
            _trailmap_contents(workspace, trailmap, loaded)
    for trailmap in loaded.values():
        if not trailmap.bundled and trailmap.manifest.target is not None:
            _target_scripted_tools(workspace, trailmap, loaded)
    _workspace_toolsets(workspace, settings, doc)
    entries = load_entries(settings.tools, doc, ("tools",), workspace.config_dir, f"yaml:{config_file.name}")
    workspace.declarations += entries.declarations
    workspace.problems += entries.problems
    for path in find_tool_files(workspace.config_dir / "tools"):
        _add_tool_file(workspace, path)
    return workspace


def _load(path: Path, problems: list[TrailblazeError]) -> YamlDocument | None:
    try:
        return load_path(path)
    except UsageError as exc:
        problems.append(exc)
        return None


# -- trailmaps ----------------------------------------------------------------------------------------


def _trailmaps(workspace: Workspace, listed: list[str], doc: YamlDocument) -> dict[str, LoadedTrailmap]:
    """The listed target trailmaps (every target trailmap when none is listed) and, transitively,
    their dependencies."""
    folder = workspace.config_dir / "trailmaps"
    loaded: dict[str, LoadedTrailmap] = {}
    roots: list[tuple[str, PathKey | None]] = [(name, ("targets", i)) for i, name in enumerate(listed)]
    if not listed and folder.is_dir():
        roots = [(d.name, None) for d in sorted(folder.iterdir()) if (d / MANIFEST).is_file()]
    for name, key_path in roots:
        trailmap = _trailmap(workspace, name, loaded)
        if trailmap is None:
            if key_path is not None and not (folder / name / MANIFEST).is_file():  # else: its problems are reported
                workspace.problems.append(
                    UsageError(
                        f"targets: no trailmap {name!r} (looked for {workspace.shown(folder / name / MANIFEST)})",
                        doc.location(key_path),
                    )
                )
            continue
        if trailmap.manifest.target is None and key_path is not None:
            workspace.problems.append(
                UsageError(
                    f"targets: {name!r} is a library trailmap (it has no target:); list target trailmaps here",
                    doc.location(key_path),
                )
            )
    return loaded


def _trailmap(workspace: Workspace, name: str, loaded: dict[str, LoadedTrailmap]) -> LoadedTrailmap | None:
    if name in loaded:
        return loaded[name]
    own = workspace.config_dir / "trailmaps" / name / MANIFEST
    bundled = workspace.shipped[name] / MANIFEST if name in workspace.shipped else None
    path = own if own.is_file() else bundled if bundled is not None and bundled.is_file() else None
    if path is None:
        return None
    doc = _load(path, workspace.problems)
    if doc is None:
        return None
    try:
        manifest = Trailmap.model_validate(doc.data or {})
    except ValidationError as exc:
        workspace.problems.extend(describe_errors(exc, doc=doc, model=Trailmap))
        return None
    if manifest.id != name:
        workspace.problems.append(
            UsageError(
                f"the trailmap in folder {name!r} says id: {manifest.id!r}; they must be the same",
                doc.location(("id",)),
            )
        )
    trailmap = LoadedTrailmap(manifest, path.parent, doc, bundled=path == bundled)
    loaded[name] = trailmap
    for i, dependency in enumerate(manifest.dependencies):
        missing = not (workspace.config_dir / "trailmaps" / dependency / MANIFEST).is_file()
        if (
            _trailmap(workspace, dependency, loaded) is None
            and missing
            and not (dependency in workspace.shipped and (workspace.shipped[dependency] / MANIFEST).is_file())
        ):
            workspace.problems.append(
                UsageError(
                    f"dependencies: no trailmap {dependency!r} in this workspace or among those plugins ship",
                    doc.location(("dependencies", i)),
                )
            )
    return trailmap


def _trailmap_contents(workspace: Workspace, trailmap: LoadedTrailmap, loaded: dict[str, LoadedTrailmap]) -> None:
    manifest, folder, doc = trailmap.manifest, trailmap.folder, trailmap.doc
    assert doc is not None
    for sub, suffix in (("tools", ".tool.yaml"), ("shortcuts", ".shortcut.yaml"), ("trailheads", ".trailhead.yaml")):
        for path in find_tool_files(folder / sub):
            if path.name.endswith(suffix):
                _add_tool_file(workspace, path)
    for i, relative in enumerate(manifest.toolsets):
        _add_toolset_file(workspace, folder / relative, doc, ("toolsets", i))
    _add_script_folder(workspace, folder / "tools")
    if manifest.target is not None:
        _add_target(workspace, trailmap, loaded)


def _add_target(workspace: Workspace, trailmap: LoadedTrailmap, loaded: dict[str, LoadedTrailmap]) -> None:
    manifest, doc = trailmap.manifest, trailmap.doc
    target = manifest.target
    assert target is not None and doc is not None
    defaults = _defaults(manifest, loaded)
    platforms: dict[str, PlatformConfig] = {}
    for key, block in (target.platforms or {}).items():
        default = defaults.get(key)
        unset = (
            {}
            if default is None
            else {f: getattr(default, f) for f in type(block).model_fields if f not in block.model_fields_set}
        )
        platforms[key] = block.model_copy(update=unset)
    prompt = None
    if target.system_prompt_file is not None:
        path = trailmap.folder / target.system_prompt_file
        try:
            prompt = read_source(path, "text")
        except UsageError as exc:
            workspace.problems.append(
                UsageError(
                    f"system_prompt_file: cannot read {workspace.shown(path)}: {exc.message}",
                    doc.location(("target", "system_prompt_file")),
                )
            )
    try:
        config = TargetConfig(display_name=target.display_name, platforms=platforms, system_prompt=prompt)
    except ValidationError as exc:
        workspace.problems.extend(describe_errors(exc, doc=doc, base=("target",), model=TargetConfig))
        return
    workspace.targets[target.id or manifest.id] = config
    if manifest.trail_validation is not None and manifest.trail_validation.exempt:
        workspace.exempt[target.id or manifest.id] = manifest.trail_validation.exempt


def _defaults(manifest: Trailmap, loaded: dict[str, LoadedTrailmap]) -> dict[str, PlatformConfig]:
    """Per-platform defaults from the trailmap's dependencies (nearest first)."""
    found: dict[str, PlatformConfig] = {}
    for dependency in manifest.dependencies:
        other = loaded.get(dependency)
        if other is not None:
            for key, block in (other.manifest.defaults or {}).items():
                found.setdefault(key, block)
    return found


def _add_script_folder(workspace: Workspace, folder: Path) -> None:
    """The scripted tools of one ``tools/`` folder, known to every trail of the workspace."""
    if folder in workspace.script_folders:
        return
    found = workspace.script_folders[folder] = read_folder(folder, workspace.root)
    workspace.problems += found.problems
    if found.unavailable is not None:  # the names a file gives, without a runtime to read the rest
        for path in found.files:
            workspace.unavailable.setdefault(path.name.split(".", 1)[0], _cannot_run(workspace, path, found))
        return
    defined = {d.file.id for d in workspace.declarations}
    for tool in found.tools:
        if tool.name in workspace.scripted or tool.name in defined:
            other = workspace.scripted.get(tool.name)
            elsewhere = workspace.shown(other.file) if other is not None else "a tool file"
            workspace.problems.append(
                UsageError(
                    f"scripted tool {tool.name} is also defined by {elsewhere}; tool names must be unique",
                    Location(workspace.shown(tool.file), tool.line),
                )
            )
            continue
        workspace.scripted[tool.name] = tool


def _cannot_run(workspace: Workspace, path: Path, found: ScriptFolder) -> str:
    return f"is a scripted tool ({workspace.shown(path)}) that cannot run here: {found.unavailable}"


def _target_scripted_tools(workspace: Workspace, trailmap: LoadedTrailmap, loaded: dict[str, LoadedTrailmap]) -> None:
    """The tools a target lists (``target.tools``, a platform's ``tools:``): scripted tools of its own
    trailmap or of a dependency that exports them, or tools of the workspace's tool files."""
    manifest, doc = trailmap.manifest, trailmap.doc
    target = manifest.target
    assert target is not None and doc is not None
    named: list[tuple[PathKey, str]] = [(("target", "tools", i), n) for i, n in enumerate(target.tools)]
    named += [
        (("target", "platforms", key, "tools", i), name)
        for key, block in (target.platforms or {}).items()
        for i, name in enumerate(block.tools)
    ]
    own = trailmap.folder / "tools"
    dependencies = _dependency_folders(manifest, loaded)
    defined = {d.file.id for d in workspace.declarations}
    for key_path, name in named:
        tool = workspace.scripted.get(name)
        exports = dependencies.get(tool.folder, ()) if tool is not None else ()
        if tool is not None and (tool.folder == own or exports is None or name in exports):
            workspace.listed_scripted.add(name)
            continue
        if name in defined or name in workspace.unavailable:
            continue
        if tool is not None:
            workspace.problems.append(
                UsageError(
                    f"{name}: defined by {workspace.shown(tool.file)}, in a trailmap {manifest.id!r} does not depend "
                    f"on, or that does not list it in exports:",
                    doc.location(key_path),
                )
            )
            continue
        workspace.problems.append(
            UsageError(f"{name}: no file in {workspace.shown(own)} defines this tool", doc.location(key_path))
        )


def _dependency_folders(manifest: Trailmap, loaded: dict[str, LoadedTrailmap]) -> dict[Path, list[str] | None]:
    """The ``tools/`` folders of ``manifest``'s dependencies (transitively), each with the tool
    names the dependency exports (None: it has no ``exports:``, so all of them)."""
    folders: dict[Path, list[str] | None] = {}
    pending, seen = list(manifest.dependencies), set()
    while pending:
        name = pending.pop()
        other = loaded.get(name)
        if name in seen or other is None:
            continue
        seen.add(name)
        folders[other.folder / "tools"] = other.manifest.exports
        pending += other.manifest.dependencies
    return folders


# -- tools and toolsets -------------------------------------------------------------------------------


def _add_tool_file(workspace: Workspace, path: Path) -> None:
    loaded = load_tool_file(path, f"yaml:{workspace.shown(path)}")
    workspace.declarations += loaded.declarations
    workspace.problems += loaded.problems


def _workspace_toolsets(workspace: Workspace, settings: WorkspaceFile, doc: YamlDocument) -> None:
    folder = workspace.config_dir / "toolsets"
    if folder.is_dir():
        for path in sorted(folder.glob("*.yaml")):
            _add_toolset_file(workspace, path, None, ())
    for i, entry in enumerate(settings.toolsets):
        ref = entry.get("ref") if isinstance(entry, dict) and set(entry) == {"ref"} else None
        if isinstance(ref, str):
            _add_toolset_file(workspace, workspace.config_dir / ref, doc, ("toolsets", i))
        else:
            _add_toolset(workspace, entry, doc, ("toolsets", i), None)


def _add_toolset_file(workspace: Workspace, path: Path, doc: YamlDocument | None, key_path: PathKey) -> None:
    if not path.is_file():
        where = doc.location(key_path) if doc is not None else None
        workspace.problems.append(UsageError(f"toolset file {workspace.shown(path)} not found", where))
        return
    own = _load(path, workspace.problems)
    if own is not None:
        _add_toolset(workspace, own.data, own, (), path.stem)


def _add_toolset(workspace: Workspace, data: Any, doc: YamlDocument, key_path: PathKey, stem: str | None) -> None:
    try:
        toolset = workspace.toolset_model.model_validate(data)
    except ValidationError as exc:
        workspace.problems.extend(describe_errors(exc, doc=doc, base=key_path, model=workspace.toolset_model))
        return
    name = toolset.id or stem
    if name is None:
        workspace.problems.append(UsageError("a toolset needs an id:", doc.location(key_path)))
        return
    workspace.toolsets[name] = toolset
