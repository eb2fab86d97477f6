"""The hook reference shows every hook of `trailblaze/hookspecs.py` with its real signature:
the page's `def` lines are read back with `ast` and compared, parameter by parameter, with what
`inspect` says of each hook specification."""

from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Iterator

import pytest

import trailblaze.hookspecs
from tests.docs.snippets import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "docs"))
import hook_reference  # the page's generator, a script of the docs build

HOOKS = sorted(
    n for n, f in vars(trailblaze.hookspecs).items() if n.startswith("trailblaze_") and inspect.isfunction(f)
)


def shown_signatures(page: str) -> Iterator[ast.FunctionDef]:
    for block in re.findall(r"```python\n(.*?)```", page, re.DOTALL):
        for node in ast.parse(block).body:
            if isinstance(node, ast.FunctionDef):
                yield node


def source(annotation: object) -> str:
    """An annotation as normalized source text (it is a string under ``from __future__ import
    annotations``)."""
    return ast.unparse(ast.parse(str(annotation), mode="eval"))


@pytest.fixture(scope="module")
def shown() -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in shown_signatures(hook_reference.page(trailblaze.hookspecs))}


def test_every_hook_is_shown_once(shown: dict[str, ast.FunctionDef]) -> None:
    assert sorted(shown) == HOOKS


@pytest.mark.parametrize("name", HOOKS)
def test_each_hook_has_its_real_signature(name: str, shown: dict[str, ast.FunctionDef]) -> None:
    real = inspect.signature(getattr(trailblaze.hookspecs, name))
    node = shown[name]
    assert [a.arg for a in node.args.args] == list(real.parameters)
    for arg, param in zip(node.args.args, real.parameters.values(), strict=True):
        assert arg.annotation is not None and ast.unparse(arg.annotation) == source(param.annotation), (name, arg.arg)
    assert node.returns is not None and ast.unparse(node.returns) == source(real.return_annotation), name


def test_each_hook_has_its_docstring_and_calling_rule() -> None:
    page = hook_reference.page(trailblaze.hookspecs)
    for name in HOOKS:
        section = page.split(f"### {name}\n", 1)[1].split("\n### ", 1)[0]
        first_words = " ".join((inspect.getdoc(getattr(trailblaze.hookspecs, name)) or "").split()[:6])
        assert first_words and first_words.replace("``", "`") in " ".join(section.split()), name
        options = getattr(trailblaze.hookspecs, name).trailblaze_spec
        assert ("First result wins" in section) == bool(options.get("firstresult")), name
        assert ("**Historic**" in section) == bool(options.get("historic")), name
