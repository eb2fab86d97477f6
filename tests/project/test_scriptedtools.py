"""A trailmap's scripted tools found and described (trailblaze/project/scriptedtools.py): which files may
hold tools, upstream's descriptors, the description cache, and what describe finds wrong."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import CliRunner
from tests.support.project import write
from trailblaze.core.errors import TrailblazeError
from trailblaze.project.scriptedtools import CACHE_FOLDER, PACKAGED_SDK, _cached, read_folder, script_files

SDK_CLI = PACKAGED_SDK / "dist" / "cli.js"  # what the wheel carries (`make sdk` makes it)


@pytest.fixture(autouse=True)
def _sdk_built() -> None:
    if not SDK_CLI.is_file():
        pytest.fail("the TypeScript SDK is not built: run `make sdk` (or `make peers`)")


def test_which_files_of_a_tools_folder_may_hold_tools(tmp_path: Path) -> None:
    for name in (
        "shop_launch.ts",
        "shop_more.js",
        "shop_shared.ts",
        "_example.ts",
        "shop_launch.test.ts",
        "trailblaze-client.d.ts",
        "shop_open.tool.yaml",
        "tsconfig.json",
    ):
        write(tmp_path, name, "export {};\n")
    assert [p.name for p in script_files(tmp_path)] == ["shop_launch.ts", "shop_more.js"]
    assert script_files(tmp_path / "nowhere") == []


def test_a_tool_file_that_cannot_be_read_is_a_problem_at_its_path(tmp_path: Path) -> None:
    write(tmp_path, "shop_ok.ts", "export {};\n")
    (tmp_path / "shop_gone.ts").symlink_to(tmp_path / "nowhere.ts")
    os.mkfifo(tmp_path / "shop_pipe.ts")  # never opened: reading it would wait for a writer
    problems: list[TrailblazeError] = []
    assert [p.name for p in script_files(tmp_path, problems)] == ["shop_ok.ts"]
    assert [(e.location.path if e.location else None, e.message) for e in problems] == [
        (str(tmp_path / "shop_gone.ts"), "cannot read this tool file: it is a link to nothing"),
        (str(tmp_path / "shop_pipe.ts"), "cannot read this tool file: it is not a regular file"),
    ]


WRITE_ARTIFACT_YAML = """
# upstream's descriptor form (examples/android-sample-app's sampleapp_writeArtifact.yaml)
script: ./shop_writeNote.js
name: shop_writeNote
description: Write a note on the host.
requiresHost: true
runtime: subprocess
inputSchema:
  text:
    type: string
    description: What to write.
  where:
    type: string
    required: false
"""


def test_a_descriptor_describes_a_plain_exported_function(tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    write(folder, "shop_writeNote.yaml", WRITE_ARTIFACT_YAML)
    write(folder, "shop_writeNote.js", "export async function shop_writeNote(args) { return args.text; }\n")
    found = read_folder(folder, tmp_path)
    assert (found.problems, found.unavailable) == ([], None)
    assert [p.name for p in found.files] == ["shop_writeNote.js"]
    (tool,) = found.tools
    assert (tool.name, tool.file, tool.description) == (
        "shop_writeNote",
        folder / "shop_writeNote.js",
        "Write a note on the host.",
    )
    assert tool.input_schema == {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "What to write."}, "where": {"type": "string"}},
        "required": ["text"],
    }
    assert tool.meta == {"trailblaze/requiresHost": True}


def test_a_descriptor_naming_a_missing_script_is_an_error_at_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    write(folder, "shop_writeNote.yaml", WRITE_ARTIFACT_YAML)
    found = read_folder(folder, tmp_path)
    assert [str(p) for p in found.problems] == [
        f"{folder}/shop_writeNote.yaml:2:9: script: ./shop_writeNote.js is not a file in tools/ next to it"
    ]


BAD_ARGS = """
import { trailblaze } from "@trailblaze/scripting";

export interface BadArgs {
  /** A callback is not JSON. */
  onDone: () => void;
}

/** Takes what JSON cannot carry. */
export const shop_bad = trailblaze.tool<BadArgs>(async () => "x");
"""


def test_what_describe_finds_wrong_fails_validate_with_the_files_line(cli: CliRunner, tmp_path: Path) -> None:
    write(tmp_path, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    write(tmp_path, "trails/config/trailmaps/shop/trailmap.yaml", "id: shop\ntarget:\n  display_name: Shop\n")
    write(tmp_path, "trails/config/trailmaps/shop/tools/shop_bad.ts", BAD_ARGS)
    write(tmp_path, "trails/t.trail.yaml", "trail:\n  - step: s\n    recording:\n      web: [{wait: {seconds: 0}}]\n")
    result = cli("validate", "trails/t.trail.yaml")
    assert result.returncode == 3, result.output
    assert (
        "error: trails/config/trailmaps/shop/tools/shop_bad.ts:9: shop_bad: () => void is a function: tool "
        "arguments are JSON"
    ) in result.stderr


def test_a_syntax_error_or_a_name_mcp_refuses_fails_validate_not_the_run(cli: CliRunner, tmp_path: Path) -> None:
    write(tmp_path, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    write(tmp_path, "trails/config/trailmaps/shop/trailmap.yaml", "id: shop\ntarget:\n  display_name: Shop\n")
    write(
        tmp_path,
        "trails/config/trailmaps/shop/tools/shop_broken.ts",
        'import { trailblaze } from "@trailblaze/scripting";\n'
        "export const shop_broken = trailblaze.tool(async () => {;\n",
    )
    write(
        tmp_path,
        "trails/config/trailmaps/shop/tools/shop_named.ts",
        'import { trailblaze } from "@trailblaze/scripting";\n'
        'export const shop_caf\u00e9 = trailblaze.tool(async () => "x");\n',
    )
    write(tmp_path, "trails/t.trail.yaml", "trail:\n  - step: s\n    recording:\n      web: [{wait: {seconds: 0}}]\n")
    result = cli("validate", "trails/t.trail.yaml")
    assert result.returncode == 3, result.output
    assert "error: trails/config/trailmaps/shop/tools/shop_broken.ts:3: '}' expected." in result.stderr
    assert (
        'error: trails/config/trailmaps/shop/tools/shop_named.ts:2: "shop_caf\u00e9" is not a tool name: 1 to 128 '
        "characters of A-Z, a-z, 0-9, '_', '.' and '-' (rename the export)"
    ) in result.stderr


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_a_damaged_cache_file_is_made_again_not_trusted(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / CACHE_FOLDER / "damaged.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    found = _cached(path)
    assert found is None or (isinstance(found["tools"], list) and isinstance(found["errors"], list))


def test_a_cache_file_of_the_wrong_shape_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    for wrong in ([], {"tools": {}}, {"tools": [{"name": 1, "file": "x"}], "errors": []}, {"tools": [], "errors": {}}):
        path.write_text(json.dumps(wrong))
        assert _cached(path) is None
    path.write_text(json.dumps({"tools": [{"name": "a", "file": "a.ts"}], "errors": []}))
    assert _cached(path) == {"tools": [{"name": "a", "file": "a.ts"}], "errors": []}
    for wrong_field in ({"line": "9"}, {"inputSchema": "x"}, {"_meta": []}):
        path.write_text(json.dumps({"tools": [{"name": "a", "file": "a.ts", **wrong_field}], "errors": []}))
        assert _cached(path) is None
