"""What ``trailblaze mcp`` offers a client, as plain JSON: its instructions and the tools of
``tools/list`` (upstream's session tools, then the device's tools of the enabled categories).

Built without the ``mcp`` SDK, so the first ``tools/list`` of a stdio session can be answered
before the SDK is imported (:mod:`.prelude`); :mod:`.server` hands the same entries to the SDK.

Every entry is what an agent's LLM reads on every turn, so it is kept short: schemas as
:func:`trailblaze.tools.agentschema.agent_schema` makes them (optional = not required, no null
branches or titles, selectors in one line naming the connected platform's matchers), each
device tool with a ``reason`` parameter, and names LLM APIs accept
(:class:`~trailblaze.tools.agentschema.AgentNames`; :func:`tool_name` maps them back).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from trailblaze.tools.agentschema import AgentNames, agent_schema

if TYPE_CHECKING:
    from trailblaze.mcpserver.state import ClientState
    from trailblaze.tools.model import ToolSpec

SERVER_NAME = "trailblaze"
SERVER_TITLE = "Trailblaze"

INSTRUCTIONS = """\
Trailblaze drives a web browser, an Android phone or an iPhone, and saves what you do as a trail \
that `trailblaze run` replays without any LLM.

1. Connect: device(action=WEB) (or ANDROID, IOS; device(action=LIST) shows what is reachable). \
The device's tools then appear (tools/list changes).
2. Look: ask(question=...) returns the screen as lines with refs like [e12]; every device tool's \
reply shows the screen after it, or only the lines that changed (+ new, - gone, ~ the same ref now reads otherwise).
3. Act: call the device's tools (web_click with ref="e12", web_type, tap, inputText, ...); give \
`reason` to name the step. Or run several calls as one named step: step(objective="Log in", \
tools="- web_type: {ref: e3, text: ada}\\n- web_click: {ref: e5}").
4. Check: step(objective="The welcome banner shows", hint="VERIFY", tools=...) with read-only tools \
(toolbox(action=ENABLE, categories=["VERIFICATION"]) lists them).
5. Save: trail(action=SAVE, name="login"); trail(action=RUN, name="login") replays it.
Calls that fail are not recorded. toolbox lists every tool and offers more (profiles: MINIMAL, \
DEFAULT, STANDARD, TESTING, ALL). In TRAILBLAZE_AS_AGENT mode (config), step(objective) and \
runPrompt(steps) are worked out by trailblaze's own agent."""

#: session tools, the name of their arguments' model (in :mod:`.arguments`) and what they are for
SESSION_TOOLS: dict[str, tuple[str, str]] = {
    "device": (
        "DeviceArgs",
        "Connect a device or get device info. device(action=WEB) opens a browser (always available), "
        "ANDROID/IOS the first phone, CONNECT a device by id, LIST what is reachable, INFO the connected one. "
        "Connecting starts recording the session; its tools then appear.",
    ),
    "step": (
        "StepArgs",
        "Take one step toward your objective, recorded as one trail step with `objective` as its text. "
        "With `tools` (YAML tool calls, as in a trail's recording) the calls run directly, no LLM. "
        'hint="VERIFY" allows only read-only checks, records a verify step and returns passed true/false. '
        "Without tools, in TRAILBLAZE_AS_AGENT mode, trailblaze's agent works it out. "
        "Returns what happened and the screen now.",
    ),
    "ask": (
        "AskArgs",
        "Look at the current screen: the elements one per line with refs ([e12]), optionally the view "
        "hierarchy and a screenshot. In TRAILBLAZE_AS_AGENT mode trailblaze's agent answers the question. "
        "Never recorded.",
    ),
    "trail": (
        "TrailArgs",
        "Trails: SAVE writes the recorded session as a trail file (name=...) that `trailblaze run` replays; "
        "RUN replays a trail by name or file, deterministically, with progress; LIST pages through the "
        "project's trails (filter, page); START begins a new named recording; END stops recording.",
    ),
    "session": (
        "SessionArgs",
        "The recording session: START a new one (title), STOP (save=true saves first), SAVE as a trail, "
        "INFO (its steps so far), LIST this session's recordings, ARTIFACTS (screenshots, saved files).",
    ),
    "config": (
        "ConfigArgs",
        "Session settings: GET (all or key), SET key value, LIST keys with options. Keys: mode "
        "(MCP_CLIENT_AS_AGENT, TRAILBLAZE_AS_AGENT), target, llmCallStrategy (DIRECT, MCP_SAMPLING), "
        "toolProfile, screenshotFormat, viewHierarchyVerbosity, autoIncludeScreenshot.",
    ),
    "toolbox": (
        "ToolboxArgs",
        "The device tools on offer, in categories (CORE_INTERACTION, NAVIGATION, OBSERVATION, VERIFICATION, "
        "MEMORY, APP); DEFAULT offers CORE_INTERACTION and OBSERVATION. LIST shows every tool (search, name, "
        "detail: full schemas); ENABLE/DISABLE categories or pick a PROFILE (MINIMAL, DEFAULT, STANDARD, "
        "TESTING, ALL) to change what tools/list offers; RELOAD reads the project's tool files again and "
        "restarts its MCP toolset servers (the device and recording stay).",
    ),
    "trailEdit": (
        "TrailEditArgs",
        "Fix the steps this session recorded, before trail(action=SAVE): GET lists them (index from 0); "
        "INSERT a step (prompt, position; no recording), REPLACE one's prompt or stepType (its recording is kept), "
        "DELETE (index, count), MOVE (index, position), CLEAR_RECORDING (index, or all).",
    ),
    "logcat": (
        "LogcatArgs",
        "Android only: the device's log since it was connected. QUERY lists the lines matching pattern "
        "(a regex; tag narrows to one log tag), ASSERT says passed true/false. For what the screen does not "
        "show: analytics events, failed requests, crashes. Never recorded.",
    ),
    "runPrompt": (
        "RunPromptArgs",
        "Run steps in plain language on the connected device with trailblaze's own agent "
        "(TRAILBLAZE_AS_AGENT mode); each is recorded as a trail step. Prefer few, complete steps.",
    ),
    "getAgentMetrics": (
        "GetAgentMetricsArgs",
        "How trailblaze's agent has done (step and runPrompt in TRAILBLAZE_AS_AGENT mode), for this session "
        "and the whole server: runs, successes, failures and errors by kind, iterations, tokens, LLM time.",
    ),
    "clearAgentMetrics": (
        "ClearAgentMetricsArgs",
        "Start the agent metrics over: scope ALL (default) clears every count, SESSION this session's runs.",
    ),
}
#: the session tools' names: the device's own tools of the same name are not offered beside them
SESSION_TOOL_NAMES = frozenset(SESSION_TOOLS)
#: the parameter every device tool gets: its text names the recorded step
REASON = {"type": "string", "description": "Why, in a few words: the recorded step's text"}


