"""``trailEdit``: the agent fixes the steps it recorded without starting over (upstream's tool,
its actions and arguments).

Upstream edits a saved trail file by name; here the tool edits the session's recording — the
steps ``trail(action=SAVE)`` writes — so an agent that recorded a wrong click deletes that step,
one that recorded in the wrong order moves a step, and a vague text is replaced; then SAVE
writes the edited steps (over the file this session saved before, if it did). Indexes count
from 0, as upstream's do and as GET lists them; every index is checked and a wrong one is an
error naming the valid range.

What is kept, as a pytest or Playwright user would expect of an edit: REPLACE changes a step's
text or type and keeps its recorded calls (they are what ran; upstream drops them when the text
changes — CLEAR_RECORDING does that here). A step INSERTed has text only: no calls ran for it,
so ``trailblaze run`` needs an agent for it (``--self-heal``, or ``trailblaze record``). To add a
recorded step, run it (a device tool or ``step``) — it is appended — and MOVE it into place. A
``prompt`` is a step's text, bounded as ``step``'s objective is (``TRAILBLAZE_MAX_STEP_TEXT_CHARS``).
"""

from __future__ import annotations

from typing import Any

from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver.calls import Call, Reply, ToolError
from trailblaze.mcpserver.device_calls import check_step_text
from trailblaze.mcpserver.recording import RecordedStep, Recording, StepKind
from trailblaze.mcpserver.state import ClientState


async def trail_edit(call: Call, arguments: dict[str, Any]) -> Reply:
    try:
        args: A.TrailEditArgs = A.parse(A.TrailEditArgs, arguments)
    except ValueError as exc:
        raise ToolError(f"invalid arguments: {exc}") from None
    if args.prompt is not None:
        check_step_text(args.prompt, "prompt")
    state = call.state
    recording = state.recording
    _check_name(recording, args.name)
    if args.action is A.TrailEditAction.GET:
        return Reply(_listing(recording, full=True))
    steps = recording.steps
    changes = _EDITS[args.action](state, steps, args)
    data = {"changes": changes, **_listing(recording, full=False)}
    if recording.saved_to is not None:
        data["note"] = f"{recording.saved_to.name} still holds the steps as saved: trail(action=SAVE) writes these"
    return Reply(data)


def _check_name(recording: Recording, name: str | None) -> None:
    if name is None or recording.title in (None, name):
        return
    raise ToolError(
        f"trailEdit edits this session's recording, {recording.title!r}, not {name!r}: "
        "leave name out (trail(action=RUN) and trail(action=LIST) work with saved trails)"
    )


def _listing(recording: Recording, *, full: bool) -> dict[str, Any]:
    steps = recording.steps
    recorded = sum(1 for s in steps if s.calls)
    listed = []
    for index, step in enumerate(steps):
        entry: dict[str, Any] = {"index": index, "type": step.kind, "prompt": step.text}
        entry["hasRecording"] = bool(step.calls)
        if full:
            entry["tools"] = step.to_dict()["tools"]
        listed.append(entry)
    return {
        "recording": recording.id,
        "title": recording.title,
        "steps": listed,
        "totalSteps": len(steps),
        "recordedSteps": recorded,
        "unrecordedSteps": len(steps) - recorded,
    }


# -- the edits: each changes ``steps`` in place and says what it did -------------------------------------


def _insert(state: ClientState, steps: list[RecordedStep], args: A.TrailEditArgs) -> list[str]:
    prompt = _required(args.prompt, "prompt", 'trailEdit(action=INSERT, position=0, prompt="Open the login page")')
    position = len(steps) if args.position in (None, -1) else args.position
    assert position is not None
    if not 0 <= position <= len(steps):
        raise ToolError(f"position {args.position} is out of range: 0 to {len(steps)} (or -1 for the end)")
    kind: StepKind = "verify" if args.stepType is A.StepType.VERIFY else "step"
    steps.insert(position, RecordedStep(kind, prompt, "", []))  # no calls: no classifier to file them under
    return [f"inserted {kind} {_quote(prompt)} at {position}, with no recording: a replay needs an agent for it"]


