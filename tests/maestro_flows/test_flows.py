"""Maestro flow files run as they are: ``trailblaze run``/``validate`` on the flows in
``tests/maestro_flows/flows/`` (written to Maestro's grammar), in a subprocess — the app flows on
the Android and iOS stand-ins through uiautomator2 and facebook-wda, the web flows in Chromium."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn
from tests.support.cli import CliRunner, Project
from tests.support.project import make_project, run, write

FLOWS = Path(__file__).parent / "flows"


def copy_flows(project: Project, which: str) -> Path:
    target = project.root / "flows"
    shutil.copytree(FLOWS / which, target)
    return target


def test_app_flows_on_android(cli: CliRunner, adb: AdbHostStandIn, phone: FakeAndroid, project: Project) -> None:
    project.write("trailblaze.yaml", "driver: android\ntimeout: 2\n")
    copy_flows(project, "app")
    listed = cli("validate", "flows")
    assert listed.returncode == 0, listed.output
    assert "2 trails valid" in listed.output  # the sub-flow in subflows/ is no flow of its own

    result = cli("run", "flows", "--json", "r.json", "--junit", "r.xml", "-e", "NAME=Grace")
    assert result.returncode == 1, result.output
    trails = {t["id"]: t for t in result.json("r.json")["trails"]}
    assert set(trails) == {"Submit the form", "Missing button"}
    passed, failed = trails["Submit the form"], trails["Missing button"]
    assert passed["status"] == "passed", passed
    assert passed["tags"] == ["forms", "smoke"]
    assert phone.app.submissions == 1
    assert not phone.app.ui.subscribe  # `when: {platform: iOS}` did not hold
    assert failed["status"] == "failed"
    # the failing command's line in the flow file, and what was on screen
    assert "flows/missing_button.yaml:9:" in result.output
    assert "Sign out" in failed["error"] and "on screen:" in failed["error"]
    # onFlowComplete runs after the failure, as Maestro's does
    assert [(s["text"], s["status"]) for s in failed["steps"][-2:]] == [
        ("tapOn: Sign out", "failed"),
        ("onFlowComplete: tapOn: Lists", "passed"),
    ]
    cases = {c.get("name"): c for c in ET.parse(result.cwd / "r.xml").getroot().iter("testcase")}
    assert set(cases) == {"Submit the form", "Missing button"}
    assert cases["Missing button"].find("failure") is not None

    only = cli("run", "flows", "--exclude-tags", "failing", "--list")
    assert only.returncode == 0, only.output
    assert "Submit the form" in only.output and "Missing button" not in only.output

    # the flow as a trail: its commands the recordings of its steps, replayed as they are
    converted = cli("record", "--from-maestro", "flows/submit_form.yaml", "-e", "NAME=Lin")
    assert converted.returncode == 0, converted.output
    assert "wrote flows/submit_form.trail.yaml (13 steps)" in converted.output
    replayed = cli("run", "flows/submit_form.trail.yaml", "--json", "t.json")
    assert replayed.returncode == 0, replayed.output
    assert replayed.json("t.json")["trails"][0]["title"] == "Submit the form"
    assert phone.app.submissions == 2


def test_app_flow_on_ios(cli: CliRunner, wda_server: WdaStandIn, iphone: FakeIphone, project: Project) -> None:
    project.write("trailblaze.yaml", "timeout: 2\n")
    copy_flows(project, "app")
    result = cli("run", "flows", "--driver", "ios", "--device", wda_server.url, "-k", "submit", "--json", "r.json")
    assert result.returncode == 0, result.output
    (trail,) = result.json("r.json")["trails"]
    assert (trail["id"], trail["driver"]) == ("Submit the form", "ios-wda")
    assert iphone.app.submissions == 1
    assert iphone.app.ui.subscribe  # `when: {platform: iOS}` held here: its command ran


@pytest.mark.browser
def test_web_flows_in_chromium_follow_the_workspace_config(cli: CliRunner, project: Project, browser: str) -> None:
    copy_flows(project, "web")
    result = cli("run", "flows", "-e", "WHO=Grace", "--json", "r.json")
    assert result.returncode == 0, result.output
    trails = result.json("r.json")["trails"]
    # config.yaml: extra/* too, the wip flow left out, "Runs first" first
    assert [t["id"] for t in trails] == ["Runs first", "Scripts", "Fill the web form"]
    assert all(t["driver"] == "playwright-native" for t in trails)
    typed = [c["args"] for s in trails[2]["steps"] for c in s["tools"] if "inputText" in str(c["args"])]
    assert typed[0] == {"commands": [{"inputText": "Grace"}]}  # -e WHO=Grace

    wrong = Path(project.root / "flows" / "sign_up.yaml")
    wrong.write_text(wrong.read_text().replace("Name: ${WHO}", "Name: Someone"))
    failed = cli("run", "flows/sign_up.yaml", "-e", "WHO=Grace", "--timeout", "1")
    assert failed.returncode == 1
    assert "flows/sign_up.yaml:17:" in failed.output and "Someone" in failed.output


def test_a_repeat_while_that_never_ends_is_stopped(
    adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Maestro's own loop has no end; here one stops at MAX_WHILE_ROUNDS (1000) rounds, fewer
    for the test, with a message saying where and why."""
    from trailblaze.drivers.maestro import interpreter

    monkeypatch.setattr(interpreter, "MAX_WHILE_ROUNDS", 25)
    write(
        tmp_path,
        "trails/forever.yaml",
        f"appId: {SAMPLE_APP}\n---\n- launchApp\n- assertVisible: Home\n- repeat:\n    while:\n      visible: Home\n"
        "    commands:\n      - tapOn: Home\n",
    )
    project = make_project(tmp_path, "driver: android\ntimeout: 2\n", ("no:terminal",))
    result = run(project)
    (trail,) = result.trails
    assert trail.status == "failed"
    assert trail.error is not None and "trails/forever.yaml:5" in trail.error
    assert "still held after 25 rounds (a loop stops at 25 rounds or 300 s)" in trail.error


def test_maestros_own_e2e_flows_validate(cli: CliRunner, project: Project) -> None:
    """Flows from Maestro's repository (maestro_e2e/SOURCES.txt) validate as they are — the
    Wikipedia one with its runScript and ${output.result} too (node runs them) — and their
    sub-flows are no flows of their own."""
    shutil.copytree(Path(__file__).parent / "maestro_e2e", project.root / "e2e")
    for folder, count in (("e2e/demo_app", 3), ("e2e/wikipedia", 2)):
        result = cli("validate", folder)
        assert result.returncode == 0, result.output
        assert f"{count} trails valid" in result.output
