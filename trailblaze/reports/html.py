"""A run's results as one self-contained HTML page (``--html``; ``trailblaze show-report``).

Built from the results JSON document (README, "Results JSON"), so a report can be made from
any run's JSON — also from shards merged after the fact. Everything the page needs is inside
it: the styles, a small script for the filters, and the screenshots, inlined as ``data:``
URIs (up to :data:`MAX_INLINE_IMAGE` bytes each; larger ones and traces are linked, relative to
the report). It renders without a network and without JavaScript; the script only adds the
status and tag filters and remembers them in the URL's fragment.

A trail that ran more than once (``--retries``, shards merged by ``merge-reports``) shows its
final run, and under it, folded, each run before: its status, the step it failed at, its error
and its evidence, as Playwright Test's report shows a test's retries.

With Playwright's trace viewer beside the page (``viewer``: the plugin copies it, as Playwright
Test's HTML report does), a trail's trace opens in it from the trail and from each step that
ran. The viewer takes the trace from its address and nothing else (no action or group to select
by URL, Playwright 1.65), so a step's link names the group its actions are under in the trace
(``step 2``; the trace viewer selects the failing action, inside the failed step's group, by
itself). The viewer needs a page served over HTTP (a service worker): ``trailblaze show-report``.

Every text comes from the run — page texts, error messages, tool arguments — and is escaped:
nothing in a trail can inject markup into the report.
"""

from __future__ import annotations

import base64
import html
import json
import mimetypes
import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from trailblaze.api.results import trace_group
from trailblaze.core.reportfiles import HTML_GENERATOR
from trailblaze.reports.agentview import CSS as AGENT_CSS
from trailblaze.reports.agentview import step_view as agent_view

#: screenshots larger than this are linked instead of inlined
MAX_INLINE_IMAGE = 2_000_000
#: statuses in the order the summary shows them
STATUSES = ("passed", "flaky", "healed", "failed", "error", "incomplete", "skipped")


def render(
    report: Mapping[str, Any],
    *,
    base: Path | None = None,
    title: str = "trailblaze report",
    viewer: str | None = None,
) -> str:
    """The HTML page for ``report`` (a results JSON document). Relative evidence paths are
    read from ``base`` (the folder the paths are relative to: the run's working directory) and
    linked relative to where the page is written, which the caller makes them relative to.
    ``viewer``: the address of Playwright's trace viewer (its ``index.html``) relative to the
    page, when the report carries one: traces then open in it, from their trail and its steps."""
    trails = list(report.get("trails") or [])
    counts = {status: sum(1 for t in trails if t.get("status") == status) for status in STATUSES}
    tags = sorted({tag for t in trails for tag in t.get("tags") or []})
    parts = [
        "<!doctype html>",
        f'<html lang="en"><head><meta charset="utf-8">{HTML_GENERATOR}',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}{AGENT_CSS}</style>",
        "</head><body>",
        f"<header><h1>{_e(title)}</h1>{_summary(report, counts)}</header>",
        _filters(counts, tags),
        '<main id="trails">',
        *(_trail(t, number, base, viewer) for number, t in enumerate(trails, 1)),
        '<p class="empty" hidden>No trail matches the filters.</p>' if trails else "<p>No trails ran.</p>",
        "</main>",
        f"<script>{_JS}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _summary(report: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    summary = report.get("summary") or {}
    duration = _seconds(summary.get("duration_ms"))
    items = "".join(
        f'<li class="count {status}" data-count="{status}"><b>{n}</b> {status}</li>'
        for status, n in counts.items()
        if n or status in ("passed", "failed")
    )
    code = report.get("exit_code")
    interrupted = " · interrupted" if report.get("interrupted") else ""
    return (
        f'<ul class="summary">{items}</ul>'
        f'<p class="meta">{len(report.get("trails") or [])} trails in {duration} · exit code '
        f"<b>{_e(code)}</b>{interrupted}</p>"
    )


def _filters(counts: Mapping[str, int], tags: Sequence[str]) -> str:
    statuses = "".join(
        f'<label><input type="checkbox" name="status" value="{s}" checked> {s} ({n})</label>'
        for s, n in counts.items()
        if n
    )
    tag_options = "".join(f'<option value="{_e(tag)}">{_e(tag)}</option>' for tag in tags)
    tag_select = (
        f'<label>tag <select name="tag"><option value="">any</option>{tag_options}</select></label>' if tags else ""
    )
    return f'<form class="filters" id="filters">{statuses}{tag_select}</form>'


