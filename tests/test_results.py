"""A results document read back (:meth:`RunResult.from_dict`) is the result that wrote it."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from trailblaze.api.results import (
    AgentReport,
    Artifact,
    Attempt,
    FailedStep,
    RemoteSession,
    RunResult,
    StepResult,
    ToolReport,
    TrailResult,
)
from trailblaze.core.errors import ExitCode

TEXT = st.text(max_size=20)
NAME = st.text(min_size=1, max_size=20)
STATUS = st.sampled_from(["passed", "failed", "error", "skipped", "healed", "incomplete", "flaky"])
MS = st.floats(0, 1e9, allow_nan=False).map(lambda f: round(f, 3))
ARTIFACTS = st.lists(
    st.builds(Artifact, kind=st.sampled_from(["screenshot", "hierarchy", "console", "trace"]), path=NAME), max_size=2
)
TOOLS = st.lists(
    st.builds(
        ToolReport,
        name=TEXT,
        args=st.dictionaries(TEXT, TEXT, max_size=2),
        status=STATUS,
        duration_ms=MS,
        delegated_from=st.lists(TEXT, max_size=2),
        recordable=st.booleans(),
        error=st.none() | TEXT,
    ),
    max_size=2,
)
AGENT = st.none() | st.builds(
    AgentReport, name=TEXT, status=TEXT, explanation=TEXT, model=st.none() | TEXT, turns=st.integers(0, 9)
)
STEPS = st.lists(
    st.builds(
        StepResult,
        index=st.integers(-1, 50),
        kind=TEXT,
        text=TEXT,
        status=STATUS,
        duration_ms=MS,
        error=st.none() | TEXT,
        attempts=st.integers(1, 3),
        tools=TOOLS,
        agent=AGENT,
        recorded=st.booleans(),
        artifacts=ARTIFACTS,
        evidence_errors=st.lists(TEXT, max_size=2),
    ),
    max_size=3,
)
TRAILS = st.lists(
    st.builds(
        TrailResult,
        path=TEXT,
        id=NAME,
        title=NAME,
        status=STATUS,
        driver=TEXT,
        device=st.none() | TEXT,
        duration_ms=MS,
        error=st.none() | TEXT,
        steps=STEPS,
        exit_code=st.sampled_from(list(ExitCode)),
        tags=st.lists(TEXT, max_size=2),
        skip_reason=st.none() | TEXT,
        recording_saved=st.booleans(),
        attempts=st.lists(
            st.builds(
                Attempt,
                status=STATUS,
                error=st.none() | TEXT,
                duration_ms=MS,
                artifacts=ARTIFACTS,
                failing_step=st.none() | st.builds(FailedStep, index=st.integers(-1, 50), kind=TEXT, text=TEXT),
            ),
            max_size=2,
        ),
        artifacts=ARTIFACTS,
        evidence_errors=st.lists(TEXT, max_size=2),
        remote_session=st.none()
        | st.builds(RemoteSession, id=NAME, service=TEXT, hub=TEXT, url=st.none() | TEXT, name=st.none() | TEXT),
    ),
    max_size=3,
)
RUNS = st.builds(
    RunResult,
    trails=TRAILS,
    duration_ms=MS,
    interrupted=st.booleans(),
    artifacts_dir=st.none() | NAME,
    deselected=st.integers(0, 9),
    shard=st.none() | st.tuples(st.integers(1, 4), st.just(4)),
    merged_from=st.none() | st.lists(st.fixed_dictionaries({"path": NAME, "shard": st.none()}), max_size=2),
)


@given(RUNS)
def test_a_document_read_back_writes_the_same_document(run: RunResult) -> None:
    document = json.loads(json.dumps(run.to_dict()))  # as a file holds it
    assert RunResult.from_dict(document).to_dict() == document


def test_a_trail_written_before_trails_had_exit_codes_gets_the_one_of_its_status() -> None:
    old = {"id": "t", "status": "error"}
    assert TrailResult.from_dict(old).exit_code is ExitCode.ERROR
    assert TrailResult.from_dict({**old, "status": "failed"}).exit_code is ExitCode.FAILED
    assert TrailResult.from_dict({**old, "status": "passed"}).title == "t"


def test_a_trails_remote_session_is_in_the_document_only_when_it_ran_in_one() -> None:
    trail = TrailResult("t.trail.yaml", "t", "T", "passed", "appium", "Pixel 8 14")
    assert "remote_session" not in trail.to_dict()
    trail.remote_session = RemoteSession("5b1a", "browserstack", "https://hub.browserstack.com/wd/hub", None, "T")
    shown = trail.to_dict()["remote_session"]
    assert shown == {
        "id": "5b1a",
        "service": "browserstack",
        "hub": "https://hub.browserstack.com/wd/hub",
        "url": None,
        "name": "T",
    }
    assert TrailResult.from_dict(trail.to_dict()).remote_session == trail.remote_session
    assert TrailResult.from_dict({"id": "t", "status": "passed", "remote_session": {"id": 5}}).remote_session is None