def tool_entries(state: ClientState) -> list[dict[str, Any]]:
    """The ``tools/list`` of a session in its current state, as wire-format JSON."""
    entries = [session_tool_entry(name) for name in SESSION_TOOLS if _offered(name, state)]
    specs = state.device_tools(SESSION_TOOL_NAMES)
    offered = agent_names(state)
    platform = state.platform()
    entries.extend(device_tool_entry(spec, state, offered.offered(spec.name), platform) for spec in specs)
    return entries


def _offered(name: str, state: ClientState) -> bool:
    """runPrompt is trailblaze's agent; logcat reads an Android device's log."""
    from trailblaze.mcpserver.settings import Mode

    if name == "runPrompt":
        return state.settings.mode is Mode.TRAILBLAZE_AS_AGENT
    if name == "logcat":
        device = state.device
        return device is not None and device.session is not None and device.platform == "android"
    return True


@functools.cache
def session_tool_entry(name: str) -> dict[str, Any]:
    from trailblaze.mcpserver import arguments

    model_name, description = SESSION_TOOLS[name]
    return {
        "name": name,
        "description": description,
        "inputSchema": agent_schema(arguments.schema(getattr(arguments, model_name))),
        "_meta": {"trailblaze/sessionTool": True},
    }


def device_tool_entry(spec: ToolSpec, state: ClientState, name: str, platform: str | None) -> dict[str, Any]:
    schema = agent_schema(spec.input_schema or {"type": "object", "properties": {}}, platform)
    properties = schema.setdefault("properties", {})
    if "nodeSelector" in properties and "ref" not in properties:
        # the session swaps a ref for the selector it points at before the call runs
        properties = {"ref": {"type": "string", "description": "The element's ref on the current screen"}, **properties}
        schema["properties"] = properties
    properties.setdefault("reason", REASON)
    meta = spec.metadata
    return {
        "name": name,
        "description": _first_paragraph(spec.description) or spec.name,
        "inputSchema": schema,
        "_meta": {
            "trailblaze/tool": spec.name,
            "trailblaze/source": spec.source,
            "trailblaze/categories": state.category_names(spec),
            "trailblaze/isRecordable": meta.recordable,
            "trailblaze/isVerification": meta.verification,
            "trailblaze/isDelegating": meta.delegating,
            "trailblaze/isQuery": meta.query,
        },
    }


def agent_names(state: ClientState) -> AgentNames:
    """The names the session's tools are offered under (every device tool's, offered or not, so
    a name does not change when the categories do)."""
    return AgentNames([*SESSION_TOOLS, *(spec.name for spec in state.all_device_tools())])


def tool_name(state: ClientState, offered: str) -> str:
    """The tool a name from ``tools/call`` means."""
    if offered in SESSION_TOOLS:
        return offered
    return agent_names(state).tool(offered)


def _first_paragraph(text: str | None) -> str:
    """A description's first paragraph, its lines joined: the rest is for people reading the
    source (``toolbox(action=LIST, name=…)`` shows the whole)."""
    return " ".join((text or "").split("\n\n", 1)[0].split())
