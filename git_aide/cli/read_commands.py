"""Read memories with the cold commands `index`, `stats`, `list`, `show` and `audit`: each
one click declaration and one function that reads a source through app/ and renders
it. (The hot readers, recall, search, diff and log, are commands.py's.)
"""

from __future__ import annotations

import click

from git_aide.cli.click_options import LAYER_CHOICE, json_option, source_options
from git_aide.cli.commands import Opened, out, progress, render_hits, tty, warn
from git_aide.cli.user_store import list_user, project
from git_aide.core.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Context
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.read.record import Entry


@click.command()
@click.option("--rebuild", is_flag=True, help="Throw the cache away and build it anew.")
@click.option("--quiet", is_flag=True, help="Print nothing (for hooks).")
def index(rebuild: bool, quiet: bool) -> None:
    """Bring the cache up to date (the working tree, the index and HEAD)."""
    import shutil

    from git_aide.app import search as sr
    from git_aide.core import collector

    with Opened() as ctx:
        if rebuild:
            shutil.rmtree(ctx.cache.root, ignore_errors=True)
            ctx.new_cache()
        # A bulk read and write make hundreds of thousands of objects and free none
        # until the end: the collector's passes over them are waste (a tenth of a first
        # index of 100,000 memories).
        with progress("indexing memories", quiet=quiet) as bar, collector.paused(ending=True):
            added, entries = sr.index_sources(ctx, bar)
        embedded = _embed(ctx, entries, quiet)
    if not quiet:
        out(f"Indexed {added} new memories; {len(entries)} in the cache for this checkout.")
        if embedded is not None:
            out(f"Embedded {embedded} new memories for semantic search.")


def _embed(ctx: Context, entries: list[Entry], quiet: bool) -> int | None:
    """Embed the memories that have no vector yet, when a model is configured (every core
    helps: nobody waits on `index` but its caller); None when there is no model."""
    import os

    from git_aide.app.semantic import Semantic

    sem = ctx.noticed(Semantic(ctx.repo, ctx.cache, threads=os.cpu_count() or 1))
    if not sem.ready():
        return None
    with progress("embedding memories", quiet=quiet) as bar:
        return sem.embed_entries(entries, budget=None, progress=bar)


@click.command()
@source_options
@json_option
def stats(cached: bool, rev: str | None, as_json: bool) -> None:
    """Count memories by layer, source and contributor, and how they were used on this machine."""
    import time

    from git_aide.app import stats as st
    from git_aide.render import output as render

    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        usage = st.usage_of(ctx.cache)
        warn(usage.warnings)
        doc = st.stats_doc(snap.entries, usage, time.time())
    if as_json:
        out(render.dumps({"source": snap.source.as_json(), **doc}))
    else:
        out(render.stats_text(doc), page=True)


@click.command(name="list")
@click.option("--layer", "layers", type=LAYER_CHOICE, multiple=True)
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable: "
              "all of them).")
@click.option("--contributor", help="Only memories by this contributor.")
@click.option("--scope", metavar="GLOB",
              help="Only memories scoped at or under this path or glob (project: the "
                   "project-wide ones).")
@click.option("--priority", type=click.Choice(["always", "normal"]),
              help="Only the always-on memories (always), or only the others (normal).")
@click.option("--by-agent", "by", flag_value="agent",
              help="Only the memories an agent wrote last (generated_by).")
@click.option("--by-person", "by", flag_value="person",
              help="Only the memories a person wrote last.")
@click.option("--generated-by", metavar="TOOL",
              help="Only the memories this agent wrote last (its name, as claude-code).")
@click.option("--never-seen", is_flag=True,
              help="Only the memories no agent was given on this machine (MCP, hooks).")
@click.option("--user", "mine", is_flag=True,
              help="Only your own store's memories (also outside a repository).")
