"""Built-in plugin: ``--junit FILE`` writes JUnit XML (one ``testcase`` per trail and device).

The shape is the one CI systems (Jenkins, GitLab, GitHub Actions reporters) read: a
``testsuites`` root holding one ``testsuite``; ``failure`` for failed trails, ``error`` for
trails that could not run properly, ``skipped`` with the reason. The failure message is the
failing step and its error; the body lists every step. Times are seconds with millisecond
precision. A trail healed by ``--self-heal`` passes, with a ``trailblaze.status`` property of
``healed`` (schema-valid; CI shows the properties) and the healing in ``system-out``. A trail
that passed on a ``--retries`` rerun (``flaky``) passes too, with the property ``flaky`` and a
``flakyFailure`` per failed run before; reruns of a trail that still failed are
``rerunFailure`` elements (Maven Surefire's names, which Jenkins and GitLab read). Trails that
``-x`` kept from running are ``skipped``.

The plugin owns its option: ``--junit`` is declared in ``trailblaze_addoption``, and a
:class:`JunitReport` is registered in ``trailblaze_configure`` only when it was given (as
pytest's ``junitxml`` registers its ``LogXML``).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze import hookimpl

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from trailblaze.api.results import RunResult, TrailResult
    from trailblaze.api.session import Run
    from trailblaze.core.argparsing import Parser
    from trailblaze.project.config import Config

PLUGIN_NAME = "junit_report.writer"


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def build(result: RunResult, suite_name: str = "trailblaze") -> ET.Element:
    import socket
    import xml.etree.ElementTree as ET  # only when a report is written: start-up stays light

    counts = {
        "tests": str(len(result.trails)),
        "failures": str(result.count("failed") + result.count("incomplete")),
        "errors": str(result.count("error")),
        "skipped": str(result.count("skipped")),
        "time": _seconds(result.duration_ms),
    }
    root = ET.Element("testsuites", {"name": suite_name, **counts})
    stamp = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    suite = ET.SubElement(
        root, "testsuite", {"name": suite_name, **counts, "timestamp": stamp, "hostname": socket.gethostname()}
    )
    devices = {(t.driver, t.device) for t in result.trails if t.device is not None}  # skipped: no device
    for trail in result.trails:
        suite.append(_testcase(trail, with_device=len(devices) > 1, artifacts_dir=result.artifacts_dir))
    return root


def _testcase(trail: TrailResult, *, with_device: bool, artifacts_dir: str | None = None) -> ET.Element:
    import xml.etree.ElementTree as ET

    classname = trail.id.rsplit("/", 1)[0].replace("/", ".") if "/" in trail.id else "trails"
    name = f"{trail.id} [{trail.device}]" if with_device and trail.device else trail.id
    case = ET.Element("testcase", classname=classname, name=name, file=trail.path, time=_seconds(trail.duration_ms))
    if trail.status in ("healed", "flaky"):  # JUnit has no such status: it passed, and says how
        properties = ET.SubElement(case, "properties")
        ET.SubElement(properties, "property", name="trailblaze.status", value=trail.status)
    if trail.status == "skipped":
        ET.SubElement(case, "skipped", message=trail.skip_reason or "skipped")
    elif trail.status in ("failed", "error", "incomplete"):
        tag = "error" if trail.status == "error" else "failure"
        element = ET.SubElement(case, tag, message=trail.error or trail.status, type=trail.status)
        element.text = _steps_text(trail)
    _attempts(case, trail)
    if trail.steps:
        ET.SubElement(case, "system-out").text = _steps_text(trail) + _attachments(trail, artifacts_dir)
    return case


def _attempts(case: ET.Element, trail: TrailResult) -> None:
    """The runs ``--retries`` repeated, as Maven Surefire writes reruns: ``flakyFailure`` /
    ``flakyError`` in a test case that passed in the end, ``rerunFailure`` / ``rerunError`` in
    one that did not."""
    import xml.etree.ElementTree as ET

    prefix = "flaky" if trail.status == "flaky" else "rerun"
    for attempt in trail.attempts:
        kind = "Error" if attempt.status == "error" else "Failure"
        element = ET.SubElement(case, prefix + kind, message=attempt.error or attempt.status, type=attempt.status)
        element.text = f"attempt failed after {_seconds(attempt.duration_ms)}s: {attempt.error or attempt.status}"


def _attachments(trail: TrailResult, artifacts_dir: str | None) -> str:
    """The trail's evidence as ``[[ATTACHMENT|path]]`` lines, which Jenkins' JUnit attachments
    plugin and GitLab's test reports link from the test case."""
    from trailblaze.runner.evidence import shown

    files = [a for step in trail.steps for a in step.artifacts] + trail.artifacts
    return "".join(f"\n[[ATTACHMENT|{shown(a, artifacts_dir)}]]" for a in files)


