"""Several WebDriverAgents in one run — a rack of Macs with iPhones, each WebDriverAgent on its
own port: ``--device URL`` repeated, or the ``ios:`` section's ``devices:`` list. Two stand-in
WebDriverAgents on ports the system picks, each with its own iPhone."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.drivers.ios.test_end_to_end import TRAIL
from tests.standins.wda import FakeIphone, WdaStandIn
from tests.support.cli import CliRunner, Project


@pytest.fixture
def rack(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[WdaStandIn]]:
    monkeypatch.delenv("WDA_URL", raising=False)
    with WdaStandIn(FakeIphone(name="Rack 1")) as first, WdaStandIn(FakeIphone(name="Rack 2")) as second:
        yield [first, second]


def submissions(rack: list[WdaStandIn]) -> list[int]:
    return [server.phone.app.submissions for server in rack]


def test_device_repeated_runs_on_each_webdriveragent(cli: CliRunner, rack: list[WdaStandIn], project: Project) -> None:
    project.trail("ios-form", TRAIL)
    urls = [server.url for server in rack]
    result = cli("run", "--driver", "ios", "--device", urls[0], "--device", urls[1], "--json", "r.json")
    assert result.returncode == 0, result.output
    assert sorted((t["device"], t["status"]) for t in result.json("r.json")["trails"]) == sorted(
        (url, "passed") for url in urls
    )
    assert submissions(rack) == [1, 1]


def test_a_devices_list_in_the_ios_section(cli: CliRunner, rack: list[WdaStandIn], project: Project) -> None:
    urls = [server.url for server in rack]
    project.write("trailblaze.yaml", f"driver: ios\nios:\n  devices:\n    - {urls[0]}\n    - {urls[1]}/\n")
    project.trail("ios-form", TRAIL)
    listing = cli("devices", "--driver", "ios", "--json")
    assert listing.returncode == 0, listing.output
    assert [(row["id"], row["state"]) for row in json.loads(listing.stdout)] == [(u, "available") for u in urls]

    single = cli("run")  # without --all-devices: the first
    assert single.returncode == 0, single.output
    assert submissions(rack) == [1, 0]

    every = cli("run", "--all-devices", "--json", "r.json")
    assert every.returncode == 0, every.output
    assert sorted(t["device"] for t in every.json("r.json")["trails"]) == sorted(urls)
    assert submissions(rack) == [2, 1]

    project.trail("ios-form-again", TRAIL)
    split = cli("run", "--shard-split", "2", "--json", "split.json")
    assert split.returncode == 0, split.output
    assert len(split.json("split.json")["trails"]) == 2
    assert sum(submissions(rack)) == 5


def test_a_listed_webdriveragent_that_is_down_is_unreachable_and_all_devices_skips_it(
    cli: CliRunner, rack: list[WdaStandIn], project: Project
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}"
    project.write("trailblaze.yaml", f"driver: ios\nios: {{devices: [{rack[0].url}, {down}]}}\n")
    project.trail("ios-form", TRAIL)
    listing = cli("devices", "--driver", "ios", "--json")
    assert [(row["id"], row["state"]) for row in json.loads(listing.stdout)] == [
        (rack[0].url, "available"),
        (down, "unreachable"),
    ]
    result = cli("run", "--all-devices", "--json", "r.json")
    assert result.returncode == 0, result.output
    assert [t["device"] for t in result.json("r.json")["trails"]] == [rack[0].url]


def test_a_devices_entry_that_is_not_a_url_is_exit_3_with_its_line(cli: CliRunner, project: Project) -> None:
    project.write("trailblaze.yaml", "driver: ios\nios:\n  devices:\n    - http://127.0.0.1:8100\n    - iPhone-15\n")
    project.trail("ios-form", TRAIL)
    result = cli("run")
    assert result.returncode == 3, result.output
    assert "trailblaze.yaml:5:7: ios.devices.1: 'iPhone-15' is not a WebDriverAgent URL" in result.output
    assert "Traceback" not in result.output
