"""A project for the CI-steering tests: a trail that passes, one that fails, one that is flaky
(its tool fails on its first call only, remembering the call in a file), with tags."""

from __future__ import annotations

from tests.support.cli import Project

FLAKY_TOOLS = '''
from pathlib import Path

import trailblaze


@trailblaze.tool(name="fail_first_time")
def fail_first_time(marker: str) -> None:
    """Fail the first time it is called with ``marker``; pass afterwards."""
    path = Path(marker)
    if not path.exists():
        path.write_text("called once", encoding="utf-8")
        raise trailblaze.ToolFailure(f"first call fails ({marker})")


@trailblaze.hookimpl
def trailblaze_register_tools(register):
    register(fail_first_time)
'''

TRAILS = {
    "passes": """
        config: {id: passes, title: Opens the about page, tags: [smoke, about]}
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
    """,
    "fails": """
        config: {id: fails, title: Looks for what is not there, tags: [broken], timeout: 1}
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
          - verify: A heading that is not there
            recording:
              web:
                - web_verifyTextVisible: {text: No such heading anywhere}
    """,
    "flaky": """
        config: {id: flaky, title: Passes the second time, tags: [smoke, flaky]}
        trail:
          - step: Open the about page
            recording:
              web:
                - web_navigate: {url: /about.html}
          - step: Call the tool that fails once
            recording:
              web:
                - fail_first_time: {marker: flaky.marker}
    """,
}


def ci_project(project: Project, *names: str) -> Project:
    """``project`` with the flaky tool (``-p flaky_tools``) and the trails ``names`` (default: all)."""
    project.write("flaky_tools.py", FLAKY_TOOLS)
    for name in names or tuple(TRAILS):
        project.trail(name, TRAILS[name])
    return project