def _replace(state: ClientState, steps: list[RecordedStep], args: A.TrailEditArgs) -> list[str]:
    index = _index(steps, args.index, "REPLACE")
    if args.prompt is None and args.stepType is None:
        raise ToolError('REPLACE needs prompt, stepType or both: trailEdit(action=REPLACE, index=2, prompt="...")')
    step = steps[index]
    kind: StepKind = step.kind
    if args.stepType is not None:
        kind = "verify" if args.stepType is A.StepType.VERIFY else "step"
    if kind == "verify" and step.kind != "verify":
        _check_checks_only(state, index, step)
    before = f"{step.kind} {_quote(step.text)}"
    step.kind = kind
    step.text = args.prompt if args.prompt is not None else step.text
    kept = " (its recording is kept)" if step.calls else ""
    return [f"step {index}: {before} is now {kind} {_quote(step.text)}{kept}"]


def _delete(state: ClientState, steps: list[RecordedStep], args: A.TrailEditArgs) -> list[str]:
    index = _index(steps, args.index, "DELETE")
    end = _end(steps, index, args.count)
    removed = steps[index:end]
    del steps[index:end]
    return [f"deleted step {index + offset}: {_quote(step.text)}" for offset, step in enumerate(removed)]


def _move(state: ClientState, steps: list[RecordedStep], args: A.TrailEditArgs) -> list[str]:
    index = _index(steps, args.index, "MOVE")
    if args.position is None:
        raise ToolError("MOVE needs position, the step's new index: trailEdit(action=MOVE, index=4, position=1)")
    if not 0 <= args.position < len(steps):
        raise ToolError(f"position {args.position} is out of range: {_range(steps)}")
    step = steps.pop(index)
    steps.insert(args.position, step)
    if index == args.position:
        return [f"step {index} is already at {index}"]
    return [f"moved {_quote(step.text)} from {index} to {args.position}"]


def _clear_recording(state: ClientState, steps: list[RecordedStep], args: A.TrailEditArgs) -> list[str]:
    if args.index is None:
        if args.count is not None:
            raise ToolError("count needs index: trailEdit(action=CLEAR_RECORDING, index=2, count=2)")
        chosen = list(enumerate(steps))
    else:
        index = _index(steps, args.index, "CLEAR_RECORDING")
        chosen = list(enumerate(steps))[index : _end(steps, index, args.count)]
    changes = []
    for index, step in chosen:
        if step.calls:
            step.calls = []
            changes.append(f"cleared the recording of step {index}: {_quote(step.text)}")
    return changes or ["no recording to clear"]


_EDITS = {
    A.TrailEditAction.INSERT: _insert,
    A.TrailEditAction.REPLACE: _replace,
    A.TrailEditAction.DELETE: _delete,
    A.TrailEditAction.MOVE: _move,
    A.TrailEditAction.CLEAR_RECORDING: _clear_recording,
}


# -- checks ----------------------------------------------------------------------------------------------


def _index(steps: list[RecordedStep], index: int | None, action: str) -> int:
    if not steps:
        raise ToolError("the recording has no steps yet")
    if index is None:
        raise ToolError(f"{action} needs index, the step's number from trailEdit(action=GET) ({_range(steps)})")
    if not 0 <= index < len(steps):
        raise ToolError(f"index {index} is out of range: {_range(steps)}")
    return index


def _end(steps: list[RecordedStep], index: int, count: int | None) -> int:
    end = index + (count or 1)
    if end > len(steps):
        raise ToolError(f"count {count} from index {index} goes past the last step ({_range(steps)})")
    return end


def _range(steps: list[RecordedStep]) -> str:
    if len(steps) == 1:
        return "the recording has 1 step, index 0"
    return f"the recording has {len(steps)} steps, indexes 0 to {len(steps) - 1}"


def _required(value: str | None, name: str, example: str) -> str:
    if value is None or not value.strip():
        raise ToolError(f"{name} is required: {example}")
    return value


def _check_checks_only(state: ClientState, index: int, step: RecordedStep) -> None:
    """A verify step may only record checks (replay refuses anything else in one)."""
    specs = {spec.name: spec for spec in state.all_device_tools()}
    actions = [c.name for c in step.calls if not (c.name in specs and specs[c.name].metadata.verification)]
    if actions:
        raise ToolError(
            f"step {index} records {', '.join(actions)}, which a verify step may not hold: keep it a STEP, or "
            "CLEAR_RECORDING it first"
        )


def _quote(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:59] + "…")
