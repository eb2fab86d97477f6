"""MkDocs hooks (``hooks:`` in mkdocs.yml): the reference pages, made at build time from what
the installed trailblaze says about itself, so they cannot drift from it.

- ``tools/core.md``, ``tools/web.md``, ``tools/mobile.md``: ``trailblaze tools --json``;
- ``hooks.md``: ``trailblaze/hookspecs.py``, signatures from :mod:`inspect`;
- on ``configuration.md``, ``<!-- trailblaze-config-reference -->``: ``trailblaze schema config``;
- on ``writing-trails.md``, ``<!-- trailblaze-trail-reference -->``: ``trailblaze schema``;
- on ``cli.md``, ``<!-- trailblaze-help: CMD -->``: ``trailblaze CMD --help``. A command that
  ``trailblaze --help`` lists without a section there fails the build, so a new command gets
  its page (and an example).

Every page's tables are then read as GitHub reads them (:mod:`markdown_tables`).
"""

from __future__ import annotations

from typing import Any

import cli_help
import config_reference
import hook_reference
import markdown_tables
import tool_pages
import trail_reference
import trailblaze_cli
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

import trailblaze.hookspecs

CONFIG_MARKER = "<!-- trailblaze-config-reference -->"
TRAIL_MARKER = "<!-- trailblaze-trail-reference -->"


def on_files(files: Files, config: Any) -> Files:
    generated = tool_pages.pages(trailblaze_cli.json_output("tools", "--json"))
    generated["hooks.md"] = hook_reference.page(trailblaze.hookspecs)
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if CONFIG_MARKER in markdown:
        markdown = markdown.replace(
            CONFIG_MARKER, config_reference.reference(trailblaze_cli.json_output("schema", "config"))
        )
    if TRAIL_MARKER in markdown:
        markdown = markdown.replace(TRAIL_MARKER, trail_reference.reference(trailblaze_cli.json_output("schema")))
    if page.file.src_uri == "cli.md":
        markdown, shown = cli_help.fill(markdown)
        missing = [c for c in cli_help.commands() if c not in shown]
        if missing:
            raise PluginError(f"cli.md has no `<!-- trailblaze-help: NAME -->` section for: {', '.join(missing)}")
    return markdown_tables.unescape_code_pipes(markdown)
