"""The hook reference, made from ``trailblaze/hookspecs.py``: every hook in the order and
sections of the file, with its real signature (from :func:`inspect.signature`), how pluggy
calls it, and its docstring."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

from schema_text import prose

#: a section comment of hookspecs.py: ``# -- start-up and registration ----``
SECTION = re.compile(r"^# -- (.+?) -+$")
#: the width past which a signature is written one parameter a line
WIDTH = 80


def hooks(module: ModuleType) -> list[tuple[str, Callable[..., Any]]]:
    """The hook specifications of ``module`` (its ``trailblaze_*`` functions), in file order."""
    found = [
        (name, fn)
        for name, fn in vars(module).items()
        if name.startswith("trailblaze_") and inspect.isfunction(fn) and fn.__module__ == module.__name__
    ]
    return sorted(found, key=lambda item: item[1].__code__.co_firstlineno)


def signature(name: str, fn: Callable[..., Any]) -> str:
    """``def name(param: Annotation, …) -> Return``, as written in the hook specification."""
    sig = inspect.signature(fn)
    params = []
    for param in sig.parameters.values():
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f": {annotation(param.annotation)}"
        if param.default is not inspect.Parameter.empty:
            text += f" = {param.default!r}"
        params.append(text)
    returns = "" if sig.return_annotation is inspect.Signature.empty else f" -> {annotation(sig.return_annotation)}"
    one_line = f"def {name}({', '.join(params)}){returns}: ..."
    if len(one_line) <= WIDTH:
        return one_line
    body = "".join(f"    {p},\n" for p in params)
    return f"def {name}(\n{body}){returns}: ..."


def annotation(value: Any) -> str:
    """An annotation as its source text (the module uses ``from __future__ import annotations``)."""
    return value if isinstance(value, str) else inspect.formatannotation(value)


def calling(fn: Callable[..., Any]) -> str:
    options = getattr(fn, "trailblaze_spec", {}) or {}
    notes = []
    if options.get("firstresult"):
        notes.append("**First result wins**: the call stops at the first implementation that returns something.")
    if options.get("historic"):
        notes.append("**Historic**: a plugin registered later is called too.")
    return " ".join(notes)


def sections(module: ModuleType) -> dict[int, str]:
    """The section titles of the module's source, by the line they stand on."""
    source = inspect.getsource(module).splitlines()
    return {number: m[1] for number, line in enumerate(source, 1) if (m := SECTION.match(line))}


def page(module: ModuleType) -> str:
    titles = sections(module)
    parts = [
        "# Hook reference",
        "",
        "Every hook a plugin can implement, as `trailblaze/hookspecs.py` declares it; this page is",
        "made from that file when the site is built. Implement one with `@trailblaze.hookimpl` on a",
        "function of the same name; it may take only the parameters it needs. See",
        "[Writing plugins](plugins.md) for how a plugin is made and loaded.",
        "",
        prose(inspect.getdoc(module) or ""),
        "",
    ]
    line = 0
    for name, fn in hooks(module):
        start = fn.__code__.co_firstlineno
        for title_line in sorted(n for n in titles if line < n < start):
            parts += [f"## {titles[title_line][0].upper()}{titles[title_line][1:]}", ""]
        line = start
        parts += [f"### {name}", "", "```python", signature(name, fn), "```", ""]
        note = calling(fn)
        if note:
            parts += [note, ""]
        parts += [prose(inspect.getdoc(fn) or ""), ""]
    return "\n".join(parts)