def _steps_text(trail: TrailResult) -> str:
    lines = [f"{trail.title} on {trail.driver} ({trail.device})"]
    for step in trail.steps:
        label = "trailhead" if step.kind == "trailhead" else f"{step.kind} {step.index + 1}"
        lines.append(f"  {step.status.upper():<8}{label}: {step.text} ({_seconds(step.duration_ms)}s)")
        for call in step.tools:
            via = f" via {' → '.join(call.delegated_from)}" if call.delegated_from else ""
            lines.append(f"      {call.status:<8}{call.name}{via} ({_seconds(call.duration_ms)}s)")
        if step.error:
            lines.append(f"      {'healed, it failed with' if step.status == 'healed' else 'error'}: {step.error}")
        if step.agent is not None:
            lines.append(f"      agent: {step.agent.name} ({step.agent.status}, {step.agent.model or 'no model'})")
    return "\n".join(lines)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Colour codes, and what XML 1.0 cannot hold (compiled on first use: ~7 ms at start-up)."""
    return (
        re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]"),
        re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"),
    )


def xml_safe(text: str) -> str:
    """``text`` without what XML 1.0 cannot hold: terminal colour codes are dropped, other
    control characters written as ``#xNN`` (as pytest's junitxml does). Error messages
    come from tools and pages, so they may contain anything."""
    ansi, not_xml = _patterns()
    return not_xml.sub(lambda m: f"#x{ord(m.group()):02X}", ansi.sub("", text))


def _make_xml_safe(root: ET.Element) -> None:
    for element in root.iter():
        if element.text:
            element.text = xml_safe(element.text)
        for key, value in element.attrib.items():
            element.set(key, xml_safe(value))


def render(result: RunResult) -> str:
    """The JUnit XML document for ``result`` (``trailblaze merge-reports --junit`` writes it too)."""
    import xml.etree.ElementTree as ET

    root = build(result)
    _make_xml_safe(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


class JunitReport:
    """Writes ``result`` as JUnit XML to ``path`` when the run is over."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @hookimpl
    def trailblaze_run_finish(self, run: Run, result: RunResult) -> None:
        from trailblaze.core.fileio import write_atomic

        document = render(result)
        try:
            write_atomic(self.path, document)
        except OSError as exc:
            result.report_failed("--junit", self.path, exc)


@hookimpl
def trailblaze_addoption(parser: Parser) -> None:
    import click

    parser.getgroup("reporting", "Reporting").addoption(
        "--junit",
        metavar="FILE",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Write JUnit XML here.",
        commands=("run", "merge-reports"),
    )


@hookimpl
def trailblaze_configure(config: Config) -> None:
    path = config.getoption("junit")
    if path is not None:
        if str(path) == "-":
            from trailblaze.core.errors import UsageError

            raise UsageError("--junit -: JUnit XML is written to a file (only --json - writes to stdout)")
        from trailblaze.core.reportfiles import JUNIT_XML

        config.report_paths.claim("--junit", path, JUNIT_XML)
        config.pluginmanager.register(JunitReport(path), PLUGIN_NAME)


@hookimpl
def trailblaze_unconfigure(config: Config) -> None:
    report = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if report is not None:
        config.pluginmanager.unregister(report)
