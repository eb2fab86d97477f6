"""The fake Android phone's shell: the commands uiautomator2, adbutils and trailblaze run over
``adb shell`` (a part of :class:`tests.standins.android_phone.FakeAndroid`)."""

from __future__ import annotations

import hashlib
import shlex
import time

from tests.standins.android_state import PhoneState
from tests.standins.sample_app import (
    LAUNCHER,
    PERMISSIONS,
    SAMPLE_APP,
)


class PhoneShell(PhoneState):
    """What :class:`~tests.standins.android_phone.FakeAndroid` answers on ``adb shell``."""

    def shell(self, command: str) -> bytes:
        """Run a command line; ``; echo X4EXIT:$?`` (adbutils' exit-code trick) is honoured."""
        marker = "; echo X4EXIT:$?"
        wants_code = command.endswith(marker)
        if wants_code:
            command = command[: -len(marker)]
        output, code = "", 0
        for part in _split_commands(command):
            out, code = self.run(part)
            output += out
        if wants_code:
            output += f"X4EXIT:{code}\n"
        return output.encode()

    def run(self, line: str) -> tuple[str, int]:
        try:
            argv = shlex.split(line)
        except ValueError:
            return "/system/bin/sh: syntax error\n", 2
        if not argv:
            return "", 0
        app = self.app
        name, args = argv[0], argv[1:]
        if name in self.missing_commands:
            return f"/system/bin/sh: {name}: not found\n", 127
        if name == "toybox" and args[:1] == ["md5sum"]:
            path = args[1]
            if path not in self.files:
                return f"md5sum: {path}: No such file or directory\n", 1
            return f"{hashlib.md5(self.files[path]).hexdigest()}  {path}\n", 0
        if name == "getprop":
            props = {"ro.product.model": self.model, "ro.build.version.sdk": "34", "ro.serialno": self.serial}
            return props.get(args[0], "") + "\n", 0
        if name == "wm" and args[:1] == ["size"]:
            return f"Physical size: {self.width}x{self.height}\n", 0
        if name == "wm" and args[:1] == ["density"]:
            return f"Physical density: {self.density}\n", 0
        if name == "dumpsys" and args[:1] == ["window"]:
            front = app.showing if app.showing != LAUNCHER else None
            focus = f"{front}/{front}.MainActivity" if front else f"{LAUNCHER}/{LAUNCHER}.Launcher"
            return f"  mCurrentFocus=Window{{4f1c2a u0 {focus}}}\n  mFocusedApp=ActivityRecord{{1 u0 {focus}}}\n", 0
        if name == "dumpsys" and args[:1] == ["input_method"]:
            return f"  mInputShown={'true' if app.keyboard_shown() else 'false'}\n", 0
        if name == "dumpsys" and args[:1] == ["display"]:
            return "  mCurrentOrientation=0\n  orientation=0\n", 0
        if name == "ime" and args[:1] == ["list"]:
            return "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n", 0
        if name == "cmd" and args[:2] == ["package", "resolve-activity"]:
            package = args[-1]
            if package not in app.installed:
                return "No activity found\n", 0
            return f"priority=0 preferredOrder=0 match=0x108000 isDefault=true\n{package}/.MainActivity\n", 0
        if name == "am" and args[:1] == ["start"]:
            return self._am_start(args[1:])
        if name == "am" and args[:1] == ["broadcast"]:
            return self._am_broadcast(args[1:])
        if name == "dumpsys" and args[:1] == ["package"] and len(args) > 1:
            return self._dumpsys_package(args[1])
        if name == "cmd" and args[:2] == ["connectivity", "airplane-mode"]:
            if args[2:] == ["enable"]:
                self.airplane_mode = True
            elif args[2:] == ["disable"]:
                self.airplane_mode = False
            elif args[2:]:
                return f"Unknown airplane-mode command: {args[2]}\n", 255
            return ("enabled\n" if self.airplane_mode else "disabled\n") if not args[2:] else "", 0
        if name == "settings" and len(args) >= 3 and args[0] in ("put", "get"):
            key = (args[1], args[2])
            if args[0] == "put":
                self.settings[key] = " ".join(args[3:])
                return "", 0
            return self.settings.get(key, "null") + "\n", 0
        if name == "appops" and args[:1] == ["set"] and len(args) == 4:
            if args[1] not in app.installed:
                return f"Error: Unknown package: {args[1]}\n", 255
            self.app_ops[(args[1], args[2])] = args[3]
            return "", 0
        if name == "appops" and args[:1] == ["get"] and len(args) == 3:
            return f"{args[2]}: {self.app_ops.get((args[1], args[2]), 'default')}\n", 0
        if name == "mkdir":
            return "", 0
        if name == "am" and args[:1] == ["force-stop"]:
            app.force_stop(args[1])
            return "", 0
        if name == "pm":
            return self._pm(args)
        if name == "monkey":
            package = args[args.index("-p") + 1]
            if not app.launch(package):
                return "** No activities found to run, monkey aborted.\n", 252
            self._log_start(package)
            return "Events injected: 1\n", 0
        if name == "logcat":
            return self._logcat(args)
        if name == "input" and args[:1] == ["keyevent"]:
            for code in args[1:]:
                self.key({"4": "back", "3": "home", "67": "del"}.get(code, code.lower()))
            return "", 0
        if name == "rm":
            for path in (a for a in args if not a.startswith("-")):
                self.files.pop(path, None)
            return "", 0
        if name in ("echo",):
            return " ".join(args) + "\n", 0
        if name == "ps":
            running = f"u0_a100  4242  1 0 0 0 0 S {SAMPLE_APP}\n" if app.running else ""
            return "USER PID PPID VSZ RSS WCHAN ADDR S NAME\n" + running, 0
        return f"/system/bin/sh: {name}: inaccessible or not found\n", 127

    def _log_start(self, package: str) -> None:
        self.add_log("ActivityTaskManager", f"START u0 {{cmp={package}/.MainActivity}} from uid 2000", pid=1000)

    def _logcat(self, args: list[str]) -> tuple[str, int]:
        """``logcat -d [-v epoch] [-v printable] [-t SECONDS.MILLIS]``: the buffer, oldest first, in
        the threadtime layout (``TIME  PID  TID P TAG     : message``), each message line its own."""
        if "-d" not in args:
            return "logcat: the stand-in only dumps (-d); it does not follow the log\n", 1
        formats = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "-v"]
        since = None
        if "-t" in args:
            value = args[args.index("-t") + 1]
            try:
                since = float(value)
            except ValueError:
                return f"logcat: the stand-in reads -t as seconds.millis, not {value!r}\n", 1
        lines = []
        with self.lock:
            entries = sorted(self.logcat)
        for at, pid, priority, tag, message in entries:
            if since is not None and at < since:
                continue
            if "epoch" in formats:
                stamp = f"{at:17.3f}"
            else:
                stamp = time.strftime("%m-%d %H:%M:%S", time.localtime(at)) + f".{int(at % 1 * 1000):03d}"
            if "printable" in formats:
                message = "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" for c in message)
            lines += [f"{stamp} {pid:5d} {pid:5d} {priority} {tag:<8}: {part}\n" for part in message.split("\n")]
        return "".join(lines), 0

    def _am_broadcast(self, args: list[str]) -> tuple[str, int]:
        intent: dict[str, object] = {"extras": _extras(args)}
        if "-a" in args:
            intent["action"] = args[args.index("-a") + 1]
        if "-n" in args:
            intent["component"] = args[args.index("-n") + 1]
        self.broadcasts.append(intent)
        return f"Broadcasting: Intent {{ act={intent.get('action')} flg=0x400000 }}\nBroadcast completed: result=0\n", 0

    def _dumpsys_package(self, package: str) -> tuple[str, int]:
        if package not in self.app.installed | self.system_packages:
            return f"Unable to find package: {package}\n", 0
        system = package in self.system_packages
        lines = [
            "Packages:",
            f"  Package [{package}] (4f1c2a):",
            f"    codePath={self._code_path(package)}",
            "    versionCode=42 minSdk=24 targetSdk=34",
            f"    versionName={'14' if system else '1.2.3'}",
            f"    pkgFlags=[ {'SYSTEM ' if system else ''}HAS_CODE ALLOW_CLEAR_USER_DATA ]",
        ]
        if package == SAMPLE_APP:
            requested = (*PERMISSIONS, "android.permission.INTERNET")
            lines += ["    requested permissions:", *(f"      {p}" for p in requested)]
            lines += ["    install permissions:", "      android.permission.INTERNET: granted=true"]
        return "\n".join(lines) + "\n", 0

    def _code_path(self, package: str) -> str:
        if package in self.system_packages:
            return f"/system/priv-app/{package.rsplit('.', 1)[-1]}"
        return f"/data/app/~~x1y2/{package}-1"

    def _am_start(self, args: list[str]) -> tuple[str, int]:
        app = self.app
        if "-n" in args:
            component = args[args.index("-n") + 1]
            package = component.split("/", 1)[0]
            if package not in app.installed:
                return (
                    f"Starting: Intent {{ cmp={component} }}\nError type 3\n"
                    f"Error: Activity class {{{component}}} does not exist.\n",
                    0,
                )
            app.launch(package)
            self._log_start(package)
            app.launch_arguments = _extras(args)
            return f"Starting: Intent {{ act=android.intent.action.MAIN cmp={component} }}\n", 0
        if "-d" in args:
            url = args[args.index("-d") + 1]
            if not app.open_link(url):
                return (
                    f"Starting: Intent {{ act=android.intent.action.VIEW dat={url} }}\n"
                    "Error: Activity not started, unable to resolve Intent "
                    f"{{ act=android.intent.action.VIEW dat={url} }}\n",
                    0,
                )
            return f"Starting: Intent {{ act=android.intent.action.VIEW dat={url} }}\n", 0
        if "-p" in args:  # the package's launcher activity (`-a MAIN -c LAUNCHER -p PACKAGE`)
            package = args[args.index("-p") + 1]
            intent = f"act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg={package}"
            if not app.launch(package):
                return f"Starting: Intent {{ {intent} }}\nError: Activity not started, unable to resolve Intent\n", 0
            self._log_start(package)
            return f"Starting: Intent {{ {intent} }}\n", 0
        return "Error: no intent given\n", 1

    def _pm(self, args: list[str]) -> tuple[str, int]:
        app = self.app
        verb = args[0] if args else ""
        if verb == "clear":
            return ("Success\n", 0) if app.clear_data(args[1]) else ("Failed\n", 1)
        if verb == "grant":
            error = app.grant(args[1], args[2])
            if error is None:
                return "", 0
            return f"Exception occurred while executing 'grant':\njava.lang.IllegalArgumentException: {error}\n", 255
        if verb == "revoke":
            error = app.revoke(args[1], args[2])
            if error is None:
                return "", 0
            return f"Exception occurred while executing 'revoke':\njava.lang.IllegalArgumentException: {error}\n", 255
        if verb == "list" and args[1:2] == ["packages"]:
            flags = set(args[2:])
            packages = app.installed | self.system_packages
            if "-s" in flags:
                packages = packages & self.system_packages
            if "-3" in flags:
                packages = packages - self.system_packages
            if "-f" in flags:
                return "".join(f"package:{self._code_path(p)}/base.apk={p}\n" for p in sorted(packages)), 0
            return "".join(f"package:{p}\n" for p in sorted(packages)), 0
        if verb == "install":
            data = self.files.get(args[-1], b"")
            if not data.startswith(b"FAKEAPK:"):
                return "Failure [INSTALL_PARSE_FAILED_NOT_APK: not an APK]\n", 1
            app.installed.add(data[len(b"FAKEAPK:") :].decode().strip())
            return "Performing Streamed Install\nSuccess\n", 0
        if verb == "uninstall":
            if args[-1] not in app.installed:
                return "Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1
            app.installed.discard(args[-1])
            return "Success\n", 0
        return f"Unknown command: {verb}\n", 1


def _extras(args: list[str]) -> dict[str, object]:
    """Intent extras of an ``am`` command line, typed as the flags say."""
    kinds = {"-e": str, "--es": str, "--ei": int, "--el": int, "--ef": float, "--ez": lambda v: v == "true"}
    extras: dict[str, object] = {}
    i = 0
    while i < len(args):
        convert = kinds.get(args[i])
        if convert is not None and i + 2 < len(args):
            extras[args[i + 1]] = convert(args[i + 2])  # type: ignore[operator]
            i += 3
        else:
            i += 1
    return extras


def _split_commands(command: str) -> list[str]:
    """Split ``a; b`` outside quotes."""
    parts, current, quote = [], "", ""
    for char in command:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ";":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]
