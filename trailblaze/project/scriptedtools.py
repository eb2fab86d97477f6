"""A trailmap's scripted tools: ``tools/*.ts`` (and ``.js``) files written with ``@trailblaze/scripting``.

Upstream finds them as this module does: every top-level source file of a trailmap's ``tools/``
folder may export typed tools (``export const name = trailblaze.tool<Args>(spec, handler)``,
several to a file); helpers (``*_shared.ts``, a leading ``_``), type declarations (``.d.ts``)
and tests (``.test.ts``) are not tools. A ``<name>.yaml`` descriptor next to them (``script:``,
``name:``, ``description:``, ``inputSchema:``, ``_meta:``) describes a plain exported function
instead, as upstream's older form does.

What a folder's tools are called, what they take and which platforms they are for comes from
the SDK's ``describe`` (the TypeScript compiler reading the ``Args`` types and doc comments: a
second or two). Its answer is kept in ``.trailblaze/scripted-tools/<hash>.json`` beside the
workspace's ``trails/`` folder, keyed by the bytes of the folder's sources and of the SDK, so
the next ``validate`` or ``run`` reads it instead of starting node; the same file is what
``serve --description`` reads when a session spawns the tools (see
:mod:`trailblaze.mcpclient.scripted`).

The runtime is bun when it is on PATH, else node (20.6 or later), which runs TypeScript through
the SDK's module hooks (the TypeScript compiler, its output kept in ``.trailblaze/scripted-tools/js``
by the same rule). The SDK is the one this package carries, built and bundled
(``trailblaze/scripting-sdk``; in a checkout, ``make sdk`` makes it), or the folder
``TRAILBLAZE_SCRIPTING_SDK`` names (a checkout's ``sdks/typescript``, for working on the SDK).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.core import jsonsource
from trailblaze.core.errors import InfrastructureError, Location, TrailblazeError, UsageError
from trailblaze.core.fileio import write_atomic
from trailblaze.core.sourcefile import read_bounded
from trailblaze.core.yamlsource import load_path

SDK_ENV = "TRAILBLAZE_SCRIPTING_SDK"
#: the SDK this package carries (``scripts/bundle.mjs`` of ``sdks/typescript`` makes it)
PACKAGED_SDK = Path(__file__).resolve().parents[1] / "scripting-sdk"
#: where the SDK's module hooks keep the JavaScript they made of TypeScript files
TRANSPILE_CACHE_ENV = "TRAILBLAZE_SCRIPTING_CACHE"
#: the first node whose module hooks (``module.register``) the SDK runs on
NODE_MINIMUM = (20, 6)
SCRIPT_SUFFIXES = (".ts", ".mts", ".js", ".mjs")
_NOT_TOOLS = (".d.ts", ".d.mts", ".test.ts", ".test.js", ".spec.ts", ".spec.js")
_OTHER_YAML = (".tool.yaml", ".shortcut.yaml", ".trailhead.yaml")
CACHE_FOLDER = Path(".trailblaze") / "scripted-tools"
TRANSPILED_FOLDER = CACHE_FOLDER / "js"
#: the TypeScript compiler's start-up plus reading a folder; a hung node ends here
DESCRIBE_TIMEOUT_S = 120.0
_SDK_FILES = ("package.json", "dist/describe.js")


@dataclass(frozen=True, slots=True)
class Runtime:
    """How to run the SDK's command line: ``[*command, "serve", …]``."""

    command: tuple[str, ...]
    name: str


@dataclass(frozen=True, slots=True)
class ScriptedToolDef:
    """One tool a folder's files export, as ``describe`` (or a descriptor) says."""

    name: str
    file: Path
    line: int | None
    description: str
    input_schema: dict[str, Any]
    meta: dict[str, Any]
    folder: Path


@dataclass(slots=True)
class ScriptFolder:
    """A trailmap's ``tools/`` folder: its tools, and what is needed to serve them."""

    folder: Path
    #: the workspace folder whose ``.trailblaze/`` keeps what is made of the folder's files
    cache_root: Path
    files: list[Path] = field(default_factory=list)
    tools: list[ScriptedToolDef] = field(default_factory=list)
    problems: list[TrailblazeError] = field(default_factory=list)
    #: why its tools cannot run here (no runtime, the SDK not built); None when they can
    unavailable: str | None = None
    #: the hash of its files and the SDK's: a session's server is for one version of them
    key: str = ""


