"""Declare the click options the cold commands share (read_commands.py,
write_commands.py, setup_commands.py, rules_commands.py, map.py): the source options,
--json, and the choices of a layer and a source.

The hot commands declare theirs once in option_table.py, without click.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])
LAYER_CHOICE = click.Choice(["area_context", "technical", "preferences", "guidelines"])
SOURCE_CHOICE = click.Choice(["conversation", "import", "agent_discovery", "elevated", "hook"])


def source_options(f: F) -> F:
    """Add --cached/--staged and --rev REV."""
    f = click.option("--rev", metavar="REV", help="Read the tree of this commit-ish.")(f)
    f = click.option("--cached", "--staged", "cached", is_flag=True,
                     help="Read the staged blobs (the index).")(f)
    return f


def json_option(f: F) -> F:
    """Add --json."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(f)

