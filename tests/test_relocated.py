"""The old import paths of moved modules (trailblaze/_relocated.py): the same module object under
both names, a DeprecationWarning naming the new path, for every entry of the table.

relayout: keep — this file names the old paths on purpose.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
import warnings

import pytest

from trailblaze._relocated import MOVED, new_name


@pytest.fixture
def forget(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Forget an old path imported before, so that importing it runs the finder again."""

    def forget(*names: str) -> None:
        for name in names:
            monkeypatch.delitem(sys.modules, name, raising=False)

    return forget


def test_an_old_path_is_the_new_module_and_warns(forget) -> None:  # type: ignore[no-untyped-def]
    forget("trailblaze.session")
    with pytest.warns(DeprecationWarning, match=r"trailblaze\.session has moved to trailblaze\.api\.session"):
        old = importlib.import_module("trailblaze.session")
    new = importlib.import_module("trailblaze.api.session")
    assert old is new
    assert old.Session is new.Session
    assert old.__name__ == old.__spec__.name == "trailblaze.api.session"


def test_a_module_of_a_moved_package_is_found_too(forget) -> None:  # type: ignore[no-untyped-def]
    forget("trailblaze.web", "trailblaze.web.settings")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        from trailblaze.web.settings import WebSettings  # type: ignore[import-not-found]
    from trailblaze.drivers.web.settings import WebSettings as Moved

    assert WebSettings is Moved
    assert [(w.category, str(w.message).partition(":")[0]) for w in seen] == [
        (DeprecationWarning, "trailblaze.web has moved to trailblaze.drivers.web"),
        (DeprecationWarning, "trailblaze.web.settings has moved to trailblaze.drivers.web.settings"),
    ]


def test_the_warning_points_at_the_importing_line() -> None:
    code = "import warnings; warnings.simplefilter('always')\nimport trailblaze.results\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert "<string>:2: DeprecationWarning: trailblaze.results has moved to trailblaze.api.results" in run.stderr


def test_paths_that_did_not_move_are_not_touched() -> None:
    assert new_name("trailblaze.tools.model") is None
    assert new_name("trailblaze.webhooks") is None  # a prefix of a name is not a package
    assert new_name("trailblaze.api.session") is None


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_new_path_exists_and_no_old_one_does(old: str) -> None:
    assert importlib.util.find_spec(MOVED[old]) is not None
    parent = importlib.util.find_spec(old.rpartition(".")[0])
    assert parent is not None
    assert parent.submodule_search_locations is not None
    found = importlib.machinery.PathFinder.find_spec(old, list(parent.submodule_search_locations))
    assert found is None, f"{old} exists both at its old path and at {MOVED[old]}"
