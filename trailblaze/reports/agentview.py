"""The agent view: what an agent did on a step, from its log (:mod:`trailblaze.api.agentlog`).

For each agent run — a step ``run --self-heal`` or ``record`` had an agent work out, a ``step``
or ``runPrompt`` step of ``trailblaze mcp`` — the objective and how it ended, then each
iteration: the LLM's thought, the tools it called with their arguments and results, and the
prompt it was sent, folded (the messages, the model, tokens and how long the completion took);
then every tool execution with its duration and transport, and the screenshot of the screen as
the agent left it, inlined.

The HTML report shows it under each step an agent worked on (:func:`step_view`); ``trailblaze
show-report`` makes a page of a whole MCP session's runs (:func:`write_session_page`) from the
session's folder (``.trailblaze/mcp/<session>/``; ``.trailblaze/mcp`` means the newest). Every
text is escaped: nothing an LLM or a page said can inject markup.
"""

from __future__ import annotations

import base64
import html
import json
import mimetypes
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trailblaze.api.agentlog import FILE_NAME, read_records
from trailblaze.core.reportfiles import HTML_GENERATOR

#: the page ``show-report`` writes into an MCP session's folder
SESSION_PAGE = "agent-report.html"
#: screenshots larger than this are linked, not inlined
MAX_INLINE_IMAGE = 2_000_000
#: characters of a prompt's messages shown (the log is cut already; this keeps the page light)
MAX_PROMPT_CHARS = 20_000

CSS = """
.agent-run{border:1px solid var(--line);border-left:4px solid var(--muted);border-radius:6px;margin:8px 0;
  padding:6px 12px;background:#fff}
.agent-run.complete{border-left-color:var(--ok)}
.agent-run.failed,.agent-run.error{border-left-color:var(--bad)}
.agent-run h3{font-size:14px;margin:4px 0}
.agent-meta{color:var(--muted);margin:2px 0;font-size:12px}
.iterations{padding-left:20px;margin:4px 0}
.iteration{margin:6px 0}
.thought{margin:2px 0;font-style:italic;white-space:pre-wrap}
.calls{margin:2px 0;padding-left:16px}
.calls .bad{color:var(--bad)}
details.prompt summary,details.tool-runs summary{cursor:pointer;color:var(--muted);font-size:12px}
details.prompt pre,details.tool-runs pre{white-space:pre-wrap;word-break:break-word;background:var(--bg);
  padding:6px;border-radius:4px;font-size:12px;max-height:400px;overflow:auto}
.agent-shot{max-width:320px;border:1px solid var(--line);border-radius:4px;margin:6px 0}
"""

_PAGE_CSS = """
:root{--ok:#1a7f37;--bad:#cf222e;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#1f2328}
header{padding:16px 24px;background:var(--bg);border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 8px}
main{padding:12px 24px}
.meta{color:var(--muted);margin:8px 0 0}
"""


