"""`trailblaze sdk install` and `sdk path` (trailblaze/project/editorsdk.py): the SDK's declarations
where an editor finds them, checked with the real TypeScript compiler as an editor runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import ROOT, CliRunner
from tests.support.project import write
from trailblaze.project.editorsdk import BANNER, UPSTREAM_BANNERS
from trailblaze.project.scriptedtools import PACKAGED_SDK

#: a TypeScript compiler, as a tool author's editor has one (the SDK's own, from `make sdk`)
TSC = ROOT / "sdks" / "typescript" / "node_modules" / "typescript" / "bin" / "tsc"

TOOL = """
import { trailblaze, z } from "@trailblaze/scripting";

export interface GreetArgs {
  /** Who. */
  name: string;
}

/** Greet someone. */
export const shop_greet = trailblaze.tool<GreetArgs>(async ({ name }, ctx) => {
  await ctx.tools.web_navigate({ url: "/forms.html" });
  return `hello ${name} ${z.string().parse(name).length}`;
});
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    if not (PACKAGED_SDK / "dist" / "cli.js").is_file():
        pytest.fail("the SDK trailblaze carries is not built: run `make sdk`")
    write(tmp_path, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    write(tmp_path, "trails/config/trailmaps/shop/trailmap.yaml", "id: shop\n")
    write(tmp_path, "trails/config/trailmaps/shop/tools/shop_greet.ts", TOOL)
    write(tmp_path, "trails/config/trailmaps/other/trailmap.yaml", "id: other\n")  # no tools: no tsconfig
    return tmp_path


def tsc(project: Path) -> subprocess.CompletedProcess[str]:
    if not TSC.is_file():
        pytest.fail("no TypeScript compiler: run `make sdk`")
    return subprocess.run(
        ["node", str(TSC), "-p", str(project)], capture_output=True, text=True, timeout=120, check=False
    )


def test_install_writes_the_sdk_and_a_tsconfig_an_editor_type_checks_with(cli: CliRunner, workspace: Path) -> None:
    tools = workspace / "trails" / "config" / "trailmaps" / "shop" / "tools"
    result = cli("sdk", "install", cwd=tools)  # from anywhere in the workspace
    assert result.returncode == 0, result.output
    assert result.stdout.splitlines() == [
        f"wrote the SDK into {workspace / 'trails' / '.trailblaze' / 'sdk'}",
        f"wrote {workspace / 'trails' / 'config' / 'trailmaps' / 'shop' / 'tools' / 'tsconfig.json'}",
    ]
    copy = workspace / "trails" / ".trailblaze" / "sdk"
    assert json.loads((copy / "package.json").read_text())["name"] == "@trailblaze/scripting"
    assert (copy / "dist" / "index.d.ts").is_file()
    assert not (copy / "node_modules" / "typescript").exists()  # the compiler stays with the installed SDK
    assert not (workspace / "trails" / "config" / "trailmaps" / "other" / "tools").exists()
    config = (tools / "tsconfig.json").read_text()
    assert config.startswith(BANNER + "\n")
    assert '"@trailblaze/scripting": ["../../../../.trailblaze/sdk/dist/index"]' in config

    checked = tsc(tools)
    assert checked.returncode == 0, checked.stdout
    (tools / "shop_wrong.ts").write_text(
        'import { trailblaze } from "@trailblaze/scripting";\n'
        "export const shop_wrong = trailblaze.tool<{ n: number }>(async ({ n }) => n.toUpperCase());\n"
    )
    checked = tsc(tools)
    assert checked.returncode != 0
    assert "shop_wrong.ts(2," in checked.stdout and "toUpperCase" in checked.stdout


def test_install_again_keeps_a_tsconfig_someone_wrote_and_renews_generated_ones(
    cli: CliRunner, workspace: Path
) -> None:
    trailmaps = workspace / "trails" / "config" / "trailmaps"
    write(workspace, "trails/config/trailmaps/mine/tools/mine_tool.ts", TOOL.replace("shop_greet", "mine_tool"))
    write(workspace, "trails/config/trailmaps/mine/tools/tsconfig.json", '{"compilerOptions": {"strict": false}}\n')
    write(workspace, "trails/config/trailmaps/theirs/tools/theirs_tool.ts", TOOL.replace("shop_greet", "theirs_tool"))
    write(workspace, "trails/config/trailmaps/theirs/tools/tsconfig.json", UPSTREAM_BANNERS[0] + "\n{}\n")
    linked = trailmaps / "linked" / "tools"
    write(workspace, "trails/config/trailmaps/linked/tools/linked_tool.ts", TOOL.replace("shop_greet", "linked_tool"))
    outside = workspace / "outside.json"
    outside.write_text("{}\n")
    (linked / "tsconfig.json").symlink_to(outside)

    first = cli("sdk", "install", "trails", cwd=workspace)
    assert first.returncode == 0, first.output
    shown = "trails/config/trailmaps"  # as named on the command line
    assert f"kept {shown}/mine/tools/tsconfig.json: it is not one trailblaze wrote" in first.stdout
    assert f"kept {shown}/linked/tools/tsconfig.json: it is not one trailblaze wrote" in first.stdout
    assert (trailmaps / "mine" / "tools" / "tsconfig.json").read_text() == '{"compilerOptions": {"strict": false}}\n'
    assert outside.read_text() == "{}\n"  # a link is someone's: not written through
    assert (trailmaps / "theirs" / "tools" / "tsconfig.json").read_text().startswith(BANNER)  # upstream's: renewed

    generated = (trailmaps / "shop" / "tools" / "tsconfig.json").read_text()
    again = cli("sdk", "install", cwd=workspace)  # the folder holding trails/ finds it too
    assert again.returncode == 0, again.output
    assert (trailmaps / "shop" / "tools" / "tsconfig.json").read_text() == generated
    siblings = sorted(p.name for p in (workspace / "trails" / ".trailblaze").iterdir())
    assert siblings == ["sdk"], "the copy is replaced whole, nothing left beside it"


def test_install_outside_a_workspace_says_how_to_name_one(cli: CliRunner, tmp_path: Path) -> None:
    result = cli("sdk", "install", cwd=tmp_path)
    assert result.returncode == 3
    assert "no workspace here: no trails/config/trailblaze.yaml in this folder or above it" in result.stderr
    assert "Traceback" not in result.output


def test_path_names_the_sdk_an_npm_package_folder(cli: CliRunner, tmp_path: Path) -> None:
    result = cli("sdk", "path")
    assert result.returncode == 0, result.output
    folder = Path(result.stdout.strip())
    assert folder == PACKAGED_SDK
    assert json.loads((folder / "package.json").read_text())["bin"] == {"trailblaze-scripting": "./dist/cli.js"}
    hollow = tmp_path / "hollow"
    hollow.mkdir()
    broken = cli("sdk", "path", env={"TRAILBLAZE_SCRIPTING_SDK": str(hollow)})
    assert broken.returncode == 2
    assert f"TRAILBLAZE_SCRIPTING_SDK names {hollow}, which holds no built @trailblaze/scripting" in broken.stderr
