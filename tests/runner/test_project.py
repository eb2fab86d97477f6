"""The project's tools read again (:meth:`Project.reload_tools`, behind ``trailblaze mcp``'s
``toolbox(action=RELOAD)``): trailblaze.yaml's tool entries and a workspace's tool folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.project.test_workspace import upstream_workspace
from tests.support.project import make_project, write
from trailblaze.core.errors import TrailblazeError
from trailblaze.runner.project import Project

OPEN = "id: {id}\ndescription: Open a page.\ntools:\n  - web_navigate: {{url: /forms.html}}\n"


def _names(project: Project) -> set[str]:
    """The tools a trail in the project's trails folder may call."""
    return {spec.name for spec in project.registry_for(project.workspace_for(project.config.trails_dir))}


def test_reload_reads_new_changed_and_removed_tool_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "tools/open_forms.tool.yaml", OPEN.format(id="open_forms"))
    project = make_project(tmp_path, "tools: [tools]\n")
    workspace = project.workspace_for(project.config.trails_dir)
    assert {"open_forms", "shop_fillName"} <= _names(project)

    write(tmp_path, "tools/open_lists.tool.yaml", OPEN.format(id="open_lists"))
    (tmp_path / "tools" / "open_forms.tool.yaml").unlink()
    write(tmp_path, "trails/config/trailmaps/shop/tools/shop_openForms.tool.yaml", OPEN.format(id="shop_openForms"))
    project.reload_tools()

    names = _names(project)
    assert {"open_lists", "shop_openForms", "shop_fillName"} <= names and "open_forms" not in names
    assert project.workspace_for(project.config.trails_dir) is not workspace


def test_a_broken_tool_file_leaves_the_tools_as_they_were(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "tools/open_forms.tool.yaml", OPEN.format(id="open_forms"))
    project = make_project(tmp_path, "tools: [tools]\n")
    workspace = project.workspace_for(project.config.trails_dir)
    before = _names(project)

    write(tmp_path, "tools/open_lists.tool.yaml", OPEN.format(id="open_lists"))
    write(tmp_path, "tools/broken.tool.yaml", "id: broken\ntools: not a list\n")
    with pytest.raises(TrailblazeError, match=r"broken\.tool\.yaml"):
        project.reload_tools()
    assert _names(project) == before

    (tmp_path / "tools" / "broken.tool.yaml").unlink()
    write(tmp_path, "trails/config/trailmaps/shop/tools/shop_broken.tool.yaml", "id: shop_broken\ntools: 3\n")
    with pytest.raises(TrailblazeError, match=r"shop_broken\.tool\.yaml"):
        project.reload_tools()
    assert project.workspace_for(project.config.trails_dir) is workspace and _names(project) == before


# -- one pass from files to a plan (issue 21) --------------------------------------------------------------

TAPS = "trail:\n  - step: s\n    recording:\n      test:\n        - null_tap: {text: Home}\n"


def test_a_workspace_is_looked_for_once_per_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.api.session import RunOptions
    from trailblaze.project import projectfile
    from trailblaze.runner.plan import prepare

    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b", "c"):
        write(tmp_path, f"trails/shop/{name}.trail.yaml", TAPS)
    write(tmp_path, "trails/other/d.trail.yaml", TAPS)
    looked: list[Path] = []
    real = projectfile.find_workspace

    def counted(start: Path) -> Path | None:
        looked.append(start)
        return real(start)

    monkeypatch.setattr(projectfile, "find_workspace", counted)
    project = make_project(tmp_path, "driver: null-test\n")
    run = prepare(project, RunOptions(), recordings=False, require_args=False, per_driver=False)
    assert len(run.planned) == 4
    assert sorted(p.name for p in looked) == ["other", "shop"]  # not once per trail, nor per check
    assert {id(p.workspace) for p in run.planned} == {id(project.workspace_for(tmp_path / "trails"))}


def test_a_workspace_registry_returns_its_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.api.session import RunOptions
    from trailblaze.core.errors import ErrorList
    from trailblaze.runner.plan import prepare

    upstream_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    typo = "id: shop_typo\ndescription: Tap.\ntools:\n  - null_tapp: {text: Home}\n"
    write(tmp_path, "trails/config/trailmaps/shop/tools/shop_typo.tool.yaml", typo)
    write(tmp_path, "trails/shop/a.trail.yaml", TAPS)
    project = make_project(tmp_path, "driver: null-test\n")
    workspace = project.workspace
    assert workspace is not None
    registry, problems = project.tools_for(workspace)
    assert len(problems) == 1 and problems[0].message.startswith("shop_typo calls unknown tool 'null_tapp'")
    assert "shop_typo" in registry and workspace.problems == []  # the workspace stays as it was read
    assert project.tools_for(workspace) == (registry, problems)  # built once
    with pytest.raises(ErrorList) as caught:
        prepare(project, RunOptions(), recordings=False, require_args=False, per_driver=False)
    assert [str(p) for p in caught.value.errors] == [str(problems[0])]  # reported once, as before


def test_calls_are_checked_against_the_tools_the_trail_was_planned_with(tmp_path: Path) -> None:
    from trailblaze.api.session import RunOptions
    from trailblaze.runner.checks import check_planned
    from trailblaze.runner.plan import prepare
    from trailblaze.tools.registry import ToolRegistry

    write(tmp_path, "trails/a.trail.yaml", TAPS)
    project = make_project(tmp_path, "driver: null-test\n")
    run = prepare(project, RunOptions())
    (planned,) = run.planned
    assert planned.registry is project.tools  # no workspace: every plugin's tools
    assert check_planned(run, project, recordings=True, per_driver=True) == []
    planned.registry = ToolRegistry()
    found = check_planned(run, project, recordings=True, per_driver=True)
    assert [p.message for p in found] == ["unknown tool 'null_tap' for driver null-test"]