@source_options
@json_option
def list_(layers: tuple[str, ...], tags: tuple[str, ...], contributor: str | None,
          scope: str | None, priority: str | None, by: str | None, generated_by: str | None,
          never_seen: bool, mine: bool,
          cached: bool, rev: str | None, as_json: bool) -> None:
    """List every memory of the source."""
    from git_aide.app.answers import list_hits
    from git_aide.app.queries import ListQuery

    if mine:
        if cached or rev is not None:
            raise UsageError("--user lists your own store, which has no --cached or --rev")
        if never_seen:
            raise UsageError("--never-seen counts what agents were given in a repository; "
                             "list without --user to see your store's memories among them")
        list_user(as_json, layers=layers, tags=tags, contributor=contributor, scope=scope,
                   priority=priority, by=by, generated_by=generated_by)
        return
    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev, users=True)
        warn(snap.warnings)
        hits = list_hits(snap, ListQuery(layers=layers, tags=tags, contributor=contributor,
                                         scope=scope, priority=priority, by=by,
                                         generated_by=generated_by))
        if never_seen:
            from git_aide.app import stats

            usage = stats.usage_of(ctx.cache)
            warn(usage.warnings)
            unseen = {e.uuid for e in stats.never_seen([h.entry for h in hits], usage)}
            hits = [h for h in hits if h.entry.uuid in unseen]
        render_hits(snap, hits, as_json, ranked=False)


@click.command()
@click.argument("ident", metavar="ID")
@source_options
@json_option
def show(ident: str, cached: bool, rev: str | None, as_json: bool) -> None:
    """Show one memory, whole."""
    from git_aide.app.store import find
    from git_aide.render import output as render

    opened = project(cached, rev)
    if opened is None:  # outside any repository: the user store's
        from git_aide.app import userstore

        warnings: list[str] = []
        snap, entries = None, userstore.entries(warnings)
        warn(warnings)
    else:
        with opened as ctx:
            snap = ctx.snapshot(cached, rev, users=True)
            warn(snap.warnings)
            entries = snap.entries
    e = find(entries, ident)
    if as_json:
        from git_aide.app.answers import show_doc

        out(render.dumps(show_doc(snap, e)))
    else:
        on_tty = tty()
        out(render.show_text(e.read_record(), e.path, tty=on_tty), raw=on_tty, page=True)


@click.command()
@click.argument("paths", nargs=-1)
@click.option("--fix", is_flag=True, help="Rewrite the scopes of moved memories (staged).")
@click.option("--strict", is_flag=True, help="Exit 1 when anything was found (for CI).")
@source_options
@json_option
def audit(paths: tuple[str, ...], fix: bool, strict: bool, cached: bool, rev: str | None,
          as_json: bool) -> None:
    """Find the memories the code left behind: orphaned, moved, duplicate, stale."""
    from git_aide.app import audit as au
    from git_aide.app.findings import summary as summed
    from git_aide.render import output as render

    if fix and (cached or rev is not None):
        raise UsageError("--fix rewrites files in the working tree; it cannot be used "
                         "with --cached or --rev")
    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        from git_aide.app.semantic import Semantic

        sem = ctx.noticed(Semantic(ctx.repo, ctx.cache))
        findings, audited = au.run(ctx.repo, snap, list(paths), sem)
        fixed = au.fixes(snap, findings) if fix else []
        if fixed:
            from git_aide.app import store

            for uuid, _old, scope in fixed:
                store.update(ctx.repo, ctx.cache, uuid, scope=scope)
    summary = summed(findings, audited)
    if as_json:
        doc: JSONObject = {"source": snap.source.as_json(), "summary": summary,
                               "findings": [f.as_json() for f in findings]}
        if fix:
            doc["fixed"] = [{"uuid": u, "from": a, "to": b} for u, a, b in fixed]
        out(render.dumps(doc))
    else:
        from git_aide.render.audit import audit_text

        out(audit_text(summary, findings, fixed), page=True)
    if strict and findings:
        from git_aide.render.audit import kinds_text

        n = len(findings)
        raise AideError(f"{n} finding{'s' if n > 1 else ''} ({kinds_text(summary['by_kind'])}); "
                        "see `git aide audit`")
