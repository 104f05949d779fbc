"""`git aide semantic fetch` and `git aide semantic status` (README, Semantic search)."""

from __future__ import annotations

import click

from git_aide.cli.commands import Opened, out, progress, warn


@click.group()
def semantic() -> None:
    """Search by meaning: get a model, see what is configured."""


@semantic.command()
@click.argument("name", required=False)
@click.option("--mirror", metavar="URL",
              help="Download from this server instead of the model's upstream (same paths).")
@click.option("--no-config", is_flag=True,
              help="Only download; leave aide.semantic.model as it is.")
def fetch(name: str | None, mirror: str | None, no_config: bool) -> None:
    """Download a known model (default all-MiniLM-L6-v2), check it, and set
    aide.semantic.model in your git config. The only command that downloads."""
    from git_aide.app.semantic import fetch_model
    from git_aide.model.catalog import DEFAULT

    with progress(f"fetching {name or DEFAULT}") as bar:
        done = fetch_model(name or DEFAULT, mirror, bar, configure=not no_config)
    out(f"Fetched {done['model']} ({done['licence']}) into {done['folder']}.")
    if done["configured"]:
        out(f"Set {done['configured']} = {done['model']} in your git config; "
            "`git aide index` embeds the memories (search does it as it goes).")


@semantic.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def status(as_json: bool) -> None:
    """What model is configured, whether it loads, how many memories have vectors."""
    from git_aide.app.semantic import Semantic, status_doc
    from git_aide.core.errors import AideError

    with Opened() as ctx:
        sem = ctx.noticed(Semantic(ctx.repo, ctx.cache))
        try:
            snap = ctx.snapshot() if ctx.repo.worktree is not None else ctx.snapshot(rev="HEAD")
            warn(snap.warnings)
        except AideError:
            snap = None
        doc = status_doc(sem, snap)
        sem.notices.clear()  # the error is in the status itself
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
        return
    out(f"extra installed: {'yes' if doc['extra_installed'] else 'no'}"
        + ("" if doc["extra_installed"] else " (pip install 'git-aide[semantic]')"))
    out(f"model: {doc['model'] or '(none: git aide semantic fetch)'}")
    if doc["folder"]:
        out(f"folder: {doc['folder']}")
    out(f"loads: {'yes' if doc['loads'] else 'no'}"
        + (f" ({doc['error']})" if doc["error"] and doc["model"] else ""))
    if doc["memories"] is not None:
        size = doc["vectors_bytes"] if isinstance(doc["vectors_bytes"], int) else 0
        out(f"memories with vectors: {doc['with_vectors']} of {doc['memories']} "
            f"({size / 1e6:.1f} MB on disk)")