def _trail(trail: Mapping[str, Any], number: int, base: Path | None, viewer: str | None) -> str:
    status = str(trail.get("status") or "")
    tags = [str(t) for t in trail.get("tags") or []]
    earlier = trail.get("attempts")  # the runs before the last one (--retries, merged shards)
    attempts = len(earlier) + 1 if isinstance(earlier, list) else 1
    retry = f' <span class="attempts">{attempts} attempts</span>' if attempts > 1 else ""
    where = " · ".join([*(_e(x) for x in (trail.get("driver"), trail.get("device")) if x), *_remote(trail)])
    tag_chips = "".join(f'<span class="tag">{_e(tag)}</span>' for tag in tags)
    error, above = _trail_error(trail)
    skip = f'<p class="skip">skipped: {_e(trail["skip_reason"])}</p>' if trail.get("skip_reason") else ""
    opens = _trace_address(viewer, _artifacts(trail))
    steps = "".join(_step(step, base, above, opens) for step in trail.get("steps") or [])
    trace = _evidence_links(_artifacts(trail), base, opens) + _not_saved(trail)
    runs = _attempts(earlier if isinstance(earlier, list) else [], number, base, viewer)
    opened = " open" if status in ("failed", "error", "flaky", "incomplete") else ""
    return (
        f'<details class="trail {_e(status)}"{opened} id="trail-{number}" data-status="{_e(status)}" '
        f'data-tags="{_e(json.dumps(tags))}">'
        f'<summary><span class="badge {_e(status)}">{_e(status.upper())}</span> '
        f'<span class="title">{_e(trail.get("title") or trail.get("id"))}</span> '
        f'<span class="path">{_e(trail.get("path"))}</span> {tag_chips}{retry}'
        f'<span class="dur">{_seconds(trail.get("duration_ms"))}</span></summary>'
        f'<p class="where">{where}</p>{skip}{error}{trace}<ol class="steps">{steps}</ol>{runs}</details>'
    )


def _remote(trail: Mapping[str, Any]) -> list[str]:
    """The session a trail ran in at a device cloud or Appium hub (``remote_session``): its
    service and id, linked to its page there when that is an http(s) address."""
    session = trail.get("remote_session")
    if not isinstance(session, Mapping) or not session.get("id"):
        return []
    label = _e(f"{session.get('service') or 'remote'} session {session['id']}")
    url = session.get("url")
    if isinstance(url, str) and url.startswith(("https://", "http://")):
        return [f'<a href="{_e(url)}" target="_blank" rel="noopener">{label}</a>']
    return [label]


def _attempts(earlier: Sequence[Any], number: int, base: Path | None, viewer: str | None) -> str:
    """The runs before the final one (``--retries``; merged shards' runs), oldest first, folded
    under the trail as Playwright Test's report keeps its retries: each with its status, the step
    it failed at, its error and its evidence — screenshots inline, the rest linked, a trace
    opening in the trace viewer."""
    runs = [run for run in earlier if isinstance(run, Mapping)]
    if not runs:
        return ""
    total = len(runs) + 1
    shown = "".join(
        _attempt(run, n, total, f"trail-{number}-attempt-{n}", base, viewer) for n, run in enumerate(runs, 1)
    )
    count = f"{len(runs)} earlier attempt{'' if len(runs) == 1 else 's'}"
    return f'<details class="attempts"><summary>{count}</summary>{shown}</details>'


def _attempt(run: Mapping[str, Any], n: int, total: int, anchor: str, base: Path | None, viewer: str | None) -> str:
    status = str(run.get("status") or "failed")
    evidence = _artifacts(run)
    step = run.get("failing_step")
    place, message = _attempt_error(str(run.get("error") or ""), step if isinstance(step, Mapping) else None)
    at = f'<p class="failed-at">{_e(status)} at {_e(place)}</p>' if place else ""
    error = f'<pre class="error">{_e(message)}</pre>' if message else ""
    shots = _evidence([(k, p) for k, p in evidence if k == "screenshot"], base)
    links = _evidence_links([(k, p) for k, p in evidence if k != "screenshot"], base, _trace_address(viewer, evidence))
    return (
        f'<section class="attempt {_e(status)}" id="{_e(anchor)}"><div class="head">'
        f'<span class="badge {_e(status)}">{_e(status)}</span> <span class="label">attempt {n} of {total}</span>'
        f'<span class="dur">{_seconds(run.get("duration_ms"))}</span></div>'
        f"{at}{error}{shots}{links}{_not_saved(run)}</section>"
    )


