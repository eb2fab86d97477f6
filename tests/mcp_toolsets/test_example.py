"""The example MCP toolsets (plugins-examples/mcp-toolsets) run green, as a user would run them."""

from __future__ import annotations

import pytest

from tests.support.cli import ROOT, CliRunner
from trailblaze.project.scriptedtools import PACKAGED_SDK

EXAMPLE = ROOT / "plugins-examples" / "mcp-toolsets"

pytestmark = pytest.mark.usefixtures("browser")


@pytest.mark.parametrize("workers", [1, 2])
def test_the_python_and_javascript_toolsets_run_their_trails(cli: CliRunner, workers: int) -> None:
    """The JavaScript server imports @trailblaze/scripting with no npm install: node runs it with
    the SDK trailblaze carries. Both servers say ``multi_device: http``: one session talks to
    them over stdio; with two workers each is started once, in HTTP mode, for both sessions."""
    if not (PACKAGED_SDK / "dist" / "register.js").is_file():
        pytest.fail("the SDK trailblaze carries is not built: run `make sdk`")
    assert not (EXAMPLE / "js_tools" / "node_modules").exists()
    logs = EXAMPLE / ".trailblaze" / "logs"
    runs_before = set(logs.glob("run-*"))
    output = f"results-{workers}.json"
    result = cli("run", "--workers", str(workers), "--json", output, cwd=EXAMPLE, timeout=300)
    try:
        assert result.returncode == 0, result.output
        trails = {t["id"]: t for t in result.json(output)["trails"]}
    finally:
        (EXAMPLE / output).unlink(missing_ok=True)
    if workers == 2:  # each started once, over HTTP, for the two sessions (one session: stdio)
        shared = sorted(p.name for run in set(logs.glob("run-*")) - runs_before for p in run.iterdir())
        assert shared == ["js_tools_server.http.log", "python_tools_server.http.log"]
    assert set(trails) == {"mcp/sign-up", "mcp/filter-list"}
    sign_up = trails["mcp/sign-up"]["steps"][0]["tools"]
    assert [(t["name"], t["delegated_from"]) for t in sign_up] == [
        ("web_navigate", ["js_signUp", "sample_openForms"]),  # JavaScript → Python
        ("web_type", ["js_signUp", "js_fillContactForm"]),
        ("web_type", ["js_signUp", "js_fillContactForm"]),
        ("web_selectOption", ["js_signUp", "js_fillContactForm"]),
        ("web_click", ["js_signUp", "js_fillContactForm"]),
        ("web_verifyTextVisible", ["js_signUp"]),
    ]
    assert [t["name"] for t in trails["mcp/filter-list"]["steps"][0]["tools"]] == ["sample_filterList"]
