"""``trailblaze sample-app``, added by the built-in ``web_playwright`` plugin."""

from __future__ import annotations

import click

from trailblaze.cli.commands import examples


@click.command("sample-app", epilog=examples("trailblaze sample-app --port 8000"))
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--host", default="127.0.0.1", show_default=True)
def sample_app(port: int, host: str) -> int:
    """Serve the bundled sample web app (what `base_url: sample-app` runs against)."""
    from trailblaze.drivers.web.sample_server import serve

    return serve(host, port, click.echo)
