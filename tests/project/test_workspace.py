"""Upstream's workspace layout (trailblaze/project/workspace.py): trails/config/trailblaze.yaml and its
trailmaps, found and loaded as upstream's loader does, beside this project's trailblaze.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.drivers.maestro.test_interpreter import replay
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliRunner
from tests.support.project import make_project, write
from trailblaze.project.workspace import find_workspace, load_workspace

TRAILMAP = f"""
# as upstream writes them: a target trailmap depending on trailblaze's defaults
id: shop
dependencies:
  - trailblaze
target:
  display_name: The Sample Shop
  system_prompt_file: shop-prompt.md
  platforms:
    android:
      app_ids: [{SAMPLE_APP}]
      tools:
        - shop_android_launchApp
    ios: {{}}
    web:
      base_url: http://127.0.0.1:9/shop
"""

FILL_NAME = """
id: shop_fillName
description: Open the form and type a name into it.
parameters:
  - name: name
    type: string
tools:
  - tapOnElementWithText: {text: Forms}
  - tapOnElementWithText: {text: Name}
  - inputText: {text: "{{params.name}}"}
"""

SHORTCUT = """
id: shop_formsToLists
description: From the form, go to the list.
shortcut:
  from: shop/android/forms
  to: shop/android/lists
parameters: []
tools:
  - tapOnElementWithText: {text: Lists}
"""


LAUNCH_APP = """
import { trailblaze } from "@trailblaze/scripting";

