"""Every upstream trail file validates with the mobile tools; only the tools of upstream's own
app targets (which live in upstream's trailmaps, not here) are unknown, named with file and line."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import CliRunner


def test_validate_names_only_the_app_target_tools(cli: CliRunner, upstream_format: Path) -> None:
    result = cli("validate", str(upstream_format))
    assert result.returncode == 3, result.output
    problems = [line.removeprefix("error: ") for line in result.stderr.splitlines() if line.startswith("error: ")]
    contacts = f"{upstream_format}/ios-contacts/test-create-then-delete/trail.yaml"
    assert problems == [
        f"{upstream_format}/clock/set-alarm-730am/trail.yaml:11:7: unknown tool 'clock_android_launchApp'",
        f"{contacts}:14:11: unknown tool 'contacts_ios_deleteContact'",
        f"{contacts}:20:11: unknown tool 'contacts_ios_createContact'",
        f"{contacts}:37:11: unknown tool 'contacts_ios_deleteContact'",
    ]


def test_the_android_files_validate_for_the_android_driver(cli: CliRunner, upstream_format: Path) -> None:
    files = [
        upstream_format / "clock" / "launch-smoke.trail.yaml",
        upstream_format / "legacy_v1" / "ClockTest" / "setAnAlarm.trail.yaml",
        upstream_format / "legacy_v1" / "android-ondevice-instrumentation",
    ]
    result = cli("validate", "--driver", "android", *map(str, files))
    assert result.returncode == 0, result.output
    assert result.stdout.strip() == "3 trails valid"  # blaze.yaml holds prompts only: not a trail file


def test_steps_written_for_an_agent_need_recording_before_they_replay(cli: CliRunner, upstream_format: Path) -> None:
    """The sample app's trail has steps in words only (upstream records them with an LLM):
    `run --driver android` would refuse them, so `validate --driver android` says so."""
    path = upstream_format / "android-sample-app" / "forms" / "text-input-args.trail.yaml"
    assert cli("validate", str(path)).returncode == 0  # well-formed, every tool known
    result = cli("validate", "--driver", "android", str(path))
    assert result.returncode == 3, result.output
    problems = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(problems) == 6
    first = f'error: {path}:26:5: step 1 (Navigate to the "Forms" tab): no recording for android'
    assert problems[0].startswith(first)
