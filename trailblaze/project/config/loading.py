"""Reading ``trailblaze.yaml``: the file validated against the core's keys and every plugin's
at once, then checked for names that point at nothing (:mod:`.checks`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from trailblaze.core.errors import ErrorList, Location, UsageError
from trailblaze.core.validation import describe_errors
from trailblaze.core.yamlsource import load_path
from trailblaze.project.config.checks import reference_problems
from trailblaze.project.config.models import REGISTERED_PLATFORMS, ProjectConfig
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
    model = file_model(parser)
    if path is None:
        return Config(model(), None, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)
    if not os.path.lexists(path):  # a broken link or a link loop is there: reading it says which
        raise UsageError("config file not found", Location(str(path)))
    doc = load_path(path)
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise UsageError("trailblaze.yaml must be a mapping of settings", doc.location())
    try:
        project = model.model_validate(data, context={REGISTERED_PLATFORMS: platforms} if platforms else None)
    except ValidationError as exc:
        raise ErrorList(describe_errors(exc, doc=doc, model=model)) from None
    problems = reference_problems(project, doc, path.parent)
    if problems:
        raise ErrorList(problems)
    return Config(project, path, doc, parser=parser, options=options, command=command, stdout_protocol=stdout_protocol)


def file_model(parser: Parser | None) -> type[ProjectConfig]:
    """The model of the whole file: the core's keys plus every plugin's settings and sections.
    A plugin key that is also a core key is an error naming the plugin."""
    if parser is None or not (parser.settings or parser.sections):
        return ProjectConfig
    from pydantic import create_model

    fields: dict[str, Any] = {}
    for name, setting in parser.settings.items():
        fields[name] = (setting.type, setting.default)
    for name, section in parser.sections.items():
        fields[name] = (section.model | None, None)
    taken = sorted(set(fields) & set(ProjectConfig.model_fields))
    if taken:
        owners = {
            **{n: s.owner for n, s in parser.settings.items()},
            **{n: s.owner for n, s in parser.sections.items()},
        }
        raise UsageError(
            "; ".join(
                f"{owners[name]} declares trailblaze.yaml key {name!r}, which is trailblaze's own" for name in taken
            )
        )
    model: type[ProjectConfig] = create_model("TrailblazeYaml", __base__=ProjectConfig, **fields)
    return model
