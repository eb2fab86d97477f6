from __future__ import annotations

import asyncio
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, Secret, SecretBytes, SecretStr, WithJsonSchema

import trailblaze
from trailblaze.tools.authoring import spec_of
from trailblaze.tools.model import Delegate, ToolArgumentError, ToolContext, ToolOutcome


class Point(BaseModel):
    x: int
    y: int


@trailblaze.tool(name="demo_move", platforms=["web"], groups=["demo"], recordable=False)
async def move(ctx: trailblaze.ToolContext, to: Point, speed: Literal["slow", "fast"] = "slow") -> dict[str, int]:
    """Move somewhere.

    More words that are still part of the description."""
    return {"x": to.x, "y": to.y}


def test_schema_comes_from_the_signature_without_the_context() -> None:
    spec = spec_of(move)
    assert spec is not None
    schema = spec.input_schema
    assert set(schema["properties"]) == {"to", "speed"}
    assert schema["required"] == ["to"]
    assert schema["properties"]["speed"]["enum"] == ["slow", "fast"]
    assert schema["additionalProperties"] is False
    assert spec.description.startswith("Move somewhere.\n\nMore words")
    assert spec.metadata.platforms == frozenset({"web"})
    assert (spec.metadata.recordable, spec.metadata.delegating, spec.metadata.groups) == (False, False, ("demo",))


def test_the_decorated_function_stays_callable() -> None:
    assert asyncio.run(move(None, Point(x=1, y=2))) == {"x": 1, "y": 2}  # type: ignore[arg-type]


def test_arguments_are_validated_with_field_level_problems() -> None:
    spec = spec_of(move)
    assert spec is not None
    with pytest.raises(ToolArgumentError) as info:
        spec.validate({"to": {"x": "a"}, "sped": 1, "reason": "ignored"})
    assert info.value.problems == [
        ("to.x", "input should be a valid integer, unable to parse string as an integer"),
        ("to.y", "required"),
        ("sped", "unknown argument"),
    ]


def test_description_argument_wins_and_name_defaults_to_the_function() -> None:
    @trailblaze.tool(description="Explicit.")
    def plain_tool() -> None:
        """Docstring."""

    spec = spec_of(plain_tool)
    assert spec is not None and (spec.name, spec.description) == ("plain_tool", "Explicit.")


def test_secret_parameters_are_marked() -> None:
    @trailblaze.tool()
    def login(user: str, password: SecretStr) -> None:
        """Log in."""

    spec = spec_of(login)
    assert spec is not None and spec.secret_fields == frozenset({"password"})


def test_optional_annotated_and_generic_secrets_are_marked_too() -> None:
    @trailblaze.tool()
    def sign_in(
        user: str,
        token: Annotated[SecretBytes, Field(description="the token")],
        otp: SecretStr | None = None,
        pin: Secret[int] | None = None,
    ) -> None:
        """Sign in."""

    spec = spec_of(sign_in)
    assert spec is not None and spec.secret_fields == frozenset({"otp", "token", "pin"})


def test_a_parameter_whose_own_schema_says_secret_is_marked() -> None:
    @trailblaze.tool()
    def sign_in(
        user: Annotated[str, Field(description="who")],
        key: Annotated[str, Field(json_schema_extra={"writeOnly": True})],
        code: Annotated[str, WithJsonSchema({"type": "string", "format": "password"})],
        note: str = Field("", json_schema_extra={"examples": ["hi"]}),
    ) -> None:
        """Sign in."""

    spec = spec_of(sign_in)
    assert spec is not None and spec.secret_fields == frozenset({"key", "code"})


def test_delegating_tools_are_never_recordable_themselves() -> None:
    @trailblaze.tool(delegating=True)
    def outer() -> list[Delegate]:
        return [Delegate("inner", {"a": 1}), {"tool": "other", "args": {}}]  # type: ignore[list-item]

    spec = spec_of(outer)
    assert spec is not None and spec.metadata.recordable is False
    outcome: ToolOutcome = asyncio.run(spec.implementation.invoke(None, {}))  # type: ignore[arg-type]
    assert outcome.delegates == [Delegate("inner", {"a": 1}), Delegate("other", {})]


def test_bad_returns_are_explained() -> None:
    @trailblaze.tool(delegating=True)
    def wrong() -> object:
        return [{"tool_name": "x"}]

    @trailblaze.tool()
    def sneaky() -> list[Delegate]:
        return [Delegate("x")]

    for fn, message in ((wrong, "expected trailblaze.Delegate"), (sneaky, "not declared with delegating=True")):
        spec = spec_of(fn)
        assert spec is not None
        with pytest.raises(TypeError, match=message):
            asyncio.run(spec.implementation.invoke(None, {}))  # type: ignore[arg-type]


def test_var_args_cannot_describe_a_tool() -> None:
    @trailblaze.tool()
    def anything(**kwargs: object) -> None: ...

    with pytest.raises(TypeError, match=r"tool 'anything': \*args/\*\*kwargs cannot describe a tool's input"):
        spec_of(anything)  # specs are built when first needed (at registration), not at import


def test_context_is_injected_by_annotation_or_by_the_name_ctx() -> None:
    seen: list[object] = []

    @trailblaze.tool()
    async def by_name(ctx, value: int) -> None:  # type: ignore[no-untyped-def]
        seen.append(ctx)

    @trailblaze.tool()
    async def by_type(value: int, context: ToolContext) -> None:
        seen.append(context)

    for fn in (by_name, by_type):
        spec = spec_of(fn)
        assert spec is not None and list(spec.input_schema["properties"]) == ["value"]
        asyncio.run(spec.implementation.invoke("CTX", {"value": 1}))  # type: ignore[arg-type]
    assert seen == ["CTX", "CTX"]
