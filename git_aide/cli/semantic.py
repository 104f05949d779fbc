"""`git aide semantic fetch` and `git aide semantic status` (docs/semantic.md)."""

from __future__ import annotations

import sys
import time

import click

from git_aide.cli.commands import Bar, Opened, out, progress, warn

#: Seconds between the lines a download says when stderr is not a terminal.
EVERY = 10.0


class Downloaded:
    """Show a download's progress: the bar on a terminal; otherwise a line on stderr every
    EVERY seconds; and a last line saying what was downloaded, in how long."""

    def __init__(self, label: str, bar: Bar) -> None:
        self.label = label
        self.bar = bar
        self.done = 0
        self.start = time.monotonic()
        self._said = self.start

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        self.bar(done, total)
        now = time.monotonic()
        if not self.bar.enabled and now - self._said >= EVERY:
            self._said = now
            sys.stderr.write(f"git-aide: {self.label}: {_mb(done)} of {_mb(total)}\n")

    def finish(self) -> None:
        """Say what was downloaded (nothing when the model was there already)."""
        if self.done:
            took = time.monotonic() - self.start
            sys.stderr.write(f"git-aide: {self.label}: downloaded {_mb(self.done)} "
                             f"in {took:.1f} s\n")


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


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
    from git_aide.embedding.catalog import DEFAULT

    label = f"fetching {name or DEFAULT}"
    with progress(label) as bar:
        shown = Downloaded(label, bar)
        done = fetch_model(name or DEFAULT, mirror, shown, configure=not no_config)
    shown.finish()
    out(f"Fetched {done['model']} ({done['licence']}) into {done['folder']}.")
    if done["configured"]:
        out(f"Set {done['configured']} = {done['model']} in your git config; "
            "`git aide index` embeds the memories (search does it as it goes).")


@semantic.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def status(as_json: bool) -> None:
    """Say what model is configured, whether it loads, how many memories have vectors."""
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
