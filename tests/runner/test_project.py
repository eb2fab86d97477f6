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