def runs(records: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The records grouped by agent run, in the order the runs began."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        grouped.setdefault(str(record.get("run")), []).append(record)
    return list(grouped.values())


def step_view(step: Mapping[str, Any], base: Path | None) -> str:
    """The agent view of a step of the HTML report (its ``agent`` and ``agent-log`` artifact), or
    nothing when the step has none."""
    agent = step.get("agent")
    if not isinstance(agent, Mapping) or not isinstance(agent.get("run"), str):
        return ""
    paths = [
        str(a["path"])
        for a in step.get("artifacts") or []
        if isinstance(a, Mapping) and a.get("kind") == "agent-log" and isinstance(a.get("path"), str)
    ]
    if not paths:
        return ""
    log = Path(paths[0]) if base is None else base / paths[0]
    mine = [r for r in read_records(log) if r.get("run") == agent["run"]]
    return render_run(mine, log.parent, screenshot=False) if mine else ""  # the step's evidence shows it


def render_run(records: Sequence[Mapping[str, Any]], folder: Path, *, screenshot: bool = True) -> str:
    """One agent run as HTML; ``folder`` holds its screenshot (shown unless ``screenshot`` is
    False: a step of the report shows it among its evidence)."""
    run = next((r for r in records if r.get("record") == "agent_run"), None) or {}
    samplings = [r for r in records if r.get("record") == "sampling"]
    iterations = [r for r in records if r.get("record") == "iteration"]
    tools = [r for r in records if r.get("record") == "tool"]
    status = str(run.get("status") or "unfinished")
    objective = run.get("objective") or next((r.get("step") for r in records), "")
    parts = [
        f'<section class="agent-run {_e(status)}">',
        f'<h3><span class="badge {_e(_badge(status))}">{_e(status)}</span> {_e(objective)}</h3>',
        f'<p class="agent-meta">{_e(_meta(run, records))}</p>',
    ]
    if run.get("explanation"):
        parts.append(f'<p class="agent-meta">{_e(run.get("error_kind") or "result")}: {_e(run["explanation"])}</p>')
    parts.append('<ol class="iterations">')
    for number, iteration in enumerate(iterations):
        sampling = samplings[number] if number < len(samplings) else None
        parts.append(_iteration(iteration, sampling))
    parts.append("</ol>")
    if tools:
        rows = "".join(
            f"<li><code>{_e(t.get('tool'))}</code> {'ok' if t.get('ok') else 'failed'} · "
            f"{_ms(t.get('duration_ms'))} · {_e(t.get('transport'))}</li>"
            for t in tools
        )
        parts.append(
            f'<details class="tool-runs"><summary>{len(tools)} tool executions</summary><ul>{rows}</ul></details>'
        )
    shot = run.get("screenshot")
    if screenshot and isinstance(shot, str) and shot and "/" not in shot and "\\" not in shot:
        src = _inline(folder / shot) or shot
        image = f'<img class="agent-shot" alt="the screen after the agent" src="{_e(src)}">'
        parts.append(f'<a href="{_e(shot)}">{image}</a>')
    parts.append("</section>")
    return "".join(parts)


def _iteration(iteration: Mapping[str, Any], sampling: Mapping[str, Any] | None) -> str:
    thought = iteration.get("completion")
    calls = "".join(
        f"<li{'' if call.get('ok') else ' class=bad'}><code>{_e(call.get('tool'))}</code> "
        f'<code class="args">{_e(_json(call.get("args")))}</code> → {_e(call.get("result"))}</li>'
        for call in iteration.get("calls") or []
        if isinstance(call, Mapping)
    )
    prompt = ""
    if sampling is not None:
        tokens = f"{sampling.get('prompt_tokens') or 0}+{sampling.get('completion_tokens') or 0} tokens"
        summary = f"prompt: {sampling.get('model') or '?'} · {sampling.get('strategy')} · {tokens} · "
        summary += _ms(sampling.get("duration_ms"))
        text = _messages(sampling.get("messages"))
        prompt = f'<details class="prompt"><summary>{_e(summary)}</summary><pre>{_e(text)}</pre></details>'
    return (
        f'<li class="iteration"><b>iteration {_e(iteration.get("number"))}</b> '
        f'<span class="agent-meta">{_e(iteration.get("response_type"))}</span>'
        f"{f'<p class=thought>{_e(thought)}</p>' if thought else ''}"
        f"{f'<ul class=calls>{calls}</ul>' if calls else ''}{prompt}</li>"
    )


def _meta(run: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    if not run:
        return f"{len(records)} records, no end (the run was stopped)"
    tokens = int(run.get("prompt_tokens") or 0) + int(run.get("completion_tokens") or 0)
    items = [
        str(run.get("agent") or "agent"),
        *([str(run["model"])] if run.get("model") else []),
        f"LLM: {run.get('strategy')}",
        f"tools: {run.get('transport')}",
        f"{run.get('iterations', 0)} iterations",
        f"{run.get('tool_calls', 0)} tool calls",
        f"{tokens} tokens",
        f"LLM time {_ms(run.get('llm_ms'))}",
        f"in {_ms(run.get('duration_ms'))}",
    ]
    return " · ".join(items)


def _messages(messages: Any) -> str:
    lines = []
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, Mapping):
            content = message.get("content")
            text = content if isinstance(content, str) else _json(content)
            extra = f" {_json(message['tool_calls'])}" if message.get("tool_calls") else ""
            lines.append(f"[{message.get('role')}] {text}{extra}")
    text = "\n\n".join(lines)
    return text if len(text) <= MAX_PROMPT_CHARS else text[:MAX_PROMPT_CHARS] + "…"


def write_session_page(folder: Path) -> Path | None:
    """Write the agent view of the MCP session in ``folder`` (or, for the folder of sessions, its
    newest with a log) as :data:`SESSION_PAGE`; its path, or None when there is no agent log."""
    from trailblaze.core.fileio import write_atomic

    if not (folder / FILE_NAME).is_file():
        sessions = [
            p for p in folder.glob(f"*/{FILE_NAME}") if p.is_file() and not p.is_symlink() and not p.parent.is_symlink()
        ]
        if not sessions:
            return None
        folder = max(sessions, key=lambda p: p.stat().st_mtime).parent
    records = read_records(folder / FILE_NAME)
    grouped = runs(records)
    done = [r for r in records if r.get("record") == "agent_run"]
    passed = sum(1 for r in done if r.get("status") == "complete")
    title = f"trailblaze agent runs: {folder.name}"
    body = "".join(render_run(run, folder) for run in grouped) or "<p>No agent runs yet.</p>"
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{HTML_GENERATOR}'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
        f"<style>{_PAGE_CSS}{CSS}.badge{{font-size:11px;font-weight:700;padding:1px 6px;border-radius:4px;"
        "color:#fff;background:var(--muted);text-transform:uppercase}.badge.passed{background:var(--ok)}"
        ".badge.failed{background:var(--bad)}</style></head><body>"
        f'<header><h1>{_e(title)}</h1><p class="meta">{len(grouped)} agent runs · {passed} complete · '
        f"{len(done) - passed} not</p></header><main>{body}</main></body></html>\n"
    )
    path = folder / SESSION_PAGE
    write_atomic(path, page)
    return path


def _badge(status: str) -> str:
    return {"complete": "passed", "failed": "failed", "error": "failed"}.get(status, status)


def _inline(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_INLINE_IMAGE:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _ms(value: Any) -> str:
    try:
        ms = float(value)
    except (TypeError, ValueError):
        return "?"
    return f"{ms / 1000:.1f}s" if ms >= 1000 else f"{ms:.0f}ms"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)
