"""The ``brandubh`` command line."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="brandubh")
def main() -> None:
    """Brandubh Live: play, serve and verify games of Brandubh."""
