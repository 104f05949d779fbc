"""`git aide map [FOLDER]`: where the memories are in the code and where they went
stale (app/map.py), as a tree in the terminal (render/maptree.py), as JSON, or as one
page (`--html FILE`, render/mappage.py)."""

from __future__ import annotations

import click

from git_aide.cli.click_options import json_option, source_options
from git_aide.cli.commands import Opened, out, tty, warn


@click.command(name="map")
@click.argument("folder", required=False)
@click.option("--depth", type=click.IntRange(min=0), default=2, show_default=True,
              help="How many levels of folders to show below FOLDER (terminal, --json).")
@click.option("--all", "all_", is_flag=True, help="Show every folder, however deep.")
@click.option("--html", "html", metavar="FILE",
              help="Write the map as one self-contained page to FILE ('-': stdout).")
@source_options
@json_option
def map_(folder: str | None, depth: int, all_: bool, html: str | None, cached: bool,
         rev: str | None, as_json: bool) -> None:
    """Show where the memories are in the code, and which are stale, orphaned or always-on."""
    from git_aide.app import map as mp
    from git_aide.core.errors import UsageError

    if html is not None and as_json:
        raise UsageError("--html and --json cannot be used together")
    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        m = mp.build(ctx.repo, snap, folder)
    shown = None if all_ else depth
    if html is not None:
        from git_aide.render.mappage import page

        text = page(m)
        if html == "-":
            out(text, raw=True)
        else:
            from git_aide.core.errors import AideError
            from git_aide.core.files import write_atomic

            try:
                write_atomic(html, text.encode(), sync=False)
            except OSError as e:
                raise AideError(f"cannot write {html}: {e.strerror or e}") from None
            folders, memories = len(m.folders), len(m.memories)
            out(f"wrote {html}: {folders} folder{'s' if folders != 1 else ''}, "
                f"{memories} memor{'y' if memories == 1 else 'ies'}")
    elif as_json:
        from git_aide.render.output import dumps

        out(dumps({"source": m.source, "folder": m.start, "depth": shown,
                   "uncovered_share": mp.UNCOVERED_SHARE, "map": m.tree_json(shown)}))
    else:
        from git_aide.render.maptree import map_text

        on_tty = tty()
        out(map_text(m, shown, tty=on_tty), raw=on_tty, page=True)