/** Launch the shop afresh, and say which driver it ran on. */
export const shop_android_launchApp = trailblaze.tool(
  { supportedPlatforms: ["android"], requiresContext: true },
  async (_args, ctx) => {
    const appId = ctx.target?.resolveAppId({ defaultAppId: "none" });
    await ctx.tools.launchApp({ appId });
    ctx.memory.set("driver", ctx.device?.driverType);
    return `launched ${appId}`;
  },
);
"""


def upstream_workspace(root: Path) -> None:
    write(root, "trails/config/trailblaze.yaml", "# the anchor, as upstream's\ntargets:\n  - shop\n")
    write(root, "trails/config/trailmaps/shop/trailmap.yaml", TRAILMAP)
    write(root, "trails/config/trailmaps/shop/shop-prompt.md", "The shop sells nothing.\n")
    write(root, "trails/config/trailmaps/shop/tools/shop_fillName.tool.yaml", FILL_NAME)
    write(root, "trails/config/trailmaps/shop/tools/shop_android_launchApp.ts", LAUNCH_APP)
    write(root, "trails/config/trailmaps/shop/tools/shop_shared.ts", "export const helper = 1;\n")
    write(root, "trails/config/trailmaps/shop/shortcuts/android/shop_formsToLists.shortcut.yaml", SHORTCUT)
    write(root, "trails/config/toolsets/shop_extras.yaml", "id: shop_extras\ntools: [shop_fillName]\n")


def test_a_workspace_is_found_from_anywhere_inside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream_workspace(tmp_path)
    write(tmp_path, "trails/shop/deep/t.trail.yaml", "trail: [{step: s}]\n")
    monkeypatch.chdir(tmp_path)
    expected = Path("trails/config/trailblaze.yaml")
    assert find_workspace(tmp_path / "trails/shop/deep/t.trail.yaml") == expected
    assert find_workspace(tmp_path / "trails/config/trailmaps/shop") == expected
    assert find_workspace(tmp_path.parent) is None
    monkeypatch.setenv("TRAILBLAZE_CONFIG_DIR", str(tmp_path / "trails/config"))
    assert find_workspace(tmp_path.parent) == expected


def test_targets_tools_and_toolsets_of_a_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    shipped = make_project(tmp_path).config.parser.trailmaps  # type: ignore[union-attr]
    workspace = load_workspace(Path("trails/config/trailblaze.yaml"), shipped=shipped)
    assert workspace.problems == []
    shop = workspace.targets["shop"]
    assert (shop.display_name, shop.all_app_ids, shop.web_base_url) == (
        "The Sample Shop",
        [SAMPLE_APP],
        "http://127.0.0.1:9/shop",
    )
    assert shop.system_prompt == "The shop sells nothing.\n"
    # trailblaze's defaults fill each declared platform; what the target sets itself stays
    assert shop.platforms["android"].tool_sets == [
        "core_interaction",
        "navigation",
        "observation",
        "verification",
        "memory",
    ]
    assert shop.platforms["ios"].tool_sets == shop.platforms["android"].tool_sets
    assert shop.platforms["web"].tool_sets == ["web_core", "web_verification", "memory"]
    assert shop.platforms["android"].tools == ["shop_android_launchApp"]
    assert sorted(d.file.id for d in workspace.declarations) == ["shop_fillName", "shop_formsToLists"]
    assert workspace.unavailable == {}
    launch = workspace.scripted["shop_android_launchApp"]
    assert (launch.file, launch.line, launch.description) == (
        Path("trails/config/trailmaps/shop/tools/shop_android_launchApp.ts"),
        4,
        "Launch the shop afresh, and say which driver it ran on.",
    )
    assert workspace.listed_scripted == {"shop_android_launchApp"}
    assert workspace.toolsets["shop_extras"].tools == ["shop_fillName"]


def test_validate_in_a_workspace(cli: CliRunner, tmp_path: Path) -> None:
    upstream_workspace(tmp_path)
    write(
        tmp_path,
        "trails/shop/fill/trail.yaml",
        """
        config:
          target: shop
          devices: {android: ANDROID_ONDEVICE_ACCESSIBILITY}
        trail:
          - step: Fill in a name with the workspace's tool, then take its shortcut
            recording:
              android:
                - shop_fillName: {name: Ada}
                - shop_formsToLists: {}
        """,
    )
    write(
        tmp_path,
        "trails/shop/launch/trail.yaml",
        "config: {target: shop}\ntrail:\n  - step: Launch\n    recording:\n      android:\n"
        "        - shop_android_launchApp: {}\n",
    )
    result = cli("validate", "trails/shop/fill")
    assert (result.returncode, result.output.strip()) == (0, "1 trail valid")
    result = cli("validate")
    assert (result.returncode, result.output.strip()) == (0, "2 trails valid")
    write(
        tmp_path,
        "trails/shop/launch/trail.yaml",
        (tmp_path / "trails/shop/launch/trail.yaml").read_text().replace("{}", "{app: x}"),
    )
    result = cli("validate")
    assert result.returncode == 3
    assert result.output.splitlines() == [
        "error: trails/shop/launch/trail.yaml:6:41: shop_android_launchApp: app: unknown argument",
    ]
    listed = {t["name"]: t for t in json.loads(cli("tools", "--json", "--driver", "android").stdout)}
    assert listed["shop_fillName"]["source"] == "yaml:trails/config/trailmaps/shop/tools/shop_fillName.tool.yaml"
    assert listed["shop_fillName"]["platforms"] == ["android", "ios"]
    launch = listed["shop_android_launchApp"]
    assert launch["source"] == "script:trails/config/trailmaps/shop/tools/shop_android_launchApp.ts"
    assert launch["platforms"] == ["android"]


def test_a_tool_of_another_workspace_is_unknown_until_trailblaze_config_dir_names_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    """As upstream's examples keep theirs: a second workspace under examples/ whose trailmap has
    the id of the root's. A trail under the root's trails/ belongs to the root's workspace (walking
    up); the message says which workspace was looked in and how to name the other one."""
    upstream_workspace(tmp_path)
    other = "examples/more/trails/config"
    write(tmp_path, f"{other}/trailblaze.yaml", "targets:\n  - shop\n")
    write(tmp_path, f"{other}/trailmaps/shop/trailmap.yaml", "id: shop\ntarget:\n  display_name: More\n")
    write(
        tmp_path,
        f"{other}/trailmaps/shop/tools/shop_openMore.tool.yaml",
        "id: shop_openMore\ndescription: d\ntools: [{dumpMemory: {}}]\n",
    )
    write(
        tmp_path,
        "trails/more/trail.yaml",
        "config: {target: shop}\ntrail:\n  - step: Open\n    recording:\n      android:\n        - shop_openMore: {}\n",
    )
    result = cli("validate", "trails/more")
    assert result.returncode == 3
    assert result.output.splitlines() == [
        "error: trails/more/trail.yaml:6:11: unknown tool 'shop_openMore': no trailmap of this trail's workspace "
        "trails/config defines it (another workspace's tools need TRAILBLAZE_CONFIG_DIR naming its trails/config)",
    ]
    named = {"TRAILBLAZE_CONFIG_DIR": str(tmp_path / other)}
    result = cli("validate", "trails/more", env=named)
    assert (result.returncode, result.output.strip()) == (0, "1 trail valid")
    # then the root's own tools are another workspace's
    write(
        tmp_path,
        "trails/more/trail.yaml",
        (tmp_path / "trails/more/trail.yaml")
        .read_text()
        .replace("{}", "{name: x}")
        .replace("shop_openMore", "shop_fillName"),
    )
    result = cli("validate", "trails/more", env=named)
    assert result.output.splitlines() == [
        f"error: trails/more/trail.yaml:6:11: unknown tool 'shop_fillName': no trailmap of {other} "
        "(named by TRAILBLAZE_CONFIG_DIR) defines it",
    ]


def test_this_projects_config_sits_beside_a_workspace(cli: CliRunner, tmp_path: Path) -> None:
    """trails/config/trailblaze.yaml is not taken for this project's configuration."""
    upstream_workspace(tmp_path)
    write(tmp_path, "trailblaze.yaml", "timeout: 4\ntools: [more-tools]\n")
    write(tmp_path, "more-tools/hello.tool.yaml", "id: hello\ndescription: d\ntools: [{dumpMemory: {}}]\n")
    write(
        tmp_path,
        "trails/t.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      android:\n"
        "        - hello: {}\n        - shop_fillName: {name: x}\n",
    )
    assert cli("validate", cwd=tmp_path / "trails" / "config").returncode == 0
    assert cli("validate").returncode == 0


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"trails/config/trailblaze.yaml": "targets: [shop, nope]\n"},
            "trails/config/trailblaze.yaml:1:17: targets: no trailmap 'nope' (looked for "
            "trails/config/trailmaps/nope/trailmap.yaml)",
        ),
        (
            {"trails/config/trailmaps/shop/trailmap.yaml": TRAILMAP.replace("  - trailblaze", "  - trailblazer")},
            "trails/config/trailmaps/shop/trailmap.yaml:4:5: dependencies: no trailmap 'trailblazer'",
        ),
        (
            {"trails/config/trailmaps/shop/trailmap.yaml": TRAILMAP.replace("shop-prompt.md", "missing.md")},
            "trails/config/trailmaps/shop/trailmap.yaml:7:23: system_prompt_file: cannot read "
            "trails/config/trailmaps/shop/missing.md",
        ),
        (
            {"trails/config/trailmaps/shop/trailmap.yaml": TRAILMAP.replace("app_ids:", "app_idz:")},
            "trails/config/trailmaps/shop/trailmap.yaml:10:7: target.platforms.android.app_idz: unknown key",
        ),
        (
            {
                "trails/config/trailmaps/shop/tools/shop_fillName.tool.yaml": FILL_NAME.replace(
                    "params.name", "params.nme"
                )
            },
            "trails/config/trailmaps/shop/tools/shop_fillName.tool.yaml:9:23: {{params.nme}} names no parameter",
        ),
        (
            {"trails/config/trailmaps/shop/tools/broken.tool.yaml": "id: x\ndescription: d\ntools:\n  - tapOnn: {}\n"},
            "trails/config/trailmaps/shop/tools/broken.tool.yaml:4:13: x calls unknown tool 'tapOnn'",
        ),
        (
            {
                "trails/config/trailmaps/shop/trailmap.yaml": TRAILMAP.replace(
                    "tools:\n        - shop_android_launchApp", "tools:\n        - shop_android_lunch"
                )
            },
            "trails/config/trailmaps/shop/trailmap.yaml:12:11: shop_android_lunch: no file in "
            "trails/config/trailmaps/shop/tools defines this tool",
        ),
        (
            {"trails/config/trailblaze.yaml": "targets: [shop]\ntargetz: []\n"},
            "trails/config/trailblaze.yaml:2:1: targetz: unknown key",
        ),
    ],
    ids=[
        "unknown-target",
        "unknown-dependency",
        "missing-prompt",
        "bad-key",
        "bad-token",
        "bad-delegate",
        "missing-script",
        "bad-anchor-key",
    ],
)
def test_workspace_problems_have_their_lines(
    cli: CliRunner, tmp_path: Path, files: dict[str, str], message: str
) -> None:
    upstream_workspace(tmp_path)
    for name, text in files.items():
        write(tmp_path, name, text)
    write(tmp_path, "trails/t.trail.yaml", "trail:\n  - step: s\n    recording:\n      android: [{pressBack: {}}]\n")
    result = cli("validate")
    assert result.returncode == 3
    assert any(line.startswith(f"error: {message}") for line in result.output.splitlines()), result.output
    assert "Traceback" not in result.output


