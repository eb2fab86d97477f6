"""The ``trail`` and ``session`` session tools: save the recording as a trail, run a saved one,
list and show trails; start, stop and inspect the recording.
"""

from __future__ import annotations

import time
from typing import Any

from trailblaze.core.errors import TrailblazeError, UsageError
from trailblaze.mcpserver import arguments as A
from trailblaze.mcpserver import recording as rec
from trailblaze.mcpserver.calls import ECHO_CHARS, Call, Reply, ToolError, parse_args
from trailblaze.mcpserver.device_calls import cut
from trailblaze.mcpserver.device_tool import connect, device
from trailblaze.mcpserver.state import ClientState
from trailblaze.mcpserver.trails import find_trail, list_trails
from trailblaze.mcpserver.trails import shown as _shown
from trailblaze.runner.checks import collect_trails


async def trail(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.TrailArgs = parse_args(A.TrailArgs, arguments)
    state = call.state
    action = args.action
    if action is A.TrailAction.LIST:
        return Reply(list_trails(state, args.filter, args.page or 1))
    if action is A.TrailAction.SAVE:
        return Reply(await _save(call, args.name))
    if action is A.TrailAction.END:
        recording = state.recording
        recording.active = False
        return Reply(
            {
                "ended": True,
                **recording.summary(),
                "message": f"recording stopped with {len(recording.steps)} steps"
                + ("" if recording.saved_to else " (not saved; trail(action=SAVE) still can)"),
            }
        )
    if args.platform is not None or args.device is not None:
        await device(call, _connect_arguments(args.platform, args.device))
    if action is A.TrailAction.START:
        discarded = len(state.recording.steps) if state.recording.saved_to is None else 0
        recording = state.new_recording(args.name)
        note = f"; the {discarded} unsaved steps recorded before are in session(action=LIST)" if discarded else ""
        return Reply({"started": True, **recording.summary(), "message": f"recording started{note}"})
    return await _run(call, args.name, args.file)


def _connect_arguments(platform: A.Platform | None, device_id: str | None) -> dict[str, Any]:
    if platform is None:
        return {"action": "CONNECT", "deviceId": device_id}
    return {"action": platform.value, "deviceId": device_id}


async def _save(call: Call, name: str | None) -> dict[str, Any]:
    """Write the recording as a trail; a new file is a new resource (``resources/list_changed``)."""
    state = call.state
    recording = state.recording
    title = name or recording.title
    if not title:
        raise ToolError('give the trail a name: trail(action=SAVE, name="checkout-flow")')
    try:
        path = rec.trail_path(state.project.config.trails_dir, title)
    except UsageError as exc:
        raise ToolError(str(exc)) from None
    if path.exists() and path.resolve() not in {p.resolve() for p in state.artifacts}:
        raise ToolError(
            f"{_shown(state, path)} already exists and was not written by this session: choose another name"
        )
    target = state.device.live.target if state.device is not None and state.device.session is not None else None
    try:
        ran_in = state.device.trail.path.parent if state.device is not None else state.project.config.trails_dir
        text = rec.render(title, recording.steps, path, target=target, ran_in=ran_in)
        rec.save(path, text)
    except TrailblazeError as exc:
        raise ToolError(str(exc)) from None
    recording.title = title
    recording.saved_to = path
    if path not in state.artifacts:  # saved again: the same file
        state.artifacts.append(path)
        await call.resources_changed()
    shown = _shown(state, path)
    steps = len(recording.steps)
    return {
        "saved": True,
        "name": title,
        "file": shown,
        "steps": steps,
        "message": f"saved {steps} step{'' if steps == 1 else 's'}; replay it with `trailblaze run {shown}` (no LLM) "
        f'or trail(action=RUN, file="{shown}")',
    }


async def _run(call: Call, name: str | None, file: str | None) -> Reply:
    """Replay a trail deterministically (no LLM), with progress per step; not recorded (use the
    ``runTrail`` tool to make a trail part of the session's recording)."""
    state = call.state
    path = find_trail(state, name, file)
    async with state.lock:
        if state.device is None:
            trails, problems = collect_trails(state.project, [path], {}, require_args=False)
            if problems or not trails:
                raise ToolError("; ".join(str(p) for p in problems) or f"{path} is not a trail")
            driver = state.project.default_driver_name(state.defaults.driver, trails[0])
            await connect(state, driver, state.defaults.device, None)
            await call.tools_changed()
        device = state.device
        assert device is not None
        try:
            loaded = device.load(path)
        except TrailblazeError as exc:
            raise ToolError(str(exc)) from None
        started = time.perf_counter()
        result = await device.replay(loaded, call.progress)
    steps = [
        {"index": s.index, "kind": s.kind, "text": s.text, "status": s.status, "error": s.error} for s in result.steps
    ]
    passed = result.status in ("passed", "healed")
    data = {
        "passed": passed,
        "status": result.status,
        "trail": result.id,
        "file": _shown(state, path),
        "steps": steps,
        "error": result.error,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
        "note": "replays are not recorded; the runTrail tool makes a trail part of the recording",
    }
    return Reply(data, error=not passed)


async def session(call: Call, arguments: dict[str, Any]) -> Reply:
    args: A.SessionArgs = parse_args(A.SessionArgs, arguments)
    state = call.state
    action = args.action
    if action is A.SessionAction.START:
        recording = state.new_recording(args.title)
        return Reply({"started": True, **recording.summary()})
    if action is A.SessionAction.SAVE:
        return Reply(await _save(call, args.title))
    if action is A.SessionAction.STOP:
        saved = await _save(call, args.title) if args.save else None
        state.recording.active = False
        return Reply({"stopped": True, **state.recording.summary(), "saved": saved})
    if action is A.SessionAction.LIST:
        recordings = state.recordings()[-(args.limit or 20) :]
        return Reply({"session": state.id, "recordings": [r.summary() for r in recordings]})
    recording = _recording(state, args.id)
    if action is A.SessionAction.INFO:
        device_info = state.device.describe() if state.device is not None and state.device.session else None
        return Reply(
            {
                "session": state.id,
                **recording.summary(),
                "device": device_info,
                "mode": state.settings.mode.value,
                "steps": cut([s.to_dict() for s in recording.steps], ECHO_CHARS),
            }
        )
    files = [p for p in state.artifacts if p.exists()]
    return Reply({"session": state.id, "recording": recording.id, "artifacts": [_shown(state, p) for p in files]})


def _recording(state: ClientState, wanted: str | None) -> rec.Recording:
    if wanted is None:
        return state.recording
    for recording in state.recordings():
        if recording.id == wanted:
            return recording
    raise ToolError(f"no recording {wanted!r} in this session (session(action=LIST) lists them)")