def _attempt_error(message: str, step: Mapping[str, Any] | None) -> tuple[str, str]:
    """Where an earlier run failed (``trails/a.trail.yaml:9: step 2 (Press Submit)``) and what
    it failed with, from its error and ``failing_step``; the ``evidence:`` line the error ends
    with is left out (the evidence is linked beside it)."""
    message = "\n".join(line for line in message.splitlines() if not line.startswith("evidence: "))
    if step is None:
        return "", message
    label = _step_label(step)
    named = f"{label} ({' '.join(str(step.get('text') or '').split())})"
    at = message.find(f"{named}: ")
    if at < 0:
        return named, message
    return message[: at + len(named)], message[at + len(named) + 2 :]


def _trail_error(trail: Mapping[str, Any]) -> tuple[str, str]:
    """The trail's error as its header shows it, and what the steps need not repeat. A
    trail's message is its failing step's, behind the place (``file:line: step 2 (…)``): the
    header then shows only the place, and the step — next to its screenshot and the evidence
    the message lists after it, linked there — the message."""
    message = str(trail.get("error") or "")
    if not message:
        return "", ""
    for step in trail.get("steps") or []:
        step_error = str(step.get("error") or "")
        at = message.find(step_error) if step_error else -1
        if at > 0:
            place = message[:at].rstrip(": ")
            return f'<p class="failed-at">failed at {_e(place)}</p>', ""
    return f'<pre class="error">{_e(message)}</pre>', message


def _step(step: Mapping[str, Any], base: Path | None, above: str = "", trace: str | None = None) -> str:
    """A step; its error only when the trail's (``above``) does not already say it — the
    trail's message quotes its failing step's, which quotes the failing call's: once is enough.
    ``trace``: the trace viewer's address of the trail's trace, linked from a step that ran."""
    status = str(step.get("status") or "")
    label = _step_label(step)
    step_error = str(step.get("error") or "")
    shown = step_error if step_error and step_error not in above else ""
    tools = "".join(_tool(tool, f"{above}\n{step_error}") for tool in step.get("tools") or [])
    error = f'<pre class="error">{_e(shown)}</pre>' if shown else ""
    agent = step.get("agent")
    agent_line = (
        f'<p class="agent">{_e(agent.get("name"))}: {_e(agent.get("status"))} {_e(agent.get("explanation") or "")}</p>'
        if isinstance(agent, Mapping)
        else ""
    )
    agent_line += agent_view(step, base)
    evidence = _evidence(_artifacts(step), base) + _not_saved(step)
    attempts = step.get("attempts")
    retry = (
        f' <span class="attempts">{int(attempts)} attempts</span>' if isinstance(attempts, int) and attempts > 1 else ""
    )
    return (
        f'<li class="step {_e(status)}"><div class="head"><span class="badge {_e(status)}">{_e(status)}</span> '
        f'<span class="label">{_e(label)}</span> {_e(step.get("text") or "")}{retry}{_trace_link(step, trace)}'
        f'<span class="dur">{_seconds(step.get("duration_ms"))}</span></div>'
        f"{error}{agent_line}{f'<ul class=tools>{tools}</ul>' if tools else ''}{evidence}</li>"
    )


def _trace_address(viewer: str | None, evidence: Sequence[tuple[str, str]]) -> str | None:
    """The address that opens the trace among ``evidence`` in the trace viewer (``viewer``,
    relative to the page); None without either. The viewer fetches the trace from its own
    folder's address, so the trace's path is made relative to that folder."""
    path = next((p for kind, p in evidence if kind == "trace"), None)
    if viewer is None or path is None or posixpath.isabs(path) or ":" in path.split("/")[0]:
        return None
    from urllib.parse import quote

    relative = posixpath.relpath(path, posixpath.dirname(viewer) or ".")
    return f"{viewer}?trace={quote(quote(relative), safe='/')}"


