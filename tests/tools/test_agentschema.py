"""Tools as an agent's LLM sees them: compact schemas, text arguments, LLM-safe names."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from trailblaze.pluginmanager import get_plugin_manager
from trailblaze.project.config import Config, ProjectConfig
from trailblaze.runner.project import Project
from trailblaze.tools.agentschema import AGENT_NAME, MCP_NAME, AgentNames, agent_schema, parse_json_arguments
from trailblaze.tools.authoring import spec_of, tool
from trailblaze.tools.model import ToolSpec

PLATFORMS = {"web": "playwright-native", "android": "android-uiautomator2", "ios": "ios-wda"}


def builtin_tools(platform: str) -> list[ToolSpec]:
    registry = Project(Config(ProjectConfig(), None), get_plugin_manager(autoload=False)).tools
    return [spec for spec in registry.for_device(PLATFORMS[platform], platform) if spec.metadata.exposed_to_llm]


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_every_parameter_of_a_builtin_tool_offered_to_agents_is_described(platform: str) -> None:
    """What `trailblaze tools --json` and `trailblaze schema` print, and what agents read."""
    undescribed = [
        f"{spec.name}.{name}"
        for spec in builtin_tools(platform)
        for name, prop in spec.input_schema.get("properties", {}).items()
        if not str(prop.get("description") or "").strip()
    ]
    assert undescribed == []


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_offered_schemas_have_a_top_level_type_and_no_null_branches(platform: str) -> None:
    for spec in builtin_tools(platform):
        schema = agent_schema(spec.input_schema, platform)
        text = json.dumps(schema)
        assert '"null"' not in text and "$ref" not in text and '"title"' not in text, spec.name
        for name, prop in schema["properties"].items():
            kinds = {prop.get("type"), *(branch.get("type") for branch in prop.get("anyOf", []))}
            if kinds & {"object", "array"}:  # clients decide from the top-level type to send JSON, not text
                assert prop.get("type") in ("object", "array") and "anyOf" not in prop, (spec.name, name)
            assert prop.get("description"), (spec.name, name)


def test_a_selector_is_one_line_naming_only_the_platforms_matchers() -> None:
    click = next(s for s in builtin_tools("web") if s.name == "web_click")
    web = agent_schema(click.input_schema, "web")["properties"]["nodeSelector"]
    assert web["type"] == "object" and "properties" not in web
    assert '{"web": {ariaRole, ariaNameRegex' in web["description"] and "androidAccessibility" not in web["description"]
    assert "containsChild" in web["description"]
    tap_on = next(s for s in builtin_tools("android") if s.name == "scrollUntilTextIsVisible")
    assert "nodeSelector" not in agent_schema(tap_on.input_schema, "android")["properties"]
    remember = next(s for s in builtin_tools("android") if s.name == "rememberText")
    android = agent_schema(remember.input_schema, "android")["properties"]["nodeSelector"]["description"]
    assert '{"androidAccessibility": {classNameRegex' in android and '"androidMaestro"' in android
    assert '"web"' not in android and "iosMaestro" not in android
    # compact: the whole web_click costs a fraction of its full schema
    assert len(json.dumps(agent_schema(click.input_schema, "web"))) * 10 < len(json.dumps(click.input_schema))


class Address(BaseModel):
    street: Annotated[str, Field(description="The street")]
    city: Annotated[str | None, Field(description="The city")] = None


class Tree(BaseModel):
    label: str
    children: list[Tree] | None = None


def test_a_plugins_own_models_are_inlined_and_a_recursive_one_stays_finite() -> None:
    @tool(name="ship")
    def ship(address: Address | None = None, tree: Tree | None = None, tags: list[str] | None = None) -> str:
        """Ship it."""
        return "ok"

    spec = spec_of(ship)
    assert spec is not None
    schema = agent_schema(spec.input_schema)
    assert schema["properties"]["address"] == {
        "type": "object",
        "properties": {
            "street": {"type": "string", "description": "The street"},
            "city": {"type": "string", "description": "The city"},
        },
        "required": ["street"],
    }
    assert schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}
    tree = schema["properties"]["tree"]
    assert tree["type"] == "object" and tree["properties"]["children"]["items"]["type"] == "object"
    assert "required" not in schema  # every parameter is optional: none is required


def test_json_text_for_an_object_or_array_parameter_is_parsed() -> None:
    click = next(s for s in builtin_tools("web") if s.name == "web_click")
    selected = next(s for s in builtin_tools("web") if s.name == "web_selectOption")
    typed = next(s for s in builtin_tools("web") if s.name == "web_type")
    selector = '{"web": {"cssSelector": "#go"}}'
    assert parse_json_arguments(click.input_schema, {"nodeSelector": selector}) == {
        "nodeSelector": {"web": {"cssSelector": "#go"}}
    }
    assert parse_json_arguments(selected.input_schema, {"values": '["Pro"]'}) == {"values": ["Pro"]}
    # text stays text where the parameter takes text; what is not JSON is left for validation to judge
    assert parse_json_arguments(typed.input_schema, {"text": selector}) == {"text": selector}
    assert parse_json_arguments(click.input_schema, {"nodeSelector": "{web: x"}) == {"nodeSelector": "{web: x"}
    assert parse_json_arguments(click.input_schema, {"nodeSelector": "[1]"}) == {"nodeSelector": "[1]"}
    assert parse_json_arguments(click.input_schema, {"ref": "e1", "other": "{}"}) == {"ref": "e1", "other": "{}"}
    deep = "[" * 100_000  # json.loads recursed until Python's limit: now it is text, for validation to judge
    assert parse_json_arguments(selected.input_schema, {"values": deep}) == {"values": deep}


def test_names_llm_apis_refuse_are_offered_sanitized_and_map_back() -> None:
    long = "x" * 100
    names = AgentNames(["web_click", "bank.signIn", "bank_signIn", "a b", long, "ok-name"])
    assert names.offered("web_click") == "web_click" and names.offered("ok-name") == "ok-name"
    assert names.offered("bank_signIn") == "bank_signIn"
    clashed = names.offered("bank.signIn")
    assert clashed.startswith("bank_signIn_") and len(clashed) == len("bank_signIn_") + 6
    assert names.offered("a b") == "a_b"
    assert len(names.offered(long)) == 64 and names.offered(long).startswith("x" * 57 + "_")
    for original in ("web_click", "bank.signIn", "bank_signIn", "a b", long, "ok-name"):
        assert names.tool(names.offered(original)) == original
    assert names.tool("bank.signIn") == "bank.signIn"  # the tool's own name is understood too


@given(st.lists(st.from_regex(MCP_NAME, fullmatch=True), max_size=12))
def test_every_offered_name_fits_llm_apis_and_means_one_tool(tools: list[str]) -> None:
    names = AgentNames(tools)
    offered = {name: names.offered(name) for name in set(tools)}
    assert all(AGENT_NAME.match(alias) for alias in offered.values())
    assert len(set(offered.values())) == len(offered)
    assert all(names.tool(alias) == name for name, alias in offered.items())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.sampled_from(["nodeSelector", "values", "text", "ref", "other"]), json_values | st.text()))
def test_reading_json_text_keeps_every_argument_and_changes_only_object_and_array_text(
    arguments: dict[str, object],
) -> None:
    select = next(s for s in builtin_tools("web") if s.name == "web_selectOption")
    read = parse_json_arguments(select.input_schema, arguments)
    assert read.keys() == arguments.keys()
    for key, value in arguments.items():
        if read[key] is not value:
            assert key in ("nodeSelector", "values") and isinstance(value, str)
            assert read[key] == json.loads(value) and isinstance(read[key], dict if key == "nodeSelector" else list)