def test_a_workspace_trail_runs_with_its_tools_on_a_phone(
    adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    trail = (
        "config: {target: shop}\ntrail:\n  - step: s\n    recording:\n      android:\n"
        "        - shop_android_launchApp: {}\n"
        "        - assertEquals: {actual: '{{memory.driver}}', expected: android-ondevice-accessibility}\n"
        "        - shop_fillName: {name: Ada}\n"
        "        - shop_formsToLists: {}\n"
    )
    result = replay(tmp_path, trail)
    trail_result = result.trails[0]
    assert [(s.status, s.error) for s in trail_result.steps] == [("passed", None)]
    assert phone.app.ui.name == "Ada" and phone.app.ui.tab == "Lists"
    assert [(t.name, t.delegated_from) for t in trail_result.steps[0].tools] == [
        ("launchApp", ["shop_android_launchApp"]),  # the scripted tool, on the phone stand-in
        ("shop_android_launchApp", []),
        ("assertEquals", []),
        ("tapOnElementWithText", ["shop_fillName"]),
        ("tapOnElementWithText", ["shop_fillName"]),
        ("inputText", ["shop_fillName"]),
        ("tapOnElementWithText", ["shop_formsToLists"]),
    ]


def test_project_targets_come_first_then_the_workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    project = make_project(tmp_path, "targets:\n  shop: {display_name: Ours}\n", ("no:terminal",))
    workspace = project.workspace
    assert workspace is not None
    assert project.target_config("shop", workspace).display_name == "Ours"  # type: ignore[union-attr]
    write(tmp_path, "trailblaze.yaml", "")
    other = make_project(tmp_path, "", ("no:terminal",))
    assert other.target_config("shop", other.workspace).display_name == "The Sample Shop"  # type: ignore[union-attr]


def test_the_targets_system_prompt_reaches_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from trailblaze.api.agent import StepTask
    from trailblaze.trail.model import Trail, TrailConfig

    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    project = make_project(tmp_path, "", ("no:terminal",))

    class Task(StepTask):
        async def screen(self):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        async def call(self, name, args=None):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        def observe(self, name, args=None):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        def undo(self):  # type: ignore[no-untyped-def]
            return []

        def recording(self):  # type: ignore[no-untyped-def]
            return []

    task = Task()
    task.trail = Trail(tmp_path / "t.trail.yaml", "t", TrailConfig(target="shop", context="Sign in first."), [])
    task.session = SimpleNamespace(  # type: ignore[assignment]
        run=SimpleNamespace(project=project), target="shop", workspace=project.workspace
    )
    assert task.context == "The shop sells nothing.\n\nSign in first."