def sdk_folder() -> Path:
    explicit = os.environ.get(SDK_ENV)
    return Path(explicit).expanduser() if explicit else PACKAGED_SDK


class SdkUnavailable(InfrastructureError):
    """The SDK cannot be used: :attr:`what` is wrong, :attr:`fix` says how to mend it (the
    message says both, and that ``trailblaze doctor`` checks the install)."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"{what}: {fix}; `trailblaze doctor` checks the install")
        self.what = what
        self.fix = fix


def sdk_cli() -> Path:
    """The SDK's command line; :class:`SdkUnavailable` saying how to get it when it is not there
    or not whole."""
    folder = sdk_folder()
    cli = folder / "dist" / "cli.js"
    if os.environ.get(SDK_ENV):
        if not cli.is_file():
            raise SdkUnavailable(
                f"{SDK_ENV} names {folder}, which holds no built @trailblaze/scripting (no dist/cli.js)",
                f"build it (`npm run build` there) or unset {SDK_ENV} to use the SDK trailblaze carries",
            )
    elif not cli.is_file():
        raise SdkUnavailable(
            f"this install of trailblaze has no @trailblaze/scripting SDK ({folder} is missing or incomplete)",
            "reinstall trailblaze (`pip install --force-reinstall trailblaze`), or in a checkout run `make sdk`",
        )
    if not _typescript_reachable(folder):
        raise SdkUnavailable(
            f"the @trailblaze/scripting SDK at {folder} cannot find the TypeScript compiler it runs on "
            "(node_modules/typescript)",
            "reinstall trailblaze, or run `npm ci` in that folder",
        )
    return cli


def _typescript_reachable(folder: Path) -> bool:
    """Whether node, resolving ``typescript`` from the SDK's files, finds it: in the SDK's own
    node_modules (as packaged, or a checkout's), or beside it (installed from npm)."""
    return any((base / "node_modules" / "typescript" / "package.json").is_file() for base in (folder, *folder.parents))


@functools.cache
def node_version(node: str) -> tuple[int, ...] | None:
    """``node --version`` as numbers; None when it does not answer like node."""
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip().removeprefix("v")
    parts = text.split(".")
    if done.returncode != 0 or not all(p.isdigit() for p in parts[:2]) or len(parts) < 2:
        return None
    return tuple(int(p) for p in parts[:3] if p.isdigit())


def find_runtime() -> Runtime:
    """bun when it is on PATH, else node (20.6 or later); an error saying what to install when
    neither will do."""
    cli = str(sdk_cli())
    bun = shutil.which("bun")
    if bun is not None:
        return Runtime((bun, cli), "bun")
    return Runtime((_node(), cli), "node")


def node_with_sdk() -> tuple[str, list[str]]:
    """node, and the arguments before a script's, that run a ``script:`` MCP server with the SDK's
    module hooks: TypeScript compiled, ``@trailblaze/scripting`` found without an ``npm install``."""
    register = sdk_cli().parent / "register.js"
    node = _node()
    if not register.is_file():
        raise InfrastructureError(f"the @trailblaze/scripting SDK at {sdk_folder()} is incomplete (no {register.name})")
    return node, ["--import", register.resolve().as_uri()]


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise InfrastructureError(
            "scripted .ts/.js tools need a JavaScript runtime: install Node.js 20.6 or later (https://nodejs.org) "
            "or bun (https://bun.sh), and make sure `node` or `bun` is on PATH; `trailblaze doctor` checks the install"
        )
    version = node_version(node)
    if version is None or version[:2] < NODE_MINIMUM:
        shown = "an unknown version" if version is None else "v" + ".".join(map(str, version))
        raise InfrastructureError(
            f"scripted .ts/.js tools need Node.js 20.6 or later; {node} is {shown}: install a newer Node.js "
            "(https://nodejs.org) or bun (https://bun.sh); `trailblaze doctor` checks the install"
        )
    return node


def runtime_environment(cache_root: Path) -> dict[str, str]:
    """What the SDK's processes get on top of the inherited environment: where their module
    hooks keep compiled TypeScript."""
    return {TRANSPILE_CACHE_ENV: str((cache_root / TRANSPILED_FOLDER).resolve())}


def is_tool_source(path: Path) -> bool:
    name = path.name
    return name.endswith(SCRIPT_SUFFIXES) and not name.endswith(_NOT_TOOLS)


def script_files(folder: Path, problems: list[TrailblazeError] | None = None) -> list[Path]:
    """The top-level files of ``folder`` that may export tools; one named as a tool file that
    cannot be read as one (a link to nothing, a FIFO, a socket) is a problem in ``problems``."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        stem = path.name.split(".", 1)[0]
        if not is_tool_source(path) or stem.startswith("_") or stem.endswith("_shared"):
            continue
        if path.is_file():
            found.append(path)
        elif problems is not None and not path.is_dir():
            what = "a link to nothing" if path.is_symlink() and not path.exists() else "not a regular file"
            problems.append(UsageError(f"cannot read this tool file: it is {what}", Location(str(path))))
    return found


def read_folder(folder: Path, cache_root: Path) -> ScriptFolder:
    """The tools of a ``tools/`` folder, described (from the cache when its files have not changed)."""
    found = ScriptFolder(folder, cache_root)
    descriptors = _descriptors(folder, found.problems)
    scripted = {d["file"] for d in descriptors}
    typed = [p for p in script_files(folder, found.problems) if p.name not in scripted]
    found.files = [*typed, *(folder / name for name in sorted(scripted))]
    if not found.files:
        return found
    try:
        runtime_key = _sources_key(folder) + _sdk_key()
    except UsageError as exc:
        found.problems.append(exc)
        return found
    except InfrastructureError as exc:
        found.unavailable = exc.message
        return found
    key = hashlib.sha256(runtime_key.encode()).hexdigest()[:32]
    cache = cache_root / CACHE_FOLDER / f"{key}.json"
    description = _cached(cache)
    if description is None:
        try:
            description = _describe(folder, typed, cache_root)
        except InfrastructureError as exc:
            found.unavailable = exc.message
            return found
        except UsageError as exc:
            found.problems.append(exc)
            return found
        description["tools"] = [*description["tools"], *descriptors]
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(cache, json.dumps(description, indent=1))
        except OSError:
            pass  # a folder that cannot be written (read-only checkout): described again next time
    found.key = key
    for problem in description.get("errors", []):
        line = problem.get("line")
        name = f"{problem['name']}: " if problem.get("name") else ""
        where = Location(str(folder / problem["file"]), line if isinstance(line, int) else None)
        found.problems.append(UsageError(f"{name}{problem.get('message', 'cannot be described')}", where))
    for tool in description.get("tools", []):
        found.tools.append(
            ScriptedToolDef(
                name=tool["name"],
                file=folder / tool["file"],
                line=tool.get("line"),
                description=(tool.get("description") or "").strip(),
                input_schema=tool.get("inputSchema") or {"type": "object"},
                meta=tool.get("_meta") or {},
                folder=folder,
            )
        )
    return found


# -- describe and its cache ---------------------------------------------------------------------


def _sources_key(folder: Path) -> str:
    """What the folder's description depends on: its source and descriptor files' names and bytes."""
    parts = []
    for path in sorted(folder.iterdir()):
        if path.is_file() and (path.name.endswith(SCRIPT_SUFFIXES) or path.name.endswith(".yaml")):
            parts.append(f"{path.name}:{hashlib.sha256(read_bounded(path, 'source')).hexdigest()}")
    return "\n".join(parts)


def _sdk_key() -> str:
    folder = sdk_folder()
    sdk_cli()  # built, or an error saying how
    return "".join(hashlib.sha256(read_bounded(folder / name, "SDK")).hexdigest() for name in _SDK_FILES)


def _cached(path: Path) -> dict[str, Any] | None:
    """A description written before; None when there is none or it is damaged (it is made again)."""
    if not path.is_file():
        return None
    try:
        data = jsonsource.parse(read_bounded(path, "JSON"))
    except (UsageError, ValueError):
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("tools"), list)
        or not isinstance(data.get("errors"), list)
    ):
        return None
    if not all(_entry_fits(t, tool=True) for t in data["tools"]) or not all(_entry_fits(e) for e in data["errors"]):
        return None
    return data


_ENTRY_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "file": str,
    "line": (int, type(None)),
    "description": (str, type(None)),
    "message": str,
    "inputSchema": dict,
    "_meta": dict,
}


def _entry_fits(entry: Any, *, tool: bool = False) -> bool:
    """Whether one cached tool (or problem) has the fields, of the types, it is read with."""
    if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
        return False
    if tool and not isinstance(entry.get("name"), str):
        return False
    return all(isinstance(entry[key], kind) for key, kind in _ENTRY_TYPES.items() if key in entry)


def _describe(folder: Path, files: list[Path], cache_root: Path) -> dict[str, Any]:
    """``trailblaze-scripting describe`` of ``files``, file names relative to ``folder``."""
    if not files:
        return {"tools": [], "errors": []}
    runtime = find_runtime()
    command = [*runtime.command, "describe", *(str(p.resolve()) for p in files)]
    try:
        done = subprocess.run(
            command,
            cwd=folder,
            env={**os.environ, **runtime_environment(cache_root)},
            capture_output=True,
            timeout=DESCRIBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise InfrastructureError(
            f"{folder}: reading the scripted tools' types took over {DESCRIBE_TIMEOUT_S:g}s "
            f"({runtime.name} did not answer)"
        ) from None
    except OSError as exc:
        raise InfrastructureError(f"{folder}: cannot start {runtime.name}: {exc.strerror}") from None
    stderr = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode not in (0, 1):
        message = stderr.splitlines()[-1] if stderr else f"exit code {done.returncode}"
        message = message.removeprefix("trailblaze-scripting: ")
        if done.returncode == 3:
            raise UsageError(message, Location(str(folder)))
        raise InfrastructureError(f"{folder}: describing the scripted tools failed: {message}")
    try:
        data = jsonsource.parse(done.stdout)
    except ValueError as exc:
        raise InfrastructureError(f"{folder}: the SDK's describe did not answer with JSON: {exc}") from None
    for entry in [*data.get("tools", []), *data.get("errors", [])]:
        entry["file"] = os.path.relpath(Path(folder.resolve(), entry.get("file") or "."), folder.resolve())
    return {"tools": data.get("tools", []), "errors": data.get("errors", [])}


# -- descriptors --------------------------------------------------------------------------------


def _descriptors(folder: Path, problems: list[TrailblazeError]) -> list[dict[str, Any]]:
    """``<name>.yaml`` descriptors of plain exported functions, in ``describe``'s shape."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name.endswith(_OTHER_YAML):
            continue
        try:
            doc = load_path(path)
        except UsageError as exc:
            problems.append(exc)
            continue
        data = doc.data
        if not isinstance(data, dict) or "script" not in data:
            continue
        script, name = data.get("script"), data.get("name") or path.name.removesuffix(".yaml")
        if not isinstance(script, str) or not isinstance(name, str):
            problems.append(UsageError("script: and name: must be text", doc.location(())))
            continue
        target = (folder / script).resolve()
        if not target.is_file() or target.parent != folder.resolve():
            problems.append(
                UsageError(f"script: {script} is not a file in {folder.name}/ next to it", doc.location(("script",)))
            )
            continue
        meta = dict(data.get("_meta") or {})
        if data.get("requiresHost"):
            meta.setdefault("trailblaze/requiresHost", True)
        found.append(
            {
                "name": name,
                "file": target.name,
                "line": 1,
                "description": str(data.get("description") or ""),
                "inputSchema": _flat_schema(data.get("inputSchema")),
                "_meta": meta,
            }
        )
    return found


def _flat_schema(schema: Any) -> dict[str, Any]:
    """A descriptor's ``inputSchema``: JSON Schema as it is, or upstream's flat form
    (``name: {type, description, required}``, required unless it says ``required: false``)."""
    if not isinstance(schema, dict):
        return {"type": "object"}
    if schema.get("type") == "object" or "properties" in schema:
        return schema
    properties, required = {}, []
    for name, spec in schema.items():
        spec = dict(spec) if isinstance(spec, dict) else {}
        if spec.pop("required", True) is not False:
            required.append(name)
        properties[name] = spec
    return {"type": "object", "properties": properties, "required": required}
