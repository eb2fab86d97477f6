"""Tools defined in YAML (trailblaze/tools/yamltool.py): upstream's ``*.tool.yaml`` files, with
parameters, run as delegating tools through the real engine."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest

from tests.support.cli import CliRunner, Project
from tests.support.project import make_project, run, write
from trailblaze.core.errors import ErrorList
from trailblaze.tools.yamlcompose import composed_spec, fill
from trailblaze.tools.yamltool import OMIT, load_tool_file

#: upstream's eraseText.tool.yaml, byte for byte in shape (trailblaze-common/…/trailblaze/tools/)
ERASE_TEXT = """
id: eraseText
description: |
  Erases characters from the currently focused text field.
parameters:
  - name: charactersToErase
    type: integer
    required: false
    description: >
      Number of characters to erase from the end.
tools:
  - mobile_maestro:
      commands:
        - eraseText:
            charactersToErase: "{{params.charactersToErase}}"
"""

FILL_FORM = """
id: sample_fillName
description: Type a name into the contact form and submit it.
parameters:
  - name: name
    type: string
    required: true
    description: Who is writing
  - name: submit
    type: boolean
    required: false
    default: true
tools:
  - web_type:
      text: "{{params.name}}"
      nodeSelector: {web: {dataTestId: name-input}}
  - web_click:
      nodeSelector: {web: {cssSelector: "#submit"}}
