"""Reading ``trailblaze.yaml``: the file validated against the core's keys and every plugin's
at once, then checked for names that point at nothing (:mod:`.checks`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError
from pydantic.alias_generators import to_camel

from trailblaze.core.argparsing import BLOCKS
from trailblaze.core.errors import ErrorList, Location, UsageError
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import load_path
from trailblaze.project.config.checks import reference_problems
from trailblaze.project.config.models import REGISTERED_PLATFORMS, ProjectConfig, TargetConfig, ToolsetConfig
from trailblaze.project.config.runtime import Config
from trailblaze.project.projectfile import find_config

if TYPE_CHECKING:
    from trailblaze.core.argparsing import Parser


def load_config(
    path: Path | None = None,
    parser: Parser | None = None,
    *,
    discover: bool = True,
    options: Mapping[str, Any] | None = None,
    command: str | None = None,
    stdout_protocol: str | None = None,
    platforms: Callable[[], Iterable[str]] | None = None,
) -> Config:
    """Load ``path``, or the discovered ``trailblaze.yaml``, or defaults when there is none.

    ``parser`` holds what plugins declared: their settings and sections are validated with the
    core's keys; ``options`` are the command line's values for its options; ``platforms``
    gives the registered drivers' platforms, asked only when a target names one trailblaze
    does not know itself (collecting drivers imports them)."""
    if path is None and discover:
        path = find_config()
    if path is None:
        model = file_model(parser, keys=())
        return Config(model(), None, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)
    if not os.path.lexists(path):  # a broken link or a link loop is there: reading it says which
        raise UsageError("config file not found", Location(str(path)))
    doc = load_path(path)
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise UsageError("trailblaze.yaml must be a mapping of settings", doc.location())
    model = file_model(parser, keys=data)
    try:
        project = model.model_validate(data, context={REGISTERED_PLATFORMS: platforms} if platforms else None)
    except ValidationError as exc:
        raise ErrorList(describe_errors(exc, doc=doc, model=model)) from None
    problems = reference_problems(project, doc, path.parent, parser)
    if problems:
        raise ErrorList(problems)
    return Config(project, path, doc, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)


def file_model(parser: Parser | None, keys: Collection[Any] | None = None) -> type[ProjectConfig]:
    """The model of the whole file: the core's keys plus every plugin's settings and sections,
    and the keys plugins declared in each target and toolset. A plugin key that is also a core
    key is an error naming the plugin.

    ``keys``: the top-level keys of the file to validate, so a section declared by where its
    model is (``add_section("llm", "package.module:Model")``) that the file leaves out is not
    imported for it (its key still exists, taking nothing); None: every model (the schema)."""
    blocks = {within: parser.block_settings(within) for within in BLOCKS} if parser is not None else {}
    if parser is None or not (parser.settings or parser.sections or any(blocks.values())):
        return ProjectConfig
    from pydantic import create_model

    fields: dict[str, Any] = {}
    for name, setting in parser.settings.items():
        fields[name] = (setting.type, _described(setting.default, setting.help))
    for name, section in parser.sections.items():
        wanted = keys is None or not section.deferred or name in keys or to_camel(name) in keys
        fields[name] = (section.model | None, _described(None, section.help)) if wanted else (None, None)
    taken = sorted(set(fields) & set(ProjectConfig.model_fields))
    owners = {
        **{n: s.owner for n, s in parser.settings.items()},
        **{n: s.owner for n, s in parser.sections.items()},
    }
    cores: tuple[tuple[str, type[BaseModel]], ...] = (("targets", TargetConfig), ("toolsets", ToolsetConfig))
    for within, core in cores:
        declared = blocks[within]
        if not declared:
            continue
        clash = sorted(set(declared) & set(core.model_fields))
        taken += [f"{within}.*.{name}" for name in clash]
        owners.update({f"{within}.*.{name}": declared[name].owner for name in clash})
        block_keys: dict[str, Any] = {
            name: (s.type, _described(s.default, s.help, per_block=True)) for name, s in declared.items()
        }
        block = create_model(
            core.__name__,
            __base__=core,
            __doc__=core.__doc__,
            **block_keys,
        )
        described = ProjectConfig.model_fields[within].description
        fields[within] = (dict[str, block], Field(default_factory=dict, description=described))  # type: ignore[valid-type]
    if taken:
        raise UsageError(
            "; ".join(
                f"{owners[name]} declares trailblaze.yaml key {name!r}, which is trailblaze's own" for name in taken
            )
        )
    model: type[ProjectConfig] = create_model("TrailblazeYaml", __base__=ProjectConfig, **fields)
    return model


def _described(value: Any, help: str, *, per_block: bool = False) -> Any:
    """A plugin's key: its default, and its help as its description (what the schema, an editor
    and the configuration reference show). ``per_block``: a list or mapping is made anew for each
    block (as the core's ``Field(default_factory=list)``, which the schema shows without a
    default)."""
    description = help or None
    if per_block and isinstance(value, list | dict):
        import copy

        return Field(default_factory=lambda: copy.deepcopy(value), description=description)
    return Field(default=value, description=description)
