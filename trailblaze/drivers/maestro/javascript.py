"""Maestro's JavaScript (``evalScript``, ``runScript``, ``assertTrue``, ``${…}`` expressions,
``when: {true: …}``), run by Node.js when ``node`` is on PATH.

Each evaluation is one short ``node`` process (bounded by :data:`TIMEOUT_S`, killed past it, so
none is left behind) in a fresh context holding what Maestro's scripts see: ``output`` (kept in
the trail's memory between evaluations, so it lives as long as the flow), ``maestro.copiedText``
and ``maestro.platform``, ``json(text)``, the flow's variables and a ``runScript``'s ``env`` as
globals. ``console.log`` goes to the run's stderr. Maestro's ``http`` client is not there.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import shutil
import subprocess
from collections.abc import Mapping, MutableMapping
from typing import Any

from trailblaze.core.errors import ToolFailure

#: seconds one evaluation may take (the script's own loop is stopped at 5 s inside node)
TIMEOUT_S = 10
#: what needs node, said when there is none
NEEDS_NODE = "it runs JavaScript, which needs Node.js (`node` on PATH)"
#: ``${…}`` not preceded by a backslash (Maestro's pattern, without ``$`` or ``}`` inside)
EXPRESSION = re.compile(r"(?<!\\)\$\{([^$}]*)\}")
_RUNNER = r"""
const vm = require('vm');
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  const context = Object.assign({}, request.env, {
    output: request.output,
    maestro: {copiedText: request.copiedText, platform: request.platform},
    json: (text) => JSON.parse(text),
    console: {log: (...parts) => process.stderr.write(parts.join(' ') + '\n')},
  });
  vm.createContext(context);
  let answer;
  try {
    const value = vm.runInContext(request.code, context, {timeout: 5000});
    const shown = value === undefined ? 'undefined' : value === null ? 'null'
      : typeof value === 'object' ? JSON.stringify(value) : String(value);
    answer = {ok: true, value: shown, output: JSON.parse(JSON.stringify(context.output ?? {}))};
  } catch (e) {
    answer = {ok: false, error: String((e && e.message) || e)};
  }
  process.stdout.write(JSON.stringify(answer));
});
"""


@functools.cache
def node() -> str | None:
    """The ``node`` on PATH, if any."""
    return shutil.which("node")


def needs_javascript(text: str) -> bool:
    """Whether ``text`` holds a ``${…}`` that only JavaScript can work out."""
    return EXPRESSION.search(text) is not None


class Scripts:
    """Evaluates JavaScript for one run of commands; ``output`` is the trail's memory's."""

    def __init__(self, memory: MutableMapping[str, Any], platform: str, copied: Any) -> None:
        self.memory = memory
        self.platform = platform
        self.copied = copied

    @property
    def output(self) -> dict[str, Any]:
        found = self.memory.get("output")
        if not isinstance(found, dict):
            found = self.memory["output"] = {}
        return found

    async def run(self, code: str, env: Mapping[str, str] | None = None) -> str:
        """Run ``code``; its value as text (``undefined`` when it has none)."""
        path = node()
        if path is None:
            raise ToolFailure(f"cannot run JavaScript: {NEEDS_NODE}")
        request = {
            "code": code,
            "env": dict(env or {}),
            "output": self.output,
            "copiedText": self.copied(),
            "platform": self.platform,
        }
        try:
            done = await asyncio.to_thread(
                subprocess.run,
                [path, "-e", _RUNNER],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ToolFailure(f"the JavaScript did not finish within {TIMEOUT_S}s") from None
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            said = (done.stderr.strip().splitlines() or ["no answer"])[-1]
            raise ToolFailure(f"node failed: {said}") from None
        if not answer.get("ok"):
            raise ToolFailure(f"JavaScript error: {answer.get('error')}")
        self.memory["output"] = answer.get("output") or {}
        return str(answer.get("value"))

    async def interpolate(self, text: str, env: Mapping[str, str] | None = None) -> str:
        """``text`` with each ``${…}`` replaced by what it evaluates to (``\\${…}`` kept as written)."""
        parts: list[str] = []
        last = 0
        for match in EXPRESSION.finditer(text):
            parts.append(text[last : match.start()])
            script = match.group(1)
            parts.append(await self.run(script, env) if script.strip() else "")
            last = match.end()
        parts.append(text[last:])
        return re.sub(r"\\(\$\{[^$}]*\})", r"\1", "".join(parts))

    async def values(self, value: Any, env: Mapping[str, str] | None = None) -> Any:
        """``value`` (arguments) with every string's ``${…}`` worked out."""
        if isinstance(value, str):
            return await self.interpolate(value, env) if "${" in value else value
        if isinstance(value, list):
            return [await self.values(v, env) for v in value]
        if isinstance(value, dict):
            return {k: await self.values(v, env) for k, v in value.items()}
        return value


def truthy(text: str) -> bool:
    """JavaScript's truthiness of the text Maestro hands a condition."""
    return text.strip() not in ("", "false", "0", "null", "undefined", "NaN")