def _trace_link(step: Mapping[str, Any], trace: str | None) -> str:
    """A link to the trail's trace from a step that ran, naming the group of the trace its
    actions are under (:func:`trailblaze.api.results.trace_group`)."""
    if trace is None or step.get("status") == "skipped" or not isinstance(step.get("index"), int):
        return ""
    group = trace_group(str(step.get("kind") or "step"), int(step["index"]), str(step.get("text") or ""))
    where = group.split(":", 1)[0]
    return (
        f' <a class="trace-link" href="{_e(trace)}" data-group="{_e(group)}" '
        f'title="the trace; this step is the group &quot;{_e(group)}&quot;">trace › {_e(where)}</a>'
    )


def _step_label(step: Mapping[str, Any]) -> str:
    """ "step 3" as the terminal and the failure messages number it (index + 1), "trailhead"."""
    kind = str(step.get("kind") or "step")
    if kind == "trailhead":
        return "trailhead"
    index = step.get("index")
    return f"{kind} {int(index) + 1}" if isinstance(index, int) else kind


def _tool(tool: Mapping[str, Any], above: str = "") -> str:
    """A call; its error only when the step's or trail's message (``above``) does not quote it."""
    args = json.dumps(tool.get("args") or {}, ensure_ascii=False, sort_keys=False)
    chain = " ← ".join(str(c) for c in tool.get("delegated_from") or [])
    via = f' <span class="via">via {_e(chain)}</span>' if chain else ""
    tool_error = str(tool.get("error") or "")
    error = f' <span class="tool-error">{_e(tool_error)}</span>' if tool_error and tool_error not in above else ""
    return (
        f'<li class="{_e(tool.get("status"))}"><code>{_e(tool.get("name"))}</code> <code class="args">{_e(args)}</code>'
        f'{via}<span class="dur">{_seconds(tool.get("duration_ms"))}</span>{error}</li>'
    )


