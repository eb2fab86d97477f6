"""What a user of the package gets, tried as they would (`make smoke`, part of `make test`).

    python scripts/smoke_wheel.py dist/trailblaze-<version>-py3-none-any.whl

Installs the wheel with its `all` extra into a fresh virtual environment in a temporary folder
(the versions requirements/dev.txt pins, through uv), then, from folders outside the checkout
and with no checkout on any path (PYTHONPATH and TRAILBLAZE_* cleared), runs:

- `trailblaze --version` and `trailblaze doctor` in an empty folder;
- the getting-started page's commands: `trailblaze init my-project`, then `trailblaze run`,
  `validate` and `run --html` in it;
- each example under plugins-examples/ that runs from its folder (the TypeScript tools one, the
  MCP toolsets one with its JavaScript server, over stdio and shared over HTTP by two workers,
  the sample tools one installed as a package);
- upstream's playwright-native scripted tools, unchanged, in a trail run on its sample app;
- `trailblaze mcp` answering `tools/list` to the MCP SDK's client;
- `trailblaze sdk install` in a workspace, and the SDK's npm package (`npm pack` of `trailblaze sdk
  path`) installed into an empty folder, serving a tool to an MCP client.

Each check prints one line, and its output when it fails. Exit code 0 when all pass, 1 otherwise.
It needs Node.js 20.6 or later and npm, a Chromium the web driver finds, and the package
registries (for the wheel's dependencies and the SDK package's).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "dev.txt"
UV = Path(sys.executable).parent / "uv"
STEP_TIMEOUT_S = 300


class Failed(Exception):
    """A check did not hold: the message, and what the commands printed."""


class Smoke:
    def __init__(self, work: Path, venv: Path, wheel: Path) -> None:
        self.work = work
        self.venv = venv
        self.wheel = wheel
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("TRAILBLAZE_", "PYTHON", "VIRTUAL_ENV"))}
        self.env["PATH"] = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"

    def folder(self, name: str) -> Path:
        path = self.work / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def run(self, *command: str, cwd: Path, expect: int = 0, env: dict[str, str] | None = None) -> str:
        try:
            done = subprocess.run(
                command,
                cwd=cwd,
                env={**self.env, **(env or {})},
                capture_output=True,
                text=True,
                timeout=STEP_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Failed(f"`{' '.join(command)}` in {cwd} took over {STEP_TIMEOUT_S}s") from None
        output = done.stdout + done.stderr
        if done.returncode != expect:
            raise Failed(f"`{' '.join(command)}` in {cwd} exited {done.returncode}, not {expect}:\n{output}")
        return output

    def python(self, code: str, cwd: Path) -> str:
        return self.run(str(self.venv / "bin" / "python"), "-c", textwrap.dedent(code), cwd=cwd)


def install(venv: Path, *requirements: str) -> None:
    """A fresh environment with ``requirements``, at the versions the lock file pins."""
    subprocess.run([str(UV), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    command = [str(UV), "pip", "install", "--quiet", "--python", python, *requirements, "--constraint", str(LOCK)]
    subprocess.run(command, check=True, timeout=900)


# -- the checks -----------------------------------------------------------------------------------


def version_and_doctor(smoke: Smoke) -> None:
    empty = smoke.folder("empty")
    out = smoke.run("trailblaze", "--version", cwd=empty)
    if not out.startswith("trailblaze "):
        raise Failed(out)
    out = smoke.run("python", "-c", "import trailblaze, sys; print(trailblaze.__file__)", cwd=empty)
    if str(ROOT) in out or str(smoke.venv) not in out:
        raise Failed(f"trailblaze is not the installed package: {out}")
    smoke.run("trailblaze", "doctor", cwd=empty)


def getting_started(smoke: Smoke) -> None:
    """docs/getting-started.md: init a project, run its example trail, validate it, an HTML report."""
    here = smoke.folder("start")
    smoke.run("trailblaze", "init", "my-project", cwd=here)
    project = here / "my-project"
    out = smoke.run("trailblaze", "run", cwd=project)
    if "1 passed" not in out:
        raise Failed(out)
    smoke.run("trailblaze", "validate", "trails/example.trail.yaml", cwd=project)
    smoke.run("trailblaze", "run", "trails/example.trail.yaml", "--html", cwd=project)
    if not (project / "trailblaze-report" / "index.html").is_file():
        raise Failed("run --html wrote no trailblaze-report/index.html")
    smoke.run("trailblaze", "doctor", cwd=project)


def maestro_flows(smoke: Smoke) -> None:
    """docs/coming-from-maestro.md: a Maestro web flow runs as it is (tags, -e, JUnit named by the
    flow's name), validates, and converts to a trail that replays."""
    here = smoke.folder("maestro")
    smoke.run("trailblaze", "init", "flows-project", cwd=here)
    project = here / "flows-project"
    flows = project / "flows"
    flows.mkdir()
    (flows / "contact.yaml").write_text(
        textwrap.dedent(
            """\
            url: /forms.html
            name: Contact form
            tags: [smoke]
            ---
            - launchApp
            - tapOn:
                id: name
            - inputText: ${NAME}
            - tapOn: Submit
            - assertVisible: "Name: ${NAME}"
            - assertNotVisible: Something went wrong
            """
        ),
        encoding="utf-8",
    )
    smoke.run("trailblaze", "validate", "flows/", "-e", "NAME=Ada", cwd=project)
    out = smoke.run(
        "trailblaze", "run", "flows/", "-e", "NAME=Ada", "--include-tags", "smoke", "--junit", "junit.xml", cwd=project
    )
    if "1 passed" not in out:
        raise Failed(out)
    if 'name="Contact form"' not in (project / "junit.xml").read_text(encoding="utf-8"):
        raise Failed("the JUnit report names no test case after the flow's name:")
    smoke.run("trailblaze", "record", "--from-maestro", "flows/contact.yaml", "-e", "NAME=Ada", cwd=project)
    out = smoke.run("trailblaze", "run", "flows/contact.trail.yaml", cwd=project)
    if "1 passed" not in out:
        raise Failed(out)


def typescript_tools(smoke: Smoke) -> None:
    """plugins-examples/typescript-tools: a trailmap's .ts tool composing built-ins and a plugin's tool."""
    example = copy_example(smoke, "typescript-tools")
    out = smoke.run("trailblaze", "run", cwd=example, env={"PYTHONPATH": "."})
    if "1 passed" not in out:
        raise Failed(out)


def mcp_toolsets(smoke: Smoke) -> None:
    """plugins-examples/mcp-toolsets: a Python and a JavaScript MCP server, no npm install; over
    stdio, then with two workers each started once over HTTP (``multi_device: http``)."""
    example = copy_example(smoke, "mcp-toolsets")
    out = smoke.run("trailblaze", "run", cwd=example)
    if "2 passed" not in out:
        raise Failed(out)
    out = smoke.run("trailblaze", "run", "--workers", "2", cwd=example)
    logs = sorted(p.name for p in (example / ".trailblaze" / "logs").glob("run-*/*.http.log"))
    if "2 passed" not in out or logs != ["js_tools_server.http.log", "python_tools_server.http.log"]:
        raise Failed(f"{out}\nHTTP servers' logs: {logs}")


def plugin_packages(smoke: Smoke) -> None:
    """plugins-examples' plugin packages, pip-installed beside trailblaze: their tools in a run,
    their reporter's option and its report."""
    tools = copy_example(smoke, "trailblaze-sample-tools")
    report = copy_example(smoke, "trailblaze-markdown-report")
    venv = smoke.work / "plugin-venv"
    install(venv, str(smoke.wheel), str(tools), str(report))
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    out = smoke.run("trailblaze", "plugins", cwd=tools, env=env)
    if "sample_tools" not in out or "markdown_report" not in out:
        raise Failed(out)
    out = smoke.run("trailblaze", "run", "trails/", "--markdown", "summary.md", cwd=tools, env=env)
    if " passed" not in out or " failed" in out:
        raise Failed(out)
    if not (tools / "summary.md").is_file():
        raise Failed("--markdown wrote no summary.md")


def upstream_scripted_tools(smoke: Smoke) -> None:
    """Upstream's playwright-native scripted tools, unchanged, on its sample app."""
    source = ROOT / "tests" / "mcp_toolsets" / "upstream" / "examples"
    root = smoke.folder("upstream")
    shutil.copytree(source, root / "examples")
    trail = root / "examples" / "playwright-native" / "trails" / "smoke" / "sample.trail.yaml"
    trail.parent.mkdir(parents=True)
    trail.write_text(
        textwrap.dedent(
            """\
            config:
              target: playwrightSample
            trail:
              - step: use the sample's scripted tools
                recording:
                  web:
                    - playwrightSample_web_openFixtureAndVerifyText: {}
                    - playwrightSample_web_incrementCounterToValue: {increments: 3}
                    - playwrightSample_web_openFormIfNeeded: {}
                    - playwrightSample_web_submitContactForm: {name: Ada Lovelace, email: ada@example.com}
                    - playwrightSample_web_searchProductsAndOpenResult: {}
                    - playwrightSample_web_openDuplicateProductDetail: {}
            """
        )
    )
    out = smoke.run("trailblaze", "run", str(trail.relative_to(root)), cwd=root)
    if "1 passed" not in out:
        raise Failed(out)


def mcp_tools_list(smoke: Smoke) -> None:
    """`trailblaze mcp` over stdio answers the MCP SDK's client with its tools."""
    here = smoke.folder("mcp")
    out = smoke.python(
        """
        import anyio, shutil
        from mcp import Client, StdioServerParameters

        async def main():
            params = StdioServerParameters(command=shutil.which("trailblaze"), args=["mcp"])
            async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
                names = [t.name for t in (await client.list_tools()).tools]
            print(len(names), " ".join(sorted(names)))

        anyio.run(main)
        """,
        cwd=here,
    )
    count, _, names = out.strip().splitlines()[-1].partition(" ")
    if int(count) < 5 or "device" not in names.split():
        raise Failed(out)


def sdk_for_editors_and_npm(smoke: Smoke) -> None:
    """`trailblaze sdk install` in a workspace; the SDK's npm package serves a tool from an empty folder."""
    example = copy_example(smoke, "typescript-tools", as_name="typescript-editor")
    smoke.run("trailblaze", "sdk", "install", cwd=example)
    tools = example / "trails" / "config" / "trailmaps" / "shop" / "tools"
    if (
        not (tools / "tsconfig.json").is_file()
        or not (example / "trails" / ".trailblaze" / "sdk" / "dist" / "index.d.ts").is_file()
    ):
        raise Failed("sdk install wrote no tsconfig.json or no declarations")

    sdk = smoke.run("trailblaze", "sdk", "path", cwd=example).strip()
    packed = smoke.folder("npm-pack")
    smoke.run("npm", "pack", sdk, "--pack-destination", str(packed), "--silent", cwd=packed)
    tarball = next(packed.glob("trailblaze-scripting-*.tgz"))
    project = smoke.folder("npm-project")
    smoke.run("npm", "install", "--no-audit", "--no-fund", "--silent", str(tarball), cwd=project)
    (project / "echo.ts").write_text(
        'import { trailblaze } from "@trailblaze/scripting";\n\n'
        "/** Say it back. */\n"
        "export const echo = trailblaze.tool<{ text: string }>(async ({ text }) => text);\n"
    )
    cli = project / "node_modules" / "@trailblaze" / "scripting" / "dist" / "cli.js"
    out = smoke.python(
        f"""
        import anyio
        from mcp import Client, StdioServerParameters

        async def main():
            params = StdioServerParameters(command="node", args=[{str(cli)!r}, "serve", "echo.ts"])
            async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
                result = await client.call_tool("echo", {{"text": "from npm"}})
            print(result.content[0].text)

        anyio.run(main)
        """,
        cwd=project,
    )
    if out.strip().splitlines()[-1] != "from npm":
        raise Failed(out)


def copy_example(smoke: Smoke, name: str, as_name: str | None = None) -> Path:
    target = smoke.work / "examples" / (as_name or name)
    shutil.copytree(
        ROOT / "plugins-examples" / name,
        target,
        ignore=shutil.ignore_patterns(".trailblaze", "node_modules", "*.egg-info"),
    )
    return target


CHECKS: list[Callable[[Smoke], None]] = [
    version_and_doctor,
    getting_started,
    maestro_flows,
    typescript_tools,
    mcp_toolsets,
    plugin_packages,
    upstream_scripted_tools,
    mcp_tools_list,
    sdk_for_editors_and_npm,
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheel", type=Path)
    parser.add_argument("-k", dest="only", help="run only the checks whose name contains this")
    options = parser.parse_args()
    started = time.monotonic()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="trailblaze-smoke-") as tmp:
        work = Path(tmp)
        wheel = work / options.wheel.name  # a copy: nothing of the checkout is used after this
        shutil.copy2(options.wheel, wheel)
        install(work / "venv", f"{wheel}[all]")
        print(f"installed {wheel.name} into a fresh environment ({time.monotonic() - started:.0f}s)")
        smoke = Smoke(work / "try", work / "venv", wheel)
        for check in CHECKS:
            if options.only and options.only not in check.__name__:
                continue
            began = time.monotonic()
            try:
                check(smoke)
            except (Failed, subprocess.CalledProcessError) as exc:
                failed += 1
                print(f"FAIL {check.__name__} ({time.monotonic() - began:.1f}s)\n{textwrap.indent(str(exc), '    ')}")
            else:
                print(f"ok   {check.__name__} ({time.monotonic() - began:.1f}s)")
    print(f"{'all passed' if not failed else f'{failed} failed'} in {time.monotonic() - started:.0f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
