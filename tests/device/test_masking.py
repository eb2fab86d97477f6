"""A secret filled into the page is in nothing Trailblaze writes or sends.

A ``web_fillSecret`` value typed into a text field is on the screen from then on. These runs
fill one, then do everything that renders or reports the screen: snapshots, a failing check
that quotes the field, ``--self-heal`` with an LLM (the local stand-in keeps every request),
``record`` with a person at the terminal and with an LLM. Then every byte they printed, wrote
(reports, artifacts, logs, recording progress, trail files) or sent is searched for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Ref, Reply

from tests.support.cli import CliProcess, CliResult, CliRunner, Project

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET = "hunter2-Correct-Horse"
ENV = {"TB_SECRET": SECRET}
NAME = {"web": {"dataTestId": "name-input"}}

FILL = """
trail:
  - step: Fill the secret into the name and password fields
    recording:
      web:
        - web_navigate: {url: /forms.html}
        - web_fillSecret: {value: "${TB_SECRET}", nodeSelector: {web: {dataTestId: name-input}}}
        - web_fillSecret: {value: "${TB_SECRET}", ref: "css=#password"}
        - web_verifyValue: {expected: "${TB_SECRET}", type: VALUE, nodeSelector: {web: {dataTestId: name-input}}}
        - web_snapshot: {screenName: filled}
        - takeSnapshot: {screenName: core}
"""
HEALED = (
    FILL
    + """
  - verify: The name field holds something else
    recording:
      web:
        - web_verifyValue:
            {expected: nothing, type: VALUE, nodeSelector: {web: {dataTestId: name-input}}, timeoutMs: 300}
"""
)
RECORDED = FILL + "  - step: Remember what the name field holds\n"
DONE = ("objectiveStatus", {"status": "COMPLETE"})
REMEMBER = ("rememberText", {"variable": "held", "nodeSelector": NAME})


def _everything(root: Path, results: list[CliResult], servers: list[FakeOpenAI]) -> str:
    """Every byte the runs printed, wrote under the project, or sent to the LLM stand-ins."""
    parts = [r.stdout + r.stderr for r in results]
    parts += [json.dumps(body) for server in servers for body in server.requests]
    for path in root.rglob("*"):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_a_secret_in_the_page_is_in_nothing_trailblaze_writes_or_sends(
    cli: CliRunner, cli_process: CliProcess, project: Project, browser: str
) -> None:
    project.trail("healed", HEALED)
    project.trail("by-a-person", RECORDED)
    project.trail("by-an-llm", RECORDED)
    results: list[CliResult] = []
    with (
        FakeOpenAI([Reply([DONE])]) as healer,
        FakeOpenAI(
            [Reply([REMEMBER, ("dumpMemory", {})]), Reply([("assertVisible", {"ref": Ref("textbox")}), DONE])]
        ) as recorder,
    ):
        project.write(
            "trailblaze.yaml", f"base_url: sample-app\ntimeout: 5\nllm: {{base_url: '{healer.url}', model: m}}\n"
        )
        healed = cli(
            "run", "trails/healed.trail.yaml", "--self-heal", "--agent", "openai", "-vv", "--json", "r.json",
            "--junit", "r.xml", env=ENV,
        )  # fmt: skip
        results.append(healed)
        assert healed.returncode == 0, healed.output
        trail = healed.json("r.json")["trails"][0]
        assert [s["status"] for s in trail["steps"]] == ["passed", "healed"]  # the secret was in the field
        assert trail["steps"][1]["error"].endswith("is '***', expected 'nothing' (waited 0.3s)")  # as it failed

        person = cli_process("record", "trails/by-a-person.trail.yaml", "--agent", "interactive", env=ENV)
        script = (
            "screen\nrememberText: {variable: held, nodeSelector: {web: {dataTestId: name-input}}}\ndumpMemory\ndone\n"
        )
        out, err = person.communicate(script, timeout=120)
        results.append(CliResult(person.returncode, out, err, project.root))
        assert person.returncode == 0, out + err
        assert "value=***" in out  # the screen shown to the person

        project.write(
            "trailblaze.yaml", f"base_url: sample-app\ntimeout: 5\nllm: {{base_url: '{recorder.url}', model: m}}\n"
        )
        by_llm = cli("record", "trails/by-an-llm.trail.yaml", "--agent", "openai", env=ENV)
        results.append(by_llm)
        assert by_llm.returncode == 0, by_llm.output

    (sent,) = [body for body in healer.requests]
    assert "***" in json.dumps(sent)  # the screen the LLM got, with the field masked
    everything = _everything(project.root, results, [healer, recorder])
    assert SECRET not in everything
    assert (project.root / "trails" / "by-a-person.trail.yaml").read_text(encoding="utf-8").count("rememberText") == 1
