"""The ``openai`` agent: an LLM behind any OpenAI-compatible chat-completions endpoint.

Works with OpenAI, Ollama, vLLM, LM Studio, OpenRouter… — anything that serves
``POST {base_url}/chat/completions`` with tool calling. Configure it in ``trailblaze.yaml``::

    llm:
      base_url: http://localhost:11434/v1   # default: $OPENAI_BASE_URL, else https://api.openai.com/v1
      model: qwen2.5:14b                     # default: $OPENAI_MODEL
      api_key_env: MY_KEY                    # the variable holding the key; default OPENAI_API_KEY
      max_turns: 15                          # LLM round trips per step before it counts as failed
      groups: [core, auth]                   # offer only tools in these groups (plus ungrouped ones)

Seed 001's subagent pattern: every step is a fresh conversation holding only the step's text
and the current screen. After each round of tool calls the new screen is sent and earlier
screens are replaced by a placeholder, so the model never reasons about an outdated UI and
the context does not grow with every screen. The model acts on the screen's ephemeral refs
(``tap`` with ``ref: e12``; web tools take a ``ref`` too); Trailblaze turns them into stable
selectors, which is what gets recorded. A step ends when the model calls ``objectiveStatus``
(COMPLETE or FAILED) or after ``max_turns`` round trips. httpx is imported only when the agent
starts.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, ClassVar

from trailblaze.agents.conversation import (
    ASK_PROMPT,
    MAX_RESULT_CHARS,
    OBJECTIVE_STATUS,
    OMITTED_SCREEN,
    SYSTEM_PROMPT,
    TRAILHEAD_RULE,
    VERIFY_RULE,
    Offer,
    objective_verdict,
)
from trailblaze.agents.llm import llm_config, llm_configured
from trailblaze.api.agent import Agent, AgentSettings, StepTask, Usage, Verdict
from trailblaze.core import jsonsource
from trailblaze.core.errors import InfrastructureError, UsageError
from trailblaze.device.screen import render_screen

if TYPE_CHECKING:
    import httpx

    from trailblaze.api.agentlog import AgentLog
    from trailblaze.api.session import Session
    from trailblaze.project.config import Config
    from trailblaze.tools.model import ToolSpec

OPENAI_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_RETRIES = 2


class OpenAIAgent(Agent):
    name: ClassVar[str] = "openai"
    description: ClassVar[str] = "an LLM behind an OpenAI-compatible chat-completions endpoint (llm: in config)"

    @classmethod
    def is_configured(cls, config: Config) -> bool:
        return llm_configured(config)

    def __init__(self, settings: AgentSettings) -> None:
        super().__init__(settings)
        llm = llm_config(settings.config)
        self.llm = llm
        self.base_url = (llm.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL).rstrip("/")
        key_variable = llm.api_key_env or "OPENAI_API_KEY"
        self.api_key = os.environ.get(key_variable) or None
        if llm.api_key_env and self.api_key is None:
            raise UsageError(f"llm.api_key_env names {key_variable}, which is not set")
        if self.base_url == OPENAI_BASE_URL and self.api_key is None:
            raise UsageError(
                "the openai agent needs an API key: set OPENAI_API_KEY (or llm.api_key_env), "
                "or llm.base_url / OPENAI_BASE_URL for a local server"
            )
        model = llm.model or os.environ.get("OPENAI_MODEL")
        if not model:
            raise UsageError(
                "the openai agent needs a model: set `llm: {model: NAME}` in trailblaze.yaml (or OPENAI_MODEL)"
            )
        self.model: str = model
        self._client: httpx.AsyncClient | None = None

    async def start(self, session: Session) -> None:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self._client = httpx.AsyncClient(timeout=self.llm.timeout_s, headers=headers)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- one step ---------------------------------------------------------------------------------

    async def solve(self, task: StepTask) -> Verdict:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system_prompt(task)},
            {"role": "user", "content": await self._step_message(task)},
        ]
        usage = Usage(model=self.model)
        log = task.log
        for _ in range(self.llm.max_turns):
            # offered anew every turn: the agent may enable tool categories during its step (``toolbox``)
            offer = Offer.of(task.tools_in_groups(self.llm.groups), task.session.info.platform)
            reply = await self._complete(messages, offer.schemas, usage, log)
            calls = reply.get("tool_calls") or []
            messages.append(_assistant_message(reply))
            thought = str(reply.get("content") or "")
            if not calls:
                log.iteration(completion=thought, calls=[], response_type="no_tool")
                messages.append(
                    {"role": "user", "content": "Call a tool to act, or objectiveStatus when the step is done."}
                )
                continue
            done: list[dict[str, Any]] = []
            for call in calls:
                verdict = await self._run_call(task, call, offer.tools, messages, done)
                if verdict is not None:
                    log.iteration(completion=thought, calls=done, response_type=verdict.status)
                    verdict.usage = usage
                    return verdict
            log.iteration(completion=thought, calls=done, response_type="tool_call")
            _forget_screens(messages)
            messages.append({"role": "user", "content": await self._screen_message(task)})
        return Verdict(
            "failed", f"the step was not finished after {self.llm.max_turns} LLM turns", usage, error_kind="turn_limit"
        )

    async def _run_call(
        self,
        task: StepTask,
        call: dict[str, Any],
        offered: dict[str, ToolSpec],
        messages: list[dict[str, Any]],
        done: list[dict[str, Any]],
    ) -> Verdict | None:
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        content: str
        args: Any = function.get("arguments")
        try:
            args = jsonsource.parse(function.get("arguments") or "{}")
            if not isinstance(args, dict):
                raise ValueError("the arguments are not a JSON object")
        except ValueError as exc:
            content = f"error: cannot read the arguments as JSON ({exc}); call the tool again"
        else:
            if name == OBJECTIVE_STATUS:
                verdict = objective_verdict(args)
                if verdict is not None:
                    done.append({"tool": name, "args": args, "ok": True, "result": verdict.status})
                    return verdict
                content = "noted; go on with the step"
            elif name not in offered:
                content = f"error: {name!r} is not one of the tools offered for this step"
            else:
                result = await task.call(offered[name].name, args)
                content = result.describe()
        ok = not content.startswith(("error:", "failed:"))
        done.append({"tool": name, "args": args, "ok": ok, "result": content})
        messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content[:MAX_RESULT_CHARS]})
        return None

    async def answer(self, question: str, screen: str) -> tuple[str, Usage]:
        """Answer a question about the screen in one completion, without tools
        (``trailblaze mcp``'s ``ask``)."""
        usage = Usage(model=self.model)
        messages = [
            {"role": "system", "content": ASK_PROMPT},
            {"role": "user", "content": f"The question: {question}\n\nThe screen now:\n{screen}"},
        ]
        reply = await self._complete(messages, [], usage)
        return str(reply.get("content") or "").strip(), usage

    def _system_prompt(self, task: StepTask) -> str:
        extra = VERIFY_RULE if task.verify_only else TRAILHEAD_RULE if task.kind == "trailhead" else ""
        if task.context:
            extra += f"\n\nAbout the app under test: {task.context}"
        return SYSTEM_PROMPT.format(platform=task.session.info.platform, extra=extra)

    async def _step_message(self, task: StepTask) -> str:
        return f"The step: {task.text}\n\n{await self._screen_message(task)}"

    async def _screen_message(self, task: StepTask) -> str:
        return f"The screen now:\n{render_screen(await task.screen())}"

    # -- HTTP ----------------------------------------------------------------------------------------

    async def _complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], usage: Usage, log: AgentLog | None = None
    ) -> Any:
        import time

        assert self._client is not None, "start() was not called"
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        if self.llm.temperature is not None:
            body["temperature"] = self.llm.temperature
        url = f"{self.base_url}/chat/completions"
        started = time.monotonic()
        try:
            data, reply = await self._request(url, body)
        except (InfrastructureError, UsageError) as exc:
            if log is not None:  # the log says which request failed, and how
                log.sampling(
                    messages=messages,
                    completion=None,
                    model=self.model,
                    duration_ms=(time.monotonic() - started) * 1000,
                    strategy="DIRECT",
                    tools=[t["function"]["name"] for t in tools],
                    error=str(exc),
                )
            raise
        usage.turns += 1
        usage.model = data.get("model") or usage.model
        counts = data.get("usage") or {}
        prompt_tokens, completion_tokens = _count(counts, "prompt_tokens"), _count(counts, "completion_tokens")
        usage.prompt_tokens += prompt_tokens
        usage.completion_tokens += completion_tokens
        if log is not None:
            log.sampling(
                messages=messages,
                completion=reply,
                model=usage.model,
                duration_ms=(time.monotonic() - started) * 1000,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                strategy="DIRECT",
                tools=[t["function"]["name"] for t in tools],
            )
        return reply

    async def _request(self, url: str, body: dict[str, Any]) -> tuple[Any, Any]:
        """POST one completion request (retried on connection errors and 429/5xx): the answer
        and its message."""
        import httpx

        assert self._client is not None, "start() was not called"
        for attempt in range(_RETRIES + 1):
            try:
                response = await self._client.post(url, json=body)
            except httpx.HTTPError as exc:
                if attempt < _RETRIES:
                    await asyncio.sleep(1 + attempt)
                    continue
                raise InfrastructureError(f"cannot reach the LLM at {url}: {type(exc).__name__}: {exc}") from None
            if response.status_code in _RETRY_STATUS and attempt < _RETRIES:
                await asyncio.sleep(1 + attempt)
                continue
            break
        if response.status_code in (401, 403):
            raise UsageError(f"the LLM at {url} refused the API key ({response.status_code}): {_error_text(response)}")
        if response.status_code >= 400:
            raise InfrastructureError(f"the LLM at {url} answered {response.status_code}: {_error_text(response)}")
        try:
            data = response.json()
            reply = data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise InfrastructureError(f"the LLM at {url} sent an answer that is not a chat completion") from None
        return data, reply


def _count(counts: Any, key: str) -> int:
    try:
        return int(counts.get(key) or 0)
    except (TypeError, ValueError, AttributeError):
        return 0


def _assistant_message(reply: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content") or ""}
    if reply.get("tool_calls"):
        message["tool_calls"] = reply["tool_calls"]
    return message


def _forget_screens(messages: list[dict[str, Any]]) -> None:
    """Replace the screens already sent: only the newest one may be acted on."""
    for message in messages:
        if message["role"] == "user" and "The screen now:\n" in message["content"]:
            head = message["content"].split("The screen now:\n", 1)[0]
            message["content"] = head + OMITTED_SCREEN


def _error_text(response: httpx.Response) -> str:
    try:
        data = response.json()
        error = data.get("error", data) if isinstance(data, dict) else data
        message = error.get("message") if isinstance(error, dict) else None
        return str(message or error)[:300]
    except ValueError:
        return response.text[:300] or response.reason_phrase
