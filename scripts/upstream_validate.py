"""How many of upstream Trailblaze's trail files `trailblaze validate` passes, from its root.

    python scripts/upstream_validate.py PATH/TO/block-trailblaze-checkout [--jobs 2]

Runs `trailblaze validate FILE` for every `*.trail.yaml` and `trail.yaml` the checkout's git
index lists (or, without git, that are under it), from the checkout's root as upstream's own
CLI runs, and prints one line per file that does not pass (its first problem) and the count.
Exit code 0 when every file passes, 1 otherwise. It needs node (or bun) and the SDK built
(`make sdk`): upstream's trailmaps hold scripted `.ts` tools.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def trail_files(root: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False)
    names = (
        listed.stdout.splitlines() if listed.returncode == 0 else [str(p.relative_to(root)) for p in root.rglob("*")]
    )
    return sorted(n for n in names if n.endswith(".trail.yaml") or n == "trail.yaml" or n.endswith("/trail.yaml"))


def validate(root: Path, name: str) -> tuple[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "validate", name],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode == 0:
        return name, None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return name, lines[0].removeprefix("error: ") if lines else f"exit code {done.returncode}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="a checkout of github.com/block/trailblaze")
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    root = options.root.resolve()
    names = trail_files(root)
    validate(root, names[0])  # describes the workspaces' scripted tools once, before the others read the cache
    with ThreadPoolExecutor(max_workers=options.jobs) as pool:
        results = list(pool.map(lambda n: validate(root, n), names))
    failed = [(name, why) for name, why in results if why is not None]
    for name, why in failed:
        print(f"{name}: {why}")
    print(f"{len(names) - len(failed)} of {len(names)} trail files pass `trailblaze validate`")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
