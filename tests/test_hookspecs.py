"""Keep the plugin contract honest: every hook is typed, documented, tested and in the README."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from trailblaze import hookspecs

ROOT = Path(__file__).resolve().parents[1]
HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("trailblaze_"))


def test_there_are_hooks() -> None:
    assert len(HOOKS) >= 18


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_typed_and_documented(name: str) -> None:
    fn = getattr(hookspecs, name)
    signature = inspect.signature(fn)
    for param in signature.parameters.values():
        assert param.annotation is not inspect.Parameter.empty, f"{name}({param.name}) has no type"
    assert signature.return_annotation is not inspect.Signature.empty, f"{name} has no return type"
    doc = inspect.getdoc(fn) or ""
    assert doc.startswith("Called") or "called" in doc.split(".")[0].lower(), f"{name}: say when it is called"
    assert "return" in doc.lower() or "None" in doc, f"{name}: say what to return and what None means"
    for param in signature.parameters:
        assert f"``{param}``" in doc or param in doc, f"{name}: document the parameter {param}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_test(name: str) -> None:
    users = [
        path
        for path in (ROOT / "tests").rglob("test_*.py")
        if path.name != "test_hookspecs.py" and name in path.read_text(encoding="utf-8")
    ]
    assert users, f"no test uses {name}"


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_in_the_readme(name: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stem = name.rsplit("_", 1)[0]
    assert name in readme or (stem in readme and name.rsplit("_", 1)[1] in readme), f"README does not mention {name}"
