"""pytest-playwright's fixtures set up as trailblaze's web driver launches: the same Chromium
(Debian's headless shell, by path), its flags, the viewport and timeout, and the base URL of the
sample app the benchmark serves (TB_PEER_BASE_URL)."""

from __future__ import annotations

import os
from typing import Any

import pytest

EXECUTABLE = os.environ["TB_PEER_CHROMIUM"]
ARGS = os.environ["TB_PEER_CHROMIUM_ARGS"].split("\n")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": EXECUTABLE, "args": ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_context_args,
        "viewport": {"width": 1280, "height": 720},
        "base_url": os.environ["TB_PEER_BASE_URL"],
    }


@pytest.fixture
def page(page: Any) -> Any:
    page.set_default_timeout(10_000)
    return page
