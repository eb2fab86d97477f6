"""The agent log on disk: secrets masked, texts cut, the file bounded, never written through a
link, and a log that cannot be written never fails the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trailblaze.api.agentlog import AgentLog, read_records

SECRET = "correct-horse-battery"


def _sample(log: AgentLog, text: str = "hello") -> None:
    log.sampling(
        messages=[{"role": "system", "content": "rules"}, {"role": "user", "content": text}],
        completion={"content": f"typed {SECRET}"},
        model="m",
        duration_ms=12.5,
        prompt_tokens=7,
        completion_tokens=3,
    )


def test_the_four_records_in_order_masked_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "run" / "agent-log.jsonl"
    log = AgentLog(path, secrets={SECRET}, objective=f"Sign in with {SECRET}", step="step 2", agent="openai")
    _sample(log)
    log.tool(name="web_type", args={"text": SECRET}, ok=True, result="typed", duration_ms=3, transport="DIRECT")
    log.iteration(completion="I type it", calls=[{"tool": "web_type", "args": {"text": SECRET}}], response_type="x")
    record = log.finish(status="complete", model="m")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert SECRET not in "".join(lines)
    records = [json.loads(line) for line in lines]
    assert [r["record"] for r in records] == ["sampling", "tool", "iteration", "agent_run"]
    assert {r["run"] for r in records} == {log.run} and {r["step"] for r in records} == {"step 2"}
    assert records[0]["completion"] == {"content": "typed ***"} and records[1]["args"] == {"text": "***"}
    assert record["objective"] == "Sign in with ***" and record["actions"] == ["web_type"]
    assert (record["iterations"], record["prompt_tokens"], record["completion_tokens"]) == (1, 7, 3)
    assert record["llm_ms"] == 12.5 and record["log_error"] is None
    assert read_records(path) == records


def test_texts_are_cut_and_the_file_stops_growing_at_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MAX_LOG_BYTES", "20000")
    path = tmp_path / "agent-log.jsonl"
    log = AgentLog(path)
    _sample(log, "x" * 50_000)  # one message beyond TRAILBLAZE_MAX_MESSAGE_CHARS
    first = read_records(path)[0]["messages"][1]["content"]
    assert len(first) < 4_100 and first.endswith("more characters not shown)")
    for _ in range(20):
        _sample(log, "y" * 3_000)
    record = log.finish(status="complete")
    assert record["log_cut"] is True and log.samplings == 21  # still counted
    assert path.stat().st_size < 20_000 + 2_000  # the run's record goes past the bound, nothing else
    assert read_records(path)[-1]["record"] == "agent_run"


def test_a_link_where_the_log_goes_is_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine", encoding="utf-8")
    path = tmp_path / "agent-log.jsonl"
    path.symlink_to(victim)
    log = AgentLog(path)
    _sample(log)
    record: dict[str, Any] = log.finish(status="failed", explanation="no")
    assert victim.read_text(encoding="utf-8") == "mine"
    assert "cannot be written" in (record["log_error"] or "")
    assert read_records(path) == []  # nor read through one


def test_a_log_that_cannot_be_written_counts_without_failing(tmp_path: Path) -> None:
    (tmp_path / "run").write_text("a file where the folder should be", encoding="utf-8")
    log = AgentLog(tmp_path / "run" / "agent-log.jsonl")
    _sample(log)
    record = log.finish(status="complete")
    assert "cannot be written" in (record["log_error"] or "")
    assert (record["prompt_tokens"], record["status"]) == (7, "complete")