"""


def _declaration(tmp_path: Path, text: str, name: str = "t.tool.yaml"):  # type: ignore[no-untyped-def]
    path = write(tmp_path, name, text)
    loaded = load_tool_file(path)
    assert loaded.problems == []
    return loaded.declarations[0]


def test_upstreams_erase_text_file_loads_as_a_delegating_tool(tmp_path: Path) -> None:
    spec = composed_spec(_declaration(tmp_path, ERASE_TEXT))
    assert spec.name == "eraseText"
    assert spec.metadata.delegating and not spec.metadata.recordable and spec.metadata.exposed_to_llm
    assert spec.input_schema["properties"]["charactersToErase"]["anyOf"][0] == {"type": "integer"}
    assert "required" not in spec.input_schema
    outcome = asyncio.run(spec.implementation.invoke(None, {"charactersToErase": 3}))  # type: ignore[arg-type]
    assert [(d.tool, d.args) for d in outcome.delegates or []] == [
        ("mobile_maestro", {"commands": [{"eraseText": {"charactersToErase": 3}}]})
    ]
    # omitted (or null) optional parameter without a default: its key is dropped, as upstream
    for args in ({}, {"charactersToErase": None}):
        outcome = asyncio.run(spec.implementation.invoke(None, args))  # type: ignore[arg-type]
        assert [(d.tool, d.args) for d in outcome.delegates or []] == [
            ("mobile_maestro", {"commands": [{"eraseText": {}}]})
        ]


def test_tokens_keep_their_type_when_whole_and_splice_as_text_inside() -> None:
    values = {"n": 5, "flag": False, "who": "Ada", "gone": OMIT, "obj": {"a": [1]}}
    assert fill("{{params.n}}", values) == 5
    assert fill("{{ params.obj }}", values) == {"a": [1]}
    assert fill("x{{params.n}}-{{params.flag}}-{{params.who}}{{params.gone}}", values) == "x5-false-Ada"
    assert fill({"keep": "{{params.who}}", "drop": "{{params.gone}}", "list": ["{{params.gone}}", 1]}, values) == {
        "keep": "Ada",
        "list": [1],
    }
    assert fill("{{memory.total}} and {{params.who}}", values) == "{{memory.total}} and Ada"


def test_parameters_are_validated_like_any_tool(tmp_path: Path) -> None:
    spec = composed_spec(_declaration(tmp_path, FILL_FORM))
    assert spec.input_schema["required"] == ["name"]
    from trailblaze.tools.model import ToolArgumentError

    with pytest.raises(ToolArgumentError, match=r"name: required"):
        spec.validate({})
    with pytest.raises(ToolArgumentError, match=r"nme: unknown argument"):
        spec.validate({"name": "x", "nme": "y"})
    with pytest.raises(ToolArgumentError, match=r"submit: input should be a valid boolean"):
        spec.validate({"name": "x", "submit": "maybe"})
    spec.validate({"name": "x", "reason": "why the agent chose it"})


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (
            "id: x\ndescription: d\ntools:\n  - web_wait: {seconds: '{{params.n}}'}\n",
            "4:25",
            "{{params.n}} names no parameter (parameters: none are declared)",
        ),
        (
            "id: x\ndescription: d\ntools:\n  - web_wait: {seconds: '{{device.n}}'}\n",
            "4:25",
            "{{device.n}}: tool files fill in {{params.NAME}}",
        ),
        ("id: x\nclass: a.B\ntools: []\n", "1:1", "declares both 'class:' and 'tools:'"),
        ("id: x\ntools: []\n", "1:1", "uses 'tools:' and must declare a 'description:'"),
        ("id: x\nclass: a.B\ndescription: d\n", "1:1", "uses 'class:'; description come from the implementation"),
        (
            "id: x\ndescription: d\nparameters:\n  - {name: a, type: string}\n  - {name: a, type: string}\ntools: []\n",
            "1:1",
            "declares parameter(s) a twice",
        ),
        (
            "id: x\ndescription: d\nparameters:\n  - {name: a.b, type: string}\ntools: []\n",
            "4:12",
            "parameters.0.name: 'a.b' is not a parameter name",
        ),
        (
            "id: x\ndescription: d\nparameters:\n  - {name: a, type: text}\ntools: []\n",
            "4:21",
            "parameters.0.type: unknown type 'text'",
        ),
        ("id: x\ndescription: d\ntools:\n  - web_wait\n", "4:5", "each entry of 'tools:' is one call"),
        ("id: x\ndescription: d\nsurface_to_llm: yes\ntools: []\n", "3:17", "surface_to_llm: input should be"),
        ("id: x\ndescription: d\ntool: []\n", "3:1", "tool: unknown key"),
        ("id: x\nclas: a.B\n", "2:1", "clas: unknown key (did you mean 'class'? expected one of: class, "),
        ("id: x\n", "1:1", "declares neither 'class:' nor 'tools:'"),
    ],
)
def test_bad_tool_files_are_reported_with_their_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    path = write(tmp_path, "bad.tool.yaml", text)
    loaded = load_tool_file(path)
    assert len(loaded.problems) == 1, [str(p) for p in loaded.problems]
    assert str(loaded.problems[0]).startswith(f"{path}:{where}: {message}"), str(loaded.problems[0])


def test_a_delegate_naming_no_tool_fails_at_load_with_its_line(tmp_path: Path) -> None:
    write(tmp_path, "tools/x.tool.yaml", "id: x\ndescription: d\ntools:\n  - web_clik: {}\n")
    with pytest.raises(ErrorList) as caught:
        _ = make_project(tmp_path, "tools: [tools]\n").tools
    assert str(caught.value) == (
        f"{tmp_path / 'tools/x.tool.yaml'}:4:15: x calls unknown tool 'web_clik'; did you mean 'web_click'?"
    )


def test_registry_metadata_of_yaml_tools(cli: CliRunner, project: Project) -> None:
    project.write(
        "trailblaze.yaml",
        "tools:\n  - tools\n  - id: sample_back\n    description: Go back twice.\n"
        "    surface_to_llm: false\n    is_verification: true\n    tools:\n      - pressBack: {}\n"
        "      - pressBack: {}\n",
    )
    project.write("tools/fill.tool.yaml", FILL_FORM)
    listed = cli("tools", "--json")
    assert listed.returncode == 0, listed.output
    tools = {t["name"]: t for t in json.loads(listed.stdout)}
    fill_form = tools["sample_fillName"]
    assert fill_form["source"] == "yaml:tools/fill.tool.yaml"
    assert (fill_form["isDelegating"], fill_form["isRecordable"], fill_form["exposedToLlm"]) == (True, False, True)
    assert fill_form["platforms"] == ["web"]  # where web_type and web_click are
    assert fill_form["description"] == "Type a name into the contact form and submit it."
    assert fill_form["inputSchema"]["properties"]["name"] == {
        "description": "Who is writing",
        "title": "Name",
        "type": "string",
    }
    back = tools["sample_back"]
    assert (back["exposedToLlm"], back["isVerification"], back["platforms"]) == (False, True, ["android", "ios"])
    assert back["source"] == "yaml:trailblaze.yaml"
    web = {t["name"] for t in json.loads(cli("tools", "--json", "--driver", "web").stdout)}
    assert "sample_fillName" in web and "sample_back" not in web


@pytest.mark.browser
def test_a_yaml_tool_with_params_runs_and_records_its_delegates(cli: CliRunner, project: Project, browser: str) -> None:
    project.write("trailblaze.yaml", f"base_url: sample-app\ntimeout: 5\nbrowser: {browser}\ntools: [tools]\n")
    project.write("tools/fill.tool.yaml", FILL_FORM)
    project.trail(
        "fill",
        """
        trail:
          - step: Open the form
            recording:
              web: [{web_navigate: {url: /forms.html}}]
          - step: Fill it in with a tool written in YAML
            recording:
              web:
                - sample_fillName: {name: Ada Lovelace}
          - verify: Submitted
            recording:
              web:
                - web_verifyTextVisible: {text: "Name: Ada Lovelace"}
        """,
    )
    result = cli("run", "--json", "results.json")
    assert result.returncode == 0, result.output
    step = result.json()["trails"][0]["steps"][1]
    assert [(t["name"], t["args"], t["delegated_from"], t["recordable"]) for t in step["tools"]] == [
        (
            "web_type",
            {"text": "Ada Lovelace", "nodeSelector": {"web": {"dataTestId": "name-input"}}},
            ["sample_fillName"],
            True,
        ),
        ("web_click", {"nodeSelector": {"web": {"cssSelector": "#submit"}}}, ["sample_fillName"], True),
    ]


def test_is_recordable_false_keeps_the_delegates_out_of_recordings(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tools/quiet.tool.yaml",
        """
        id: quiet_type
        description: Type without being recorded.
        is_recordable: false
        parameters: [{name: text, type: string}]
        tools:
          - null_type: {text: "{{params.text}}"}
        """,
    )
    write(
        tmp_path,
        "trails/t.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      test:\n"
        "        - quiet_type: {text: hi}\n        - null_type: {text: there}\n",
    )
    result = run(make_project(tmp_path, "driver: null-test\ntools: [tools]\n"))
    tools = result.trails[0].steps[0].tools
    assert [(t.name, t.args, t.delegated_from, t.recordable) for t in tools] == [
        ("null_type", {"text": "hi"}, ["quiet_type"], False),
        ("null_type", {"text": "there"}, [], True),
    ]


def test_class_mode_names_a_python_tool_or_an_upstream_class(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "tools: [tools]\n")
    # upstream's own declaration of a tool this project implements: accepted, changes nothing
    project.write("tools/tap.tool.yaml", "id: tapOnPoint\nclass: xyz.block.trailblaze.toolcalls.commands.TapOnPoint\n")
    project.write("tools/kotlin.tool.yaml", "id: acme_magic\nclass: com.acme.MagicTrailblazeTool\n")
    project.write("tools/py.tool.yaml", "id: dumpMemory\nclass: trailblaze.tools.coretools:dump_memory\n")
    project.trail(
        "t",
        "trail:\n  - step: s\n    recording:\n      android:\n        - tapOnPoint: {x: 1, y: 2}\n"
        "        - acme_magic: {}\n",
    )
    result = cli("validate")
    assert result.returncode == 3
    assert result.output.strip().splitlines() == [
        "error: trails/t.trail.yaml:6:11: acme_magic is implemented upstream by com.acme.MagicTrailblazeTool, "
        "which this project does not have",
    ]
    project.write("tools/py.tool.yaml", "id: dumpMemory\nclass: trailblaze.tools.coretools:dump_memry\n")
    broken = cli("validate")
    assert broken.returncode == 3
    assert "tools/py.tool.yaml:2:8: class: trailblaze.tools.coretools:dump_memry:" in broken.output


def test_a_yaml_tool_named_like_another_tool_is_an_error_naming_both(tmp_path: Path) -> None:
    write(tmp_path, "tools/w.tool.yaml", "id: wait\ndescription: d\ntools: [{dumpMemory: {}}]\n")
    with pytest.raises(
        ErrorList,
        match=r"w.tool.yaml:1:5: tool 'wait' is registered twice: by core_tools and by "
        r"yaml:tools/w.tool.yaml",
    ):
        _ = make_project(tmp_path, "tools: [tools]\n").tools


def _dedent(text: str) -> str:
    return textwrap.dedent(text)


def test_calls_a_composition_cannot_make_are_reported_where_a_trail_uses_it(cli: CliRunner, project: Project) -> None:
    """Wrong arguments for a delegate and delegation cycles are found from the tool file, and
    reported (validate and run alike, exit 3) at the trail's call with the tool file's line; a
    trail that does not call them is not held up (upstream's workspaces ship such files)."""
    project.write("trailblaze.yaml", "base_url: sample-app\ntools: [tools]\n")
    project.write(
        "tools/bad.tool.yaml",
        "id: t_bad\ndescription: d\nparameters:\n  - {name: a, type: string}\n"
        'tools:\n  - web_verifyTextVisible: {txt: "{{params.a}}"}\n',
    )
    project.write("tools/typed.tool.yaml", "id: t_typed\ndescription: d\ntools:\n  - web_wait: {seconds: soon}\n")
    project.write(
        "tools/templated.tool.yaml",  # a value only known when called: not judged by its type
        "id: t_templated\ndescription: d\nparameters:\n  - {name: s, type: string}\n"
        'tools:\n  - web_wait: {seconds: "{{params.s}}"}\n',
    )
    project.write("tools/outer.tool.yaml", "id: t_outer\ndescription: d\ntools:\n  - t_bad: {a: x}\n")
    project.write("tools/ping.tool.yaml", "id: t_ping\ndescription: d\ntools:\n  - t_pong: {}\n")
    project.write("tools/pong.tool.yaml", "id: t_pong\ndescription: d\ntools:\n  - t_ping: {}\n")
    project.trail("fine", "trail:\n  - step: s\n    recording:\n      web:\n        - t_templated: {s: '0'}\n")
    assert cli("validate", "trails/fine.trail.yaml").returncode == 0
    calls = "".join(f"        - {name}: {{}}\n" for name in ("t_bad", "t_typed", "t_outer", "t_ping"))
    project.trail("broken", "trail:\n  - step: s\n    recording:\n      web:\n" + calls)
    for command in ("validate", "run"):
        result = cli(command, "trails/broken.trail.yaml")
        assert result.returncode == 3, result.output
        lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
        assert lines == [
            "error: trails/broken.trail.yaml:5:11: t_bad calls web_verifyTextVisible with invalid arguments: "
            f"text: required; txt: unknown argument ({project.root / 'tools/bad.tool.yaml'}:6:28)",
            "error: trails/broken.trail.yaml:6:11: t_typed calls web_wait with invalid arguments: "
            f"seconds: input should be a valid number, unable to parse string as a number "
            f"({project.root / 'tools/typed.tool.yaml'}:4:15)",
            "error: trails/broken.trail.yaml:7:11: t_outer calls t_bad, which calls web_verifyTextVisible with "
            f"invalid arguments: text: required; txt: unknown argument ({project.root / 'tools/bad.tool.yaml'}:6:28)",
            "error: trails/broken.trail.yaml:8:11: t_ping is in a delegation cycle, t_ping → t_pong → t_ping, "
            f"which never ends ({project.root / 'tools/ping.tool.yaml'}:4:5)",
        ], result.stderr


def test_a_composition_builds_its_model_only_when_first_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A composition's pydantic model and JSON Schema are built when a call is validated or its
    schema is read (issue 24's lazy registry), not when trailblaze.yaml's ``tools:`` registers it."""
    from trailblaze.tools import yamlcompose

    built: list[str] = []
    real = yamlcompose._arguments_model

    def counted(tool_file):  # type: ignore[no-untyped-def]
        built.append(tool_file.id)
        return real(tool_file)

    monkeypatch.setattr(yamlcompose, "_arguments_model", counted)
    for name in ("called", "idle"):
        write(
            tmp_path,
            f"tools/{name}.tool.yaml",
            f"id: {name}_type\ndescription: Type.\nparameters: [{{name: text, type: string}}]\ntools:\n"
            '  - null_type: {text: "{{params.text}}"}\n',
        )
    write(
        tmp_path,
        "trails/t.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      test:\n        - called_type: {text: hi}\n",
    )
    project = make_project(tmp_path, "driver: null-test\ntools: [tools]\n")
    assert run(project).exit_code == 0
    assert built == ["called_type"]  # checked and run: built once, for the tool the trail calls
    assert project.tools.require("idle_type").input_schema["required"] == ["text"]
    assert built == ["called_type", "idle_type"]
