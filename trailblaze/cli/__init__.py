"""The ``trailblaze`` command line: it parses, and calls the library (``trailblaze.runner``).

Options are not written here: the runner's own (:mod:`trailblaze.plugins.main`), the reporters'
(``--json``, ``--junit``, ``-v``) and the drivers' (``--headed``, ``--base-url``) are declared by
plugins in ``trailblaze_addoption`` and become click options when a command that takes them is
resolved — after the plugin manager is built from ``-p`` and ``-c`` (looked for anywhere on the
command line, as pytest does), before click parses. ``trailblaze --version`` and ``--help`` load
no plugin option, so they start as quickly as ``pytest --version``. Plugins add commands through
``trailblaze_register_commands``.

Expected errors are :class:`~trailblaze.core.errors.TrailblazeError` and become one readable message
and an exit code at the single boundary in :func:`main`; anything else is an internal error
(exit 4) whose traceback goes to a log file (:mod:`trailblaze.cli.crashlog`).
"""

from trailblaze.cli.commands import project_command
from trailblaze.cli.group import cli
from trailblaze.cli.main import main
from trailblaze.cli.state import current_project

__all__ = ["cli", "current_project", "main", "project_command"]
