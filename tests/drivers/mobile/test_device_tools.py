"""Upstream's device tools and its Maestro-backed tools (trailblaze/drivers/mobile/device_tools.py,
trailblaze/drivers/mobile/maestro_tools.py, trailblaze/tools/queries.py) on the phone stand-ins, through
the real uiautomator2/adbutils and facebook-wda."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.drivers.maestro import capture
from tests.drivers.maestro.test_interpreter import launched, replay
from tests.drivers.mobile.test_tools import android_trail, steps
from tests.standins.adb_host import AdbHostStandIn
from tests.standins.android_phone import FakeAndroid
from tests.standins.sample_app import SAMPLE_APP
from tests.standins.wda import FakeIphone, WdaStandIn


def output(name: str) -> object:
    return next(out for tool, out in capture.OUTPUTS if tool == name)


def test_installed_apps(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            "mobile_listInstalledApps",
            "mobile_listInstalledAppsDetailed: {includeSystemApps: false}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert output("mobile_listInstalledApps") == {
        "appIds": ["com.android.launcher3", "com.android.settings", "com.example.crashes", SAMPLE_APP]
    }
    assert output("mobile_listInstalledAppsDetailed") == {
        "apps": [
            {
                "appId": "com.example.crashes",
                "isSystemApp": False,
                "label": None,
                "version": "1.2.3",
                "buildNumber": "42",
                "installPath": "/data/app/~~x1y2/com.example.crashes-1",
            },
            {
                "appId": SAMPLE_APP,
                "isSystemApp": False,
                "label": None,
                "version": "1.2.3",
                "buildNumber": "42",
                "installPath": f"/data/app/~~x1y2/{SAMPLE_APP}-1",
            },
        ]
    }
    assert all(tool.recordable is False for tool in result.trails[0].steps[0].tools)


def test_clipboard(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            launched(phone).replace("launchApp:", "mobile_maestro: {commands: [{launchApp:") + "}]}",
            "mobile_setClipboard: {text: Grace Hopper}",
            "tapOnElementWithText: {text: Forms}",
            "tapOnElementWithText: {text: Name}",
            "mobile_pasteClipboard",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.name == "Grace Hopper"
    assert phone.clipboard == "Grace Hopper"


def test_pasting_an_empty_clipboard_fails_saying_so(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(tmp_path, android_trail("mobile_pasteClipboard"))
    assert result.trails[0].status == "failed"
    assert "the clipboard is empty: call mobile_setClipboard" in (result.trails[0].error or "")


def test_android_broadcasts_appops_and_demo_mode(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(
        tmp_path,
        android_trail(
            "android_sendBroadcast: {action: com.example.SEED, componentPackage: " + SAMPLE_APP + ", componentClass: "
            ".SeedReceiver, extras: [{key: user, value: ada}, {key: count, value: '3', type: int},"
            " {key: debug, value: 'true', type: boolean}]}",
            f"android_grantAppOpsPermission: {{appId: {SAMPLE_APP}, permission: MANAGE_EXTERNAL_STORAGE}}",
            "android_systemUiDemoMode",
            "android_systemUiDemoMode: {enable: false}",
        ),
    )
    assert steps(result) == [("passed", None)]
    seed, *demo = phone.broadcasts
    assert seed == {
        "action": "com.example.SEED",
        "component": f"{SAMPLE_APP}/.SeedReceiver",
        "extras": {"user": "ada", "count": 3, "debug": True},
    }
    assert [b["extras"]["command"] for b in demo] == [  # type: ignore[index]
        "enter",
        "clock",
        "network",
        "network",
        "battery",
        "notifications",
        "status",
        "exit",
    ]
    assert phone.settings[("global", "sysui_demo_allowed")] == "1"
    assert phone.app_ops[(SAMPLE_APP, "MANAGE_EXTERNAL_STORAGE")] == "allow"


def test_android_tools_refuse_bad_input(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    cases = {
        "android_sendBroadcast: {action: a, componentPackage: p, componentClass: c, extras: [{key: n, value: x, "
        "type: int}]}": "the extra 'n' is not a valid int",
        "android_sendBroadcast: {action: a, componentPackage: p, componentClass: c, extras: [{key: n, value: '1'}, "
        "{key: n, value: '2'}]}": "extra key(s) n given more than once",
        "android_grantAppOpsPermission: {appId: com.nope, permission: X}": "Unknown package: com.nope",
        "android_writeFileToDownloads: {fileName: ../etc/passwd, content: x}": "must be a bare file name",
        "android_writeBytesToFile: {devicePath: relative.bin, base64Content: AAAA}": "must be an absolute path",
        "android_writeBytesToFile: {devicePath: /sdcard/x.bin, base64Content: '***'}": "not valid base64",
    }
    for call, message in cases.items():
        result = replay(tmp_path, android_trail(call))
        assert result.trails[0].status == "failed", call
        assert message in (result.trails[0].error or ""), (call, result.trails[0].error)


def test_android_files(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    logo = bytes(range(256))
    encoded = base64.b64encode(logo).decode()
    result = replay(
        tmp_path,
        android_trail(
            'android_writeFileToDownloads: {fileName: setup.json, content: \'{"user": "ada"}\'}',
            f"android_writeBytesToFile: {{devicePath: /sdcard/Pictures/logo.png, base64Content: '{encoded}'}}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.files["/sdcard/Download/setup.json"] == b'{"user": "ada"}'
    assert phone.files["/sdcard/Pictures/logo.png"] == logo
    (_, bytes_call) = result.trails[0].steps[0].tools
    assert bytes_call.args["base64Content"] == "***"  # the content never reaches a report


def test_network_connection(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    result = replay(tmp_path, android_trail("networkConnection: {connected: false}"))
    assert steps(result) == [("passed", None)] and phone.airplane_mode is True
    result = replay(tmp_path, android_trail("networkConnection: {connected: true}"))
    assert steps(result) == [("passed", None)] and phone.airplane_mode is False


def test_upstreams_maestro_backed_tools(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    launch = launched(phone)
    phone.app.ui.tab = "Lists"
    result = replay(
        tmp_path,
        android_trail(
            f"mobile_maestro: {{commands: [{{{launch}}}]}}",
            "assertVisibleWithResourceId: {resourceId: item_list}",
            "assertVisibleWithAccessibilityText: {accessibilityText: 'item 2'}",  # Maestro ignores case
            "longPressElementWithAccessibilityText: {accessibilityText: Item 3}",
            "swipeWithRelativeCoordinates: {startRelative: '50%, 10%', endRelative: '50%, 90%',"
            " swipeOnElementText: 'Item 1', durationMs: 300}",
            "swipeWithRelativeCoordinates: {startRelative: '50%, 60%', endRelative: '50%, 20%'}",
            "dragByPoints: {startX: 540, startY: 1800, endX: 540, endY: 1200, durationMs: 500}",
        ),
    )
    assert steps(result) == [("passed", None)]
    assert phone.app.ui.pinned == {3}
    assert phone.app.ui.list_offset > 0  # the drag scrolled the list
    names = [t.name for t in result.trails[0].steps[0].tools]
    assert names[1:] == [
        "assertVisibleWithResourceId",
        "assertVisibleWithAccessibilityText",
        "longPressElementWithAccessibilityText",
        "swipeWithRelativeCoordinates",
        "swipeWithRelativeCoordinates",
        "dragByPoints",
    ]


def test_ref_tools_delegate_and_record_stable_calls(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    from trailblaze.drivers.android.hierarchy import parse_hierarchy

    phone.app.launch(SAMPLE_APP, "Lists")
    phone.app.clock = lambda: 1e9
    nodes = list(parse_hierarchy(phone.dump()).walk())
    item = next(n for n in nodes if n.text == "Item 2")
    tab = next(n for n in nodes if n.text == "Home")
    result = replay(
        tmp_path, android_trail(f"longPress: {{ref: {item.ref}}}", f"dragTo: {{ref: {tab.ref}, toX: 540, toY: 600}}")
    )
    assert steps(result) == [("passed", None)]
    calls = [(t.name, t.delegated_from) for t in result.trails[0].steps[0].tools]
    assert calls == [("tapOnElementBySelector", ["longPress", "tap"]), ("dragByPoints", ["dragTo"])]
    assert result.trails[0].steps[0].tools[0].args["longPress"] is True
    assert phone.app.ui.pinned == {2}


def test_generic_probes_on_a_phone(adb: AdbHostStandIn, phone: FakeAndroid, tmp_path: Path) -> None:
    phone.app.submissions = 1234
    launch = launched(phone)
    result = replay(
        tmp_path,
        android_trail(
            f"mobile_maestro: {{commands: [{{{launch}}}]}}",
            "findMatches: {selector: {androidAccessibility: {textRegex: 'Submissions: .*'}}}",
            "findMatches: {selector: {androidAccessibility: {textRegex: 'Nothing'}}, timeoutMs: 100}",
            "waitUntilNotVisible: {nodeSelector: {androidAccessibility: {textRegex: 'Details loaded'}}}",
            "rememberNumber: {variable: n, nodeSelector: {androidAccessibility: {resourceIdRegex: '.*submissions'}}}",
            "assertEquals: {actual: '{{memory.n}}', expected: '1234'}",
            "tapOnElementWithText: {text: Forms}",
            "tapOnElementWithText: {text: Name}",
            "inputTextRandom: {variable: ticket, digitCount: 3}",
            "assertVisibleWithText: {text: '{{memory.ticket}}'}",
        ),
    )
    assert steps(result) == [("passed", None)]
    found = [out for name, out in capture.OUTPUTS if name == "findMatches"]
    assert found[1] == []
    (match,) = found[0]  # type: ignore[misc]
    assert match["matchedText"] == "Submissions: 1234"
    assert match["resourceId"] == f"{SAMPLE_APP}:id/submissions"
    assert match["bounds"] == {"left": 48, "top": 450, "right": 1032, "bottom": 570}
    assert match["indexPath"][0] == 0
    assert output("waitUntilNotVisible") is True
    assert phone.app.ui.name.startswith("TBZ-") and len(phone.app.ui.name) == 7
    assert not phone.app.keyboard_shown()  # hidden after typing, as inputText does


def test_ios_clipboard_and_what_it_cannot_list(wda_server: WdaStandIn, iphone: FakeIphone, tmp_path: Path) -> None:
    iphone.app.launch(SAMPLE_APP, "Forms")
    iphone.app.clock = lambda: 1e9
    trail = (
        "trail:\n  - step: s\n    recording:\n      ios:\n"
        "        - mobile_setClipboard: {text: Ada}\n"
        "        - tapOnElementWithText: {text: Name}\n"
        "        - mobile_pasteClipboard\n"
    )
    result = replay(tmp_path, trail, driver="ios", device=wda_server.url)
    assert steps(result) == [("passed", None)]
    assert iphone.pasteboard == "Ada" and iphone.app.ui.name == "Ada"
    listing = replay(
        tmp_path,
        trail.replace("mobile_setClipboard: {text: Ada}", "mobile_listInstalledApps"),
        driver="ios",
        device=wda_server.url,
    )
    assert (listing.trails[0].status, listing.exit_code) == ("error", 3)
    assert "WebDriverAgent cannot list the apps installed on an iPhone" in (listing.trails[0].error or "")


def test_the_number_a_text_shows() -> None:
    from trailblaze.tools.queries import pick_number

    assert pick_number("Submissions: 1234") == "1234"
    assert pick_number("Total: $1,234.50") == "1234.50"
    assert pick_number("50 items") == "50"
    assert pick_number("Order 12 of 30") == "30"
    assert pick_number("-7 degrees, feels like 3 inside") == "-7"
    assert pick_number("no digits") is None