def _artifacts(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A trail's or step's ``artifacts`` (results JSON) as (kind, path) pairs."""
    return [
        (str(a.get("kind")), a["path"])
        for a in entry.get("artifacts") or []
        if isinstance(a, Mapping) and isinstance(a.get("path"), str)
    ]


def _evidence(evidence: Sequence[tuple[str, str]], base: Path | None) -> str:
    if not evidence:
        return ""
    out = []
    for kind, path in evidence:
        if kind == "screenshot":
            src = _inline(path, base)
            out.append(f'<a href="{_e(path)}"><img class="shot" alt="screenshot" src="{_e(src)}"></a>')
    out.append(_evidence_links([(k, p) for k, p in evidence if k != "screenshot"], base))
    return f'<div class="evidence">{"".join(out)}</div>'


def _not_saved(entry: Mapping[str, Any]) -> str:
    """The evidence of a trail or step that could not be saved (``evidence_errors``), and why."""
    errors = entry.get("evidence_errors")
    if not isinstance(errors, list) or not errors:
        return ""
    items = "".join(f"<li>{_e(error)}</li>" for error in errors)
    return f'<div class="not-saved">evidence not saved:<ul>{items}</ul></div>'


def _evidence_links(evidence: Sequence[tuple[str, str]], base: Path | None, trace: str | None = None) -> str:
    """Links to evidence files; with ``trace`` (the trace viewer's address), the trace opens in
    the viewer and its file is linked beside it."""
    links = []
    for kind, path in evidence:
        name = kind
        if kind == "trace" and trace is not None:
            links.append(f'<a class="evidence-link trace-link" href="{_e(trace)}">trace</a>')
            name = posixpath.basename(path)  # the file itself, for `playwright show-trace`
        links.append(f'<a class="evidence-link" href="{_e(path)}">{_e(name)}</a>')
    return f'<p class="links">{" · ".join(links)}</p>' if links else ""


def _inline(path: str, base: Path | None) -> str:
    """A ``data:`` URI of the image at ``path`` when it is small enough, else ``path``."""
    file = Path(path) if base is None or os.path.isabs(path) else base / path
    try:
        if not file.is_file() or file.stat().st_size > MAX_INLINE_IMAGE:
            return path
        data = file.read_bytes()
    except OSError:
        return path
    mime = mimetypes.guess_type(file.name)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _seconds(ms: Any) -> str:
    try:
        value = float(ms) / 1000
    except (TypeError, ValueError):
        return ""
    return f"{value:.2f}s" if value < 60 else f"{int(value // 60)}m {value % 60:.0f}s"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def statuses_in(reports: Iterable[Mapping[str, Any]]) -> list[str]:
    """The statuses the trails of ``reports`` have, in the summary's order (for tests, tools)."""
    found = {str(t.get("status")) for r in reports for t in r.get("trails") or []}
    return [s for s in STATUSES if s in found]


_CSS = """
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;color:#1f2328}
header{padding:16px 24px;background:var(--bg);border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 8px}
.summary{list-style:none;display:flex;gap:12px;padding:0;margin:0}
.summary li{padding:2px 10px;border-radius:12px;background:#fff;border:1px solid var(--line)}
.meta{color:var(--muted);margin:8px 0 0}
.filters{padding:10px 24px;border-bottom:1px solid var(--line);display:flex;gap:16px;flex-wrap:wrap}
main{padding:12px 24px}
details.trail{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}
details.trail>summary{cursor:pointer;padding:8px 12px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.title{font-weight:600}
.path,.where,.via,.dur,.attempts{color:var(--muted)}
.dur{margin-left:auto}
.where,.skip,.links{margin:4px 12px}
.badge{
  font-size:11px;
  font-weight:700;
  padding:1px 6px;
  border-radius:4px;
  color:#fff;
  background:var(--muted);
  text-transform:uppercase;
}
.badge.passed{background:var(--ok)}
.badge.failed,.badge.error{background:var(--bad)}
.badge.flaky,.badge.healed,.badge.incomplete{background:var(--warn)}
.tag{font-size:12px;background:#ddf4ff;border-radius:10px;padding:0 8px}
.steps{margin:4px 12px 12px 32px;padding:0}
.step{margin:6px 0}
.step .head{display:flex;gap:8px;align-items:baseline}
.label{font-weight:600}
.trace-link{font-size:12px;white-space:nowrap}
.tools{margin:4px 0 0 12px;padding-left:12px}
.tools code{font-size:12px}
.args{color:var(--muted);word-break:break-all}
.failed-at{color:var(--bad);margin:.3em 0}
pre.error{
  white-space:pre-wrap;
  background:#ffebe9;
  border:1px solid #ff818266;
  padding:8px;
  margin:6px 12px;
  border-radius:4px;
}
.tool-error{color:var(--bad)}
.not-saved{color:var(--warn);margin:4px 12px}
details.attempts{margin:4px 12px 12px;border-top:1px solid var(--line);padding-top:6px}
details.attempts>summary{cursor:pointer;color:var(--muted)}
.attempt{margin:8px 0 8px 20px}
.attempt .head{display:flex;gap:8px;align-items:baseline}
.attempt .failed-at,.attempt pre.error,.attempt .links,.attempt .evidence{margin-left:0}
.not-saved ul{margin:0}
img.shot{max-width:480px;border:1px solid var(--line);border-radius:4px;display:block;margin:6px 0}
[hidden]{display:none!important}
"""

_JS = """
(function(){
  var form=document.getElementById('filters');if(!form)return;
  function apply(){
    var on=[].slice.call(form.querySelectorAll('input[name=status]:checked')).map(function(i){return i.value;});
    var tag=form.querySelector('select[name=tag]');tag=tag?tag.value:'';
    var shown=0;
    document.querySelectorAll('details.trail').forEach(function(d){
      var tags=JSON.parse(d.dataset.tags||'[]');
      var ok=on.indexOf(d.dataset.status)>=0&&(!tag||tags.indexOf(tag)>=0);
      d.hidden=!ok;if(ok)shown++;
    });
    var empty=document.querySelector('.empty');if(empty)empty.hidden=shown>0;
    var state=new URLSearchParams();on.forEach(function(s){state.append('status',s);});if(tag)state.set('tag',tag);
    history.replaceState(null,'','#'+state.toString());
  }
  var initial=new URLSearchParams(location.hash.slice(1));
  if(initial.has('status')){var wanted=initial.getAll('status');
    form.querySelectorAll('input[name=status]').forEach(function(i){i.checked=wanted.indexOf(i.value)>=0;});}
  if(initial.get('tag')){var s=form.querySelector('select[name=tag]');if(s)s.value=initial.get('tag');}
  form.addEventListener('change',apply);apply();
})();
"""
