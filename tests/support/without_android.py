"""Load with ``-p tests.support.without_android``: uiautomator2 and adbutils look uninstalled, as
after ``pip install trailblaze`` without the ``android`` extra."""

from __future__ import annotations

import sys
from typing import Any

HIDDEN = ("uiautomator2", "adbutils")


class _Uninstalled:
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Uninstalled())
