"""What every LLM agent's conversation has in common: the prompts of a step and of a question,
the ``objectiveStatus`` call that ends a step, and the tools of a step as a model is offered
them. The ``openai`` agent (:mod:`trailblaze.agents.openai_chat`) and the MCP sampling agent
(:mod:`trailblaze.agents.sampling`) both speak it, so either says the same to its model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.api.agent import Verdict
from trailblaze.tools.agentschema import AgentNames, agent_schema

if TYPE_CHECKING:
    from trailblaze.tools.model import ToolSpec

OBJECTIVE_STATUS = "objectiveStatus"
#: tool results longer than this are cut: the model needs the gist, not a page dump
MAX_RESULT_CHARS = 2000
OMITTED_SCREEN = "(an earlier screen, omitted: only the latest screen is current)"

SYSTEM_PROMPT = """\
You are a UI test agent. You carry out exactly one step of a test on a {platform} device \
by calling tools, and nothing beyond that step.

The screen is given as a list of elements, one per line, each with a ref in brackets such as [e12]. \
Act on elements by their ref: `tap` with a ref clicks or taps it, `assertVisible` with a ref checks it; \
tools that take a `ref` or a `nodeSelector` accept the ref. Refs are valid only for the latest screen.

After your tool calls you get their results and the new screen. When the step is done, call \
`objectiveStatus` with status COMPLETE. If it cannot be done, call `objectiveStatus` with status FAILED \
and say why in `explanation`. Do not call `objectiveStatus` before you have done what the step asks.{extra}"""
VERIFY_RULE = (
    "\n\nThis is a verification step: use only the verification (read-only) tools offered, never change "
    "anything on the screen."
)
TRAILHEAD_RULE = "\n\nThis is the trail's setup step: it must be done with exactly one tool call."
ASK_PROMPT = (
    "You answer questions about the screen of a device under test. The screen is given as a list of "
    "elements, one per line. Answer briefly and only from what the screen shows; say so when it does "
    "not show the answer."
)


def objective_verdict(args: Any) -> Verdict | None:
    """How a model's ``objectiveStatus`` call ends the step, or None when it ends nothing."""
    if not isinstance(args, dict):
        return None
    status = str(args.get("status", "")).upper()
    explanation = str(args.get("explanation") or "")
    if status == "COMPLETE":
        return Verdict("complete", explanation)
    if status == "FAILED":
        return Verdict("failed", explanation or "the model reported the step as failed", error_kind="objective_failed")
    return None


@dataclass(slots=True)
class Offer:
    """The tools of one step as an LLM is offered them: OpenAI-style function schemas under names
    LLM APIs accept (:class:`~trailblaze.tools.agentschema.AgentNames`), and the tool each
    offered name means."""

    schemas: list[dict[str, Any]]
    tools: dict[str, ToolSpec]

    @classmethod
    def of(cls, specs: Sequence[ToolSpec], platform: str | None) -> Offer:
        names = AgentNames(spec.name for spec in specs)
        offered = {names.offered(spec.name): spec for spec in specs}
        return cls([tool_schema(spec, name, platform) for name, spec in offered.items()], offered)


def tool_schema(spec: ToolSpec, name: str | None = None, platform: str | None = None) -> dict[str, Any]:
    """A tool as OpenAI's ``tools`` list describes it (under ``name``, default its own), with an
    optional ``reason`` parameter (kept in the trail file next to the call, never passed to the
    tool). The schema is :func:`~trailblaze.tools.agentschema.agent_schema`'s: selectors in one
    line naming ``platform``'s matchers; the tool still validates against its whole schema."""
    parameters = agent_schema(spec.input_schema or {"type": "object", "properties": {}}, platform)
    properties = parameters.setdefault("properties", {})
    if spec.name != OBJECTIVE_STATUS and "reason" not in properties:
        properties["reason"] = {"type": "string", "description": "why this call, in a few words"}
    description = spec.description.split("\n\n", 1)[0] if spec.description else spec.name
    function = {"name": name or spec.name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}
