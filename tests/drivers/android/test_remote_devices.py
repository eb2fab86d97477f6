"""Android devices that are not on this computer: the adb server of another host
(``ANDROID_ADB_SERVER_HOST``/``PORT``) and ``adb connect HOST:PORT`` devices, whose serial is an
address (DeviceFarmer/STF, emulators in containers). The stand-in adb server listens on another
loopback address (127.0.0.2) and a port chosen by the system, and serves a phone whose serial is
``10.0.0.5:5555`` beside an emulator."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.drivers.android.test_end_to_end import form_project
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.support.cli import CliProcess, CliRunner, Project

REMOTE_SERIAL = "10.0.0.5:5555"


@pytest.fixture
def farm(monkeypatch: pytest.MonkeyPatch) -> Iterator[AdbHostStandIn]:
    """An adb server elsewhere with a local emulator and an `adb connect`ed phone."""
    with AdbHostStandIn(
        FakeAndroid("emulator-5554"), FakeAndroid(REMOTE_SERIAL, model="Farm Phone"), host="127.0.0.2"
    ) as server:
        for key, value in server.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        yield server


def test_devices_lists_both_from_the_other_hosts_server(cli: CliRunner, farm: AdbHostStandIn) -> None:
    assert farm.port != 5037 and farm.host == "127.0.0.2"
    result = cli("devices", "--driver", "android", "--json")
    assert result.returncode == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["id"], r["model"], r["state"]) for r in rows] == [
        ("emulator-5554", "Pixel 7", "available"),
        (REMOTE_SERIAL, "Farm Phone", "available"),
    ]


def test_a_connected_device_is_chosen_by_its_address(cli: CliRunner, farm: AdbHostStandIn, project: Project) -> None:
    form_project(project)
    result = cli("run", "--device", REMOTE_SERIAL, "--json", "r.json")
    assert result.returncode == 0, result.output
    trail = result.json("r.json")["trails"][0]
    assert (trail["device"], trail["status"]) == (REMOTE_SERIAL, "passed")
    assert farm.phones[REMOTE_SERIAL].app.ui.submitted == ("Ada", "")
    assert farm.phones["emulator-5554"].app.ui.submitted is None


def test_all_devices_runs_on_both(cli: CliRunner, farm: AdbHostStandIn, project: Project) -> None:
    form_project(project)
    result = cli("run", "--all-devices", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert sorted((t["device"], t["status"]) for t in result.json("r.json")["trails"]) == [
        (REMOTE_SERIAL, "passed"),
        ("emulator-5554", "passed"),
    ]


def test_shard_options_spread_trails_over_both(cli: CliRunner, farm: AdbHostStandIn, project: Project) -> None:
    form_project(project)
    for name in ("second", "third", "fourth"):
        (project.root / "trails" / f"{name}.trail.yaml").write_text(
            (project.root / "trails/form.trail.yaml").read_text()
        )
    split = cli("run", "--shard-split", "2", "--json", "split.json")
    assert split.returncode == 0, split.output
    used = {t["device"] for t in split.json("split.json")["trails"]}
    assert len(split.json("split.json")["trails"]) == 4
    assert used <= {REMOTE_SERIAL, "emulator-5554"} and REMOTE_SERIAL in used
    every = cli("run", "--shard-all", "2", "--json", "all.json")
    assert every.returncode == 0, every.output
    assert sorted(t["device"] for t in every.json("all.json")["trails"]) == [REMOTE_SERIAL] * 4 + ["emulator-5554"] * 4
    ci_shard = cli("run", "--shard", "1/2", "--all-devices", "--json", "ci.json")
    assert ci_shard.returncode == 0, ci_shard.output
    trails = ci_shard.json("ci.json")["trails"]
    assert len(trails) == 4  # two of the four trails, on each device
    assert sorted(t["device"] for t in trails) == [REMOTE_SERIAL] * 2 + ["emulator-5554"] * 2


def test_a_dropped_connection_fails_that_trail_and_the_other_device_goes_on(
    cli_process: CliProcess, farm: AdbHostStandIn, project: Project
) -> None:
    form_project(project)
    project.trail(
        "form",
        f"""
        trail:
          - step: start
            recording:
              android: [{{launchApp: {{appId: {SAMPLE_APP}}}}}, {{wait: {{timeToWaitInSeconds: 1}}}}]
          - step: fill in the form
            recording:
              android:
                - tapOnElementWithText: {{text: Forms}}
                - tapOnElementWithText: {{text: Submit}}
        """,
    )
    remote = farm.phones[REMOTE_SERIAL]
    process = cli_process("run", "--all-devices", "--json", "r.json", cwd=project.root, merge_stderr=True)
    started = ("shell", f"pm clear {SAMPLE_APP}; echo X4EXIT:$?")
    deadline = time.monotonic() + 120
    while started not in remote.calls and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert started in remote.calls, "the run never reached the remote phone"
    farm.unplug(REMOTE_SERIAL)
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 2, output
    trails = {t["device"]: t for t in json.loads((project.root / "r.json").read_text())["trails"]}
    assert trails["emulator-5554"]["status"] == "passed", output
    assert trails[REMOTE_SERIAL]["status"] == "error"
    assert f"android device {REMOTE_SERIAL}:" in trails[REMOTE_SERIAL]["error"]
    assert "Traceback" not in output


def test_an_address_the_server_does_not_know_says_how_to_attach_it(
    cli: CliRunner, farm: AdbHostStandIn, project: Project
) -> None:
    form_project(project)
    result = cli("run", "--device", "10.0.0.9:5555")
    assert result.returncode == 2, result.output
    assert (
        f"Android device '10.0.0.9:5555' is not at the adb server 127.0.0.2:{farm.port} "
        f"(devices: emulator-5554 (device), {REMOTE_SERIAL} (device)); "
        f"attach it first with `adb -H 127.0.0.2 -P {farm.port} connect 10.0.0.9:5555`"
    ) in result.output
    assert "Traceback" not in result.output
