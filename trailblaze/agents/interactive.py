"""The ``interactive`` agent: a person at the terminal works out each step.

For each step it shows the step's text and the screen (one element per line, with refs), then
reads commands, one per line:

* a tool call — ``web_click ref=e12``, ``web_type ref=e3 text="Ada Lovelace"`` or YAML
  ``web_type: {ref: e3, text: hi}`` — executed at once; the outcome and what was recorded
  are shown, then what changed on the screen (lines gone ``-``, lines new ``+``; the whole
  screen when most of it changed, as after opening another page);
* ``undo`` drops what the last call added to the recording (the device is not changed back);
* ``done`` finishes the step, ``skip`` leaves it without a recording, ``fail [why]`` gives up
  on it, ``quit`` stops recording (the finished steps are kept);
* ``screen`` shows the whole screen again, ``tools`` lists the tools, ``help`` lists the commands.

It reads plain standard input, so a recording can be scripted:
``printf 'web_click ref=e5\\ndone\\n' | trailblaze record t.trail.yaml --agent interactive``.
The end of the input counts as ``quit``.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, ClassVar

from trailblaze.agents.calls import CallSyntaxError, parse_call
from trailblaze.agents.terminal_input import say, stdin_lines, step_word
from trailblaze.api.agent import Agent, AgentSettings, StepTask, Verdict
from trailblaze.device.screen import render_screen

if TYPE_CHECKING:
    from trailblaze.api.session import Session

HELP = """\
commands:
  TOOL key=value …     run a tool now and record it, e.g.  web_click ref=e12   tap ref=e7
  TOOL: {key: value}   the same in YAML, e.g.  web_type: {ref: e3, text: Ada}
  undo                 drop the last recorded call (the screen is not changed back)
  done                 the step is finished: keep its recording
  skip                 leave this step without a recording and go on
  fail [why]           give up on this step (the recording stops here)
  quit                 stop recording; the finished steps are written
  screen               show the whole screen (after a call, only what changed is shown)
  tools | help"""

#: changed lines shown after a call, at most; past it a note says how many more there are
MAX_CHANGES = 40
#: a change to more than this share of the screen's lines shows the whole new screen instead
WHOLE_SCREEN_SHARE = 0.6

_out = say


class InteractiveAgent(Agent):
    name: ClassVar[str] = "interactive"
    fallback: ClassVar[bool] = True  # a person answers when no LLM is set up
    description: ClassVar[str] = "a person at the terminal types the tool calls (works over plain stdin)"
    reads_stdin: ClassVar[bool] = True

    def __init__(self, settings: AgentSettings) -> None:
        super().__init__(settings)
        #: the screen as last shown, line by line: a call's answer shows what changed since
        self._shown: list[str] | None = None

    async def start(self, session: Session) -> None:
        stdin_lines()  # start reading early: what was piped in is not lost

    async def solve(self, task: StepTask) -> Verdict:
        task.pause_output()
        _out()
        _out(f"── {task.label}: {task.text}")
        if task.verify_only:
            _out("   a verify step: only verification (read-only) tools, e.g. web_verifyTextVisible text=…")
        if task.kind == "trailhead":
            _out("   the trailhead: exactly one tool call")
        await self._show_screen(task, whole=True)
        _out("   type a tool call, or done / undo / skip / fail / quit / help")
        schemas = {spec.name: spec.input_schema for spec in task.session.registry}
        lines = stdin_lines()
        while True:
            _out("> ", end="")
            line = await lines.readline()
            if line is None:
                _out("(end of input: stopping)")
                return Verdict("quit", "end of input")
            command, _, rest = line.strip().partition(" ")
            word = command.lower()
            if not word or word.startswith("#"):
                continue
            ended = step_word(word, rest, task, gave_up="given up at the terminal")
            if isinstance(ended, Verdict):
                return ended
            if ended:
                continue
            if word in ("screen", "look"):
                await self._show_screen(task, whole=True)
                continue
            if word == "tools":
                for spec in task.tools:
                    summary = spec.description.splitlines()[0] if spec.description else ""
                    _out(f"  {spec.name:<28} {summary}")
                continue
            if word in ("help", "?"):
                _out(HELP)
                continue
            await self._call(task, line, schemas)

    async def _call(self, task: StepTask, line: str, schemas: dict[str, dict[str, object]]) -> None:
        from trailblaze.trail.writer import call_text

        try:
            name, args = parse_call(line, schemas)
        except CallSyntaxError as exc:
            _out(f"✗ {exc} (help lists the commands)")
            return
        result = await task.call(name, args)
        task.pause_output()
        if not result.ok:
            _out(f"✗ {result.describe()}")
            return
        _out(f"✓ {result.describe()}")
        for call in result.recorded:
            _out(f"  recorded {call_text(call)}")
        if not result.recorded:
            _out("  (nothing recorded: the tool is not recordable)")
        await self._show_screen(task)

    async def _show_screen(self, task: StepTask, *, whole: bool = False) -> None:
        """The screen: whole (a step's start, ``screen``), or what changed since it was last
        shown — a person reads the one line that changed, not 200 that did not."""
        try:
            screen = render_screen(await task.screen())
        except Exception as exc:  # a screen that cannot be read must not end the session
            screen = f"(cannot read the screen: {exc})"
        task.pause_output()
        lines = screen.splitlines()
        before, self._shown = self._shown, lines
        changes = screen_changes(before, lines) if before is not None and not whole else None
        if changes is None:
            _out("   screen:")
            _out("\n".join("   " + line for line in lines))
        elif not changes:
            _out("   screen: unchanged")
        else:
            _out("   screen changed (`screen` shows all of it):")
            shown = changes[:MAX_CHANGES]
            _out("\n".join("   " + line for line in shown))
            if len(changes) > len(shown):
                _out(f"   … {len(changes) - len(shown)} more changed lines")


def screen_changes(before: list[str], after: list[str]) -> list[str] | None:
    """``after``'s lines that are new (``+ ``) and ``before``'s that are gone (``- ``), in
    screen order; None when most of the screen changed (another page: show it whole)."""
    changed = [
        line
        for line in difflib.ndiff(before, after)
        if line.startswith(("+ ", "- "))  # ndiff's "? " hint lines and unchanged "  " ones are left out
    ]
    added = sum(1 for line in changed if line.startswith("+ "))
    if after and added > WHOLE_SCREEN_SHARE * len(after):
        return None
    return changed
