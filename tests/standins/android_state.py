"""What a fake Android phone holds (files, settings, its log, the calls it was sent) and the
few things every part of it does with that: the base of the parts
:class:`tests.standins.android_phone.FakeAndroid` is made of."""

from __future__ import annotations

import threading
import time

from tests.standins.sample_app import HEIGHT, LAUNCHER, WIDTH, SampleApp


class PhoneState:
    """One phone's state. ``scale`` maps the app's 360×800 layout to pixels; ``density`` is the dpi."""

    def __init__(
        self,
        serial: str = "emulator-5554",
        *,
        model: str = "Pixel 7",
        scale: int = 3,
        density: int = 480,
        app: SampleApp | None = None,
    ) -> None:
        self.serial = serial
        self.model = model
        self.scale = scale
        self.density = density
        self.app = app or SampleApp()
        self.state = "device"
        self.files: dict[str, bytes] = {}
        self.clipboard = ""
        #: ``settings put`` values by (namespace, key); ``am broadcast`` intents as sent
        self.settings: dict[tuple[str, str], str] = {}
        self.broadcasts: list[dict[str, object]] = []
        self.app_ops: dict[tuple[str, str], str] = {}
        self.airplane_mode = False
        #: packages that come with the system image (``pm list packages -s``)
        self.system_packages = {LAUNCHER, "com.android.settings"}
        self.u2_running = False
        #: the log buffer ``logcat`` dumps: (seconds since the epoch, pid, priority, tag, message)
        self.logcat: list[tuple[float, int, str, str, str]] = []
        #: commands this phone's shell does not have (a stripped-down image without ``logcat``)
        self.missing_commands: set[str] = set()
        self.calls: list[tuple[str, str]] = []
        self.call_times: list[float] = []
        #: two-finger gestures (uiautomator2's ``gesture``): start and end of each finger, in layout units
        self.gestures: list[tuple[tuple[int, int], ...]] = []
        self.lock = threading.RLock()
        self._screenshot: bytes | None = None

    @property
    def width(self) -> int:
        return WIDTH * self.scale

    @property
    def height(self) -> int:
        return HEIGHT * self.scale

    def log(self, kind: str, what: str) -> None:
        with self.lock:
            self.calls.append((kind, what))
            self.call_times.append(time.monotonic())

    def add_log(self, tag: str, message: str, priority: str = "I", *, at: float | None = None, pid: int = 4242) -> None:
        """An entry in the device's log, logged now (or ``at``, seconds since the epoch)."""
        with self.lock:
            self.logcat.append((time.time() if at is None else at, pid, priority, tag, message))

    def rpc_methods(self) -> list[str]:
        return [what for kind, what in self.calls if kind == "rpc"]

    def key(self, name: str) -> bool:
        app = self.app
        if name == "back":
            app.back()
        elif name == "home":
            app.home()
        elif name == "del":
            app.erase(1)
        return True
