"""The cold commands (all but the hot ones of option_table.py): their click declarations, each
one function that parses, calls app/ (or agents/), renders. main.py adds them to the
group.

Each command imports what its own path needs inside its body, so that `--version`
does not pay for pygit2, whoosh or rich. Over 400 lines: one short function per
command, each with its click options, read together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from git_aide.cli.commands import Opened, out, progress, render_hits, tty, warn
from git_aide.cli.config import config
from git_aide.core.errors import AideError, UsageError

F = TypeVar("F", bound=Callable[..., Any])
LAYER_CHOICE = click.Choice(["area_context", "technical", "preferences", "guidelines"])
SOURCE_CHOICE = click.Choice(["conversation", "import", "agent_discovery", "elevated", "hook"])


def source_options(f: F) -> F:
    """--cached/--staged and --rev REV."""
    f = click.option("--rev", metavar="REV", help="Read the tree of this commit-ish.")(f)
    f = click.option("--cached", "--staged", "cached", is_flag=True,
                     help="Read the staged blobs (the index).")(f)
    return f


def json_option(f: F) -> F:
    """--json."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(f)



@click.command()
@click.option("--agent", "agents", multiple=True,
              type=click.Choice(["claude", "codex", "copilot", "cursor", "gemini", "vscode"]),
              help="Also register the MCP server and hooks in this agent's project settings "
                   "(repeatable).")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks.")
@click.option("--dry-run", "-n", is_flag=True,
              help="With --agent: print what would change in the agents' files.")
@click.option("--uninstall", is_flag=True,
              help="Remove the merge driver config and the hook blocks; keep the memories. "
                   "With --agent: remove only git-aide's entries from that agent's files.")
def init(agents: tuple[str, ...], no_hooks: bool, dry_run: bool, uninstall: bool) -> None:
    """Set this repository up for git-aide (idempotent)."""
    from git_aide.gitio.repo import open_repo

    if dry_run and not agents:
        raise UsageError("--dry-run goes with --agent")
    repo = open_repo()
    if agents:
        from git_aide.agents.setup import config, probe

        top = repo.require_worktree("init --agent")
        changes = [c for a in dict.fromkeys(agents)
                   for c in config.plan(top, a, install=not uninstall)]
        if dry_run:
            diffs = [c.diff() for c in changes if c.changed]
            out("".join(diffs).rstrip("\n") if diffs else "nothing would change.")
            return
        done = [] if uninstall else _init_repo(repo, no_hooks)
        config.apply(top, changes)
        # a set-up whose server cannot start is not called done
        notes, problem = ([], None) if uninstall else probe.check(top, list(agents))
        out("\n".join(done + [c.line() for c in changes] + notes))
        if problem:
            raise AideError(problem)
        return
    if uninstall:
        from git_aide.app.install import uninstall as do_uninstall

        done = do_uninstall(repo)
        out("\n".join(done) if done else "git-aide is not installed here; nothing changed.")
        return
    done = _init_repo(repo, no_hooks)
    out("\n".join(done) if done else "git-aide is already set up here; nothing changed.")


def _init_repo(repo: Any, no_hooks: bool) -> list[str]:
    from git_aide.app.install import ignore_problem
    from git_aide.app.install import init as do_init

    done = do_init(repo, with_hooks=not no_hooks)
    hidden = ignore_problem(repo)
    if hidden is not None:
        warn([f"{hidden[0]}; fix: {hidden[1]}"])
    return done


@click.command()
@click.argument("what")
@click.option("--why", help="The reason or the source.")
@click.option("--layer", type=LAYER_CHOICE, help="Default: technical.")
@click.option("--scope", metavar="GLOB", help="Where it applies (default: project-wide).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--label", help="A short human label.")
@click.option("--personal", is_flag=True, help="A private preference: never staged.")
@click.option("--user", "mine", is_flag=True,
              help="In your own store, recalled in every repository (committed there, never "
                   "here; default layer: preferences).")
@click.option("--priority", type=click.Choice(["always", "normal"]), default="normal")
@click.option("--source", type=SOURCE_CHOICE, default="conversation")
@click.option("--contributor", help="Who it came from (default: git's user.name).")
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@click.option("--force", is_flag=True, help="Keep text that looks pasted (a trace, a diff).")
@click.option("--merge", is_flag=True, help="Update a near duplicate instead.")
@json_option
def remember(what: str, why: str | None, layer: str | None, scope: str | None,
             tags: tuple[str, ...], label: str | None, personal: bool, mine: bool,
             priority: str, source: str, contributor: str | None, no_stage: bool,
             force: bool, merge: bool, as_json: bool) -> None:
    """Store a memory in the working tree and stage it."""
    from git_aide.agents.rules.afterwrite import after_write, shared
    from git_aide.app import store

    if mine:
        if merge:
            raise UsageError("--merge updates a near duplicate in the repository; your user "
                             "store warns of one instead")
        _remember_user(what, why=why, layer=layer, scope=scope, tags=list(tags), label=label,
                       personal=personal, priority=priority, source=source,
                       contributor=contributor, force=force, as_json=as_json)
        return
    with Opened() as ctx:
        w = store.remember(ctx.repo, ctx.cache, what, why=why, layer=layer, scope=scope,
                           tags=list(tags), label=label, personal=personal,
                           priority=priority, source=source, contributor=contributor,
                           stage=not no_stage, force=force, merge=merge)
        then = after_write(ctx.repo, ctx.cache, "remember", "cli", [w.uuid],
                           stage=not no_stage,
                           changed=(w.created or w.merged is not None) and shared(w.record))
    warn(w.warnings + then.warnings)
    if as_json:
        from git_aide.app.answers import remember_doc
        from git_aide.render.output import dumps

        out(dumps(_with_exported(remember_doc(w), then.exported)))
        return
    if w.merged is not None:
        staged = "staged" if w.staged else "not staged"
        short = w.uuid[:8]
        out("\n".join([f"Merged into {short}, a near duplicate ({w.merged.said()}), in "
                       f"{w.path} ({staged}): it now says this; `git aide log --uuid {short}` "
                       "shows what it said.", *then.lines]))
        return
    if not w.created:
        out(f"Already remembered as {w.uuid[:8]} ({w.path}).")
        return
    staged = "staged" if w.staged else "not staged"
    out("\n".join([f"Remembered {w.uuid[:8]} in {w.path} ({staged}).", *then.lines]))


def _with_exported(doc: dict[str, Any], exported: list[dict[str, Any]]) -> dict[str, Any]:
    """A write's --json document, with the rules files aide.export.auto refreshed."""
    return {**doc, "exported": exported} if exported else doc


def _remember_user(what: str, *, personal: bool, as_json: bool, **given: Any) -> None:
    """`remember --user`: into the user's own store (no repository needed)."""
    from git_aide.app import userstore

    if personal:
        raise UsageError("--user and --personal go apart: a --user memory is yours in every "
                         "repository, a --personal one in this one")
    w = userstore.remember(what, **given)
    _wrote_user(w, "Remembered" if w.created else "Already remembered as", as_json)


def _wrote_user(w: Any, verb: str, as_json: bool) -> None:
    """What a write to the user store says: its warnings, and what it wrote where."""
    warn(w.warnings)
    if as_json:
        from git_aide.app.answers import remember_doc, update_doc
        from git_aide.render.output import dumps

        out(dumps(update_doc(w) if verb == "Updated" else remember_doc(w)))
        return
    done = "committed" if w.committed else "not committed"
    out(f"{verb} {w.uuid[:8]} in your user store ({w.path}, {done}).")


def _project(cached: bool = False, rev: str | None = None) -> Opened | None:
    """The command's repository, or None outside any (the user store's commands then
    work on it alone; reading --cached or --rev needs a repository)."""
    from git_aide.core.errors import GitError

    try:
        return Opened(cached=cached, rev=rev)
    except GitError:
        if cached or rev is not None:
            raise
        return None


@click.command()
@click.option("--rebuild", is_flag=True, help="Throw the cache away and build it anew.")
@click.option("--quiet", is_flag=True, help="Print nothing (for hooks).")
def index(rebuild: bool, quiet: bool) -> None:
    """Bring the cache up to date (the working tree, the index and HEAD)."""
    import shutil

    from git_aide.app import search as sr

    with Opened() as ctx:
        if rebuild:
            shutil.rmtree(ctx.cache.root, ignore_errors=True)
            ctx.new_cache()
        sources: list[tuple[bool, str | None]] = [(False, "HEAD")]
        if ctx.repo.worktree is not None:
            sources = [(False, None), (True, None), *sources]
        entries: dict[str, Any] = {}
        for cached, rev in sources:
            try:
                # Only the working tree's view is worth keeping: recall reads it next.
                snap = ctx.snapshot(cached, rev, save_view=not cached and rev is None)
            except AideError:
                continue  # no HEAD yet, say
            for e in snap.entries:
                entries.setdefault(e.blob, e)
        with progress("indexing memories", quiet=quiet) as bar:
            added = sr.ensure_indexed(ctx.index(), list(entries.values()), bar)
        embedded = _embed(ctx, list(entries.values()), quiet)
    if not quiet:
        out(f"Indexed {added} new memories; {len(entries)} in the cache for this checkout.")
        if embedded is not None:
            out(f"Embedded {embedded} new memories for semantic search.")


def _embed(ctx: Any, entries: list[Any], quiet: bool) -> int | None:
    """With a model configured, embed the memories that have no vector yet (every core
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
    """Memories by layer, source and contributor; how they were used on this machine."""
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
    """Every memory of the source."""
    from git_aide.app.answers import list_hits

    if mine:
        if cached or rev is not None:
            raise UsageError("--user lists your own store, which has no --cached or --rev")
        if never_seen:
            raise UsageError("--never-seen counts what agents were given in a repository; "
                             "list without --user to see your store's memories among them")
        _list_user(as_json, layers=layers, tags=tags, contributor=contributor, scope=scope,
                   priority=priority, by=by, generated_by=generated_by)
        return
    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev, users=True)
        warn(snap.warnings)
        hits = list_hits(snap, layers=layers, tags=tags, contributor=contributor,
                         scope=scope, priority=priority, by=by, generated_by=generated_by)
        if never_seen:
            from git_aide.app import stats

            usage = stats.usage_of(ctx.cache)
            warn(usage.warnings)
            unseen = {e.uuid for e in stats.never_seen([h.entry for h in hits], usage)}
            hits = [h for h in hits if h.entry.uuid in unseen]
        render_hits(snap, hits, as_json, ranked=False)


def _list_user(as_json: bool, **given: Any) -> None:
    """`list --user`: the user store's memories alone."""
    from git_aide.app import userstore
    from git_aide.render import output as render

    warnings: list[str] = []
    hits = userstore.listing(warnings, **given)
    warn(warnings)
    if as_json:
        out(render.dumps(userstore.list_doc(hits)))
    else:
        on_tty = tty()
        out(render.memories_text(hits, tty=on_tty, empty="No memories in your user store."),
            raw=on_tty, page=True)


@click.command()
@click.argument("ident", metavar="ID")
@source_options
@json_option
def show(ident: str, cached: bool, rev: str | None, as_json: bool) -> None:
    """One memory, whole."""
    from git_aide.app.store import find
    from git_aide.render import output as render

    opened = _project(cached, rev)
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
        out(render.show_text(e.record, e.path, tty=on_tty), raw=on_tty, page=True)


@click.command()
@click.argument("ident", metavar="ID")
@click.option("--what", help="New text.")
@click.option("--why", help="New reason ('' clears it).")
@click.option("--scope", metavar="GLOB", help="New scope ('' or 'project': project-wide).")
@click.option("--tag", "add_tags", multiple=True, help="Add a tag (repeatable).")
@click.option("--untag", "remove_tags", multiple=True, help="Remove a tag (repeatable).")
@click.option("--label", help="New label ('' clears it).")
@click.option("--layer", type=LAYER_CHOICE, help="Move to another layer.")
@click.option("--priority", type=click.Choice(["always", "normal"]),
              help="always: given to every session once (always-on); normal: by scope.")
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@click.option("--force", is_flag=True, help="Keep text that looks pasted (a trace, a diff).")
@json_option
def update(ident: str, what: str | None, why: str | None, scope: str | None,
           add_tags: tuple[str, ...], remove_tags: tuple[str, ...], label: str | None,
           layer: str | None, priority: str | None, no_stage: bool, force: bool,
           as_json: bool) -> None:
    """Change a memory (and stage the change)."""
    from git_aide.app import store

    if all(x is None for x in (what, why, scope, label, layer, priority)) and not (
            add_tags or remove_tags):
        raise UsageError("nothing to change: give --what, --why, --scope, --tag, --untag, "
                         "--label, --layer or --priority")
    from git_aide.agents.rules.afterwrite import after_write, shared
    from git_aide.app import userstore

    changes: dict[str, Any] = dict(
        what=what, why=why, scope=scope, add_tags=list(add_tags),
        remove_tags=list(remove_tags), label=label, layer=layer, priority=priority,
        generated_by=None, force=force)  # a person's change: no agent's mark
    opened = _project()
    if opened is None:  # outside any repository: the user store's
        _wrote_user(userstore.update(ident, **changes), "Updated", as_json)
        return
    with opened as ctx:
        mine = userstore.claimed(lambda: _uuids(ctx), [ident])
        if mine:
            _wrote_user(userstore.update(mine[ident], **changes), "Updated", as_json)
            return
        w = store.update(ctx.repo, ctx.cache, ident, stage=not no_stage, **changes)
        then = after_write(ctx.repo, ctx.cache, "update", "cli", [w.uuid],
                           stage=not no_stage, changed=shared(w.record))
    warn(w.warnings + then.warnings)
    if as_json:
        from git_aide.app.answers import update_doc
        from git_aide.render.output import dumps

        out(dumps(_with_exported(update_doc(w), then.exported)))
    else:
        out("\n".join([f"Updated {w.uuid[:8]} in {w.path} "
                       f"({'staged' if w.staged else 'not staged'}).", *then.lines]))


@click.command()
@click.argument("idents", metavar="ID...", nargs=-1, required=True)
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@json_option
def forget(idents: tuple[str, ...], no_stage: bool, as_json: bool) -> None:
    """Delete memories (and stage the removals)."""
    from git_aide.agents.rules.afterwrite import Followed, after_write
    from git_aide.app import store, userstore

    opened = _project()
    mine: dict[str, str] = {}
    gone: list[str] = []
    warnings: list[str] = []
    staged, committed = False, None
    then = Followed()
    if opened is None:  # outside any repository: the user store's
        mine = {i: i for i in idents}
    else:
        with opened as ctx:
            mine = userstore.claimed(lambda: _uuids(ctx), idents)
            theirs = [i for i in idents if i not in mine]
            if theirs:
                gone, staged, warnings = store.forget(ctx.repo, ctx.cache, theirs,
                                                      stage=not no_stage)
                then = after_write(ctx.repo, ctx.cache, "forget", "cli", gone,
                                   stage=not no_stage)
    if mine:
        yours, committed, more = userstore.forget(list(mine.values()))
        gone, warnings = gone + yours, warnings + more
    warn(warnings + then.warnings)
    if as_json:
        from git_aide.app.answers import forget_doc
        from git_aide.render.output import dumps

        out(dumps(_with_exported(forget_doc(gone, staged, committed), then.exported)))
    else:
        out("\n".join([*(f"Forgot {u[:8]}." for u in gone), *then.lines]))


def _uuids(ctx: Any) -> list[str]:
    """The uuids of the working tree's memories (not the user store's)."""
    return [e.uuid for e in ctx.snapshot().entries]


@click.command(name="merge-driver")
@click.argument("base")
@click.argument("ours")
@click.argument("theirs")
@click.argument("marker_size", required=False)
@click.argument("path", required=False)
def merge_driver(base: str, ours: str, theirs: str, marker_size: str | None,
                 path: str | None) -> None:
    """Git's merge driver for memories (git runs it; see `init`)."""
    # `git-aide merge-driver` never gets here: __main__ dispatches it before click is
    # imported. This keeps it listed in the help and callable through `run()`.
    from git_aide.drivers.merge import run_driver

    args = [base, ours, theirs] + [a for a in (marker_size, path) if a is not None]
    raise click.exceptions.Exit(run_driver(args))


@click.command()
@click.option("--dry-run", "-n", is_flag=True, help="Say what would be done; change nothing.")
def resolve(dry_run: bool) -> None:
    """Settle the unmerged memories left by a merge, rebase or cherry-pick."""
    from git_aide.app.resolve import resolve as do_resolve
    from git_aide.gitio.repo import open_repo

    outcome = do_resolve(open_repo(), dry_run=dry_run)
    if outcome.lines:
        out("\n".join(outcome.lines))
    if outcome.left:
        raise AideError(f"{outcome.left} memory path(s) left unmerged; fix them by hand, "
                        "then `git add` them")


@click.command()
@click.option("--staged", "--cached", "staged", is_flag=True,
              help="Check the index (what the next commit will contain).")
@click.option("--rev", metavar="REV", help="Check the tree of this commit-ish.")
@click.option("--all", "all_", is_flag=True, help="Check the working tree and the index.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
@json_option
def validate(staged: bool, rev: str | None, all_: bool, quiet: bool, as_json: bool) -> None:
    """Check the memory files; exit 1 if anything is wrong."""
    from git_aide.app.validate import validate as do_validate
    from git_aide.gitio.repo import open_repo

    if sum((staged, rev is not None, all_)) > 1:
        raise UsageError("give at most one of --staged, --rev and --all")
    kind = "index" if staged else "rev" if rev is not None else "all" if all_ else "worktree"
    report = do_validate(open_repo(), kind, rev)
    warn([w.line() for w in report.warnings])
    if as_json:
        import orjson

        out(orjson.dumps(report.as_json()).decode())
    elif report.problems:
        out("\n".join(p.line() for p in report.problems))
    elif not quiet:
        out(f"{report.files} memory file(s) in {report.what}: no problems.")
    if not report.ok:
        n = len(report.problems)
        raise AideError(f"{n} problem{'s' if n > 1 else ''} in the memories of {report.what}")


@click.command()
@json_option
def doctor(as_json: bool) -> None:
    """What is missing or broken here, and the command that fixes it."""
    from git_aide.agents.setup import doctor as agent_checks
    from git_aide.app.doctor import diagnose
    from git_aide.gitio.repo import open_repo

    repo = open_repo()
    findings = diagnose(repo) + agent_checks.findings(repo)
    bad = [f for f in findings if not f.ok]
    if as_json:
        import orjson

        out(orjson.dumps({"ok": not bad, "checks": [f.as_json() for f in findings]}).decode())
    else:
        out("\n".join(f.line() for f in findings))
    if bad:
        raise AideError(f"{len(bad)} problem{'s' if len(bad) > 1 else ''} found")


@click.command()
@click.argument("paths", nargs=-1)
@click.option("--fix", is_flag=True, help="Rewrite the scopes of moved memories (staged).")
@click.option("--strict", is_flag=True, help="Exit 1 when anything was found (for CI).")
@source_options
@json_option
def audit(paths: tuple[str, ...], fix: bool, strict: bool, cached: bool, rev: str | None,
          as_json: bool) -> None:
    """Memories the code left behind: orphaned, moved, duplicate, stale."""
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
        doc: dict[str, Any] = {"source": snap.source.as_json(), "summary": summary,
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


@click.command()
@click.argument("file")
def textconv(file: str) -> None:
    """A memory file as readable lines (git runs it for `git diff`; see `init`)."""
    # `git-aide textconv` never gets here: __main__ dispatches it before click is
    # imported. This keeps it listed in the help and callable through `run()`.
    from git_aide.drivers.textconv import main as textconv_main

    raise click.exceptions.Exit(textconv_main([file]))


@click.command(name="import")
@click.argument("files", metavar="[FILE]...", nargs=-1)
@click.option("--layer", type=LAYER_CHOICE, help="Default: from the file (see the man page).")
@click.option("--scope", metavar="GLOB", help="Where the rules apply (default: from the file).")
@click.option("--dry-run", "-n", is_flag=True, help="Say what would be imported; write nothing.")
@json_option
def import_(files: tuple[str, ...], layer: str | None, scope: str | None, dry_run: bool,
            as_json: bool) -> None:
    """Turn rules files (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc...; none: all of them)
    into memories."""
    from git_aide.agents.rules import importer as rules

    refreshed: list[str] = []
    with Opened() as ctx:
        doc = rules.import_doc(ctx.repo, ctx.cache, list(files), layer=layer, scope=scope,
                               dry_run=dry_run)
        if not dry_run:
            from git_aide.agents.rules.afterwrite import after_write

            made = [m["uuid"] for m in doc["imported"] if m.get("uuid")]
            then = after_write(ctx.repo, ctx.cache, "remember", "cli", made,
                               changed=bool(made))
            doc["warnings"] += then.warnings
            refreshed = then.lines
            if then.exported:
                doc["exported"] = then.exported
    warn(doc["warnings"])
    refused = [s for s in doc["skipped"] if s["reason"] not in ("exists", "repeated")]
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
    else:
        lines = [f"{'would import' if dry_run else 'imported'} {m['why']}: "
                 f"{_one_line(m['what'])}" for m in doc["imported"]]
        out("\n".join([*lines, doc["summary"], *refreshed]))
    warn([f"{s['where']}: not imported: {s['message']}" for s in refused])
    if refused:
        n = len(refused)
        raise AideError(f"{n} item{'s' if n > 1 else ''} refused (named above); "
                        "the rest were imported" if not dry_run else
                        f"{n} item{'s' if n > 1 else ''} would be refused (named above)")


def _one_line(text: str, width: int = 70) -> str:
    first = text.strip().split("\n")[0]
    return first if len(first) <= width else first[: width - 3] + "..."


@click.command()
@click.option("--agent", "agents", multiple=True,
              type=click.Choice(["claude", "codex", "cursor", "gemini", "copilot", "windsurf"]),
              help="Write this agent's rules files (repeatable; default: the agents "
                   "exported to already).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file is out of date.")
@click.option("--staged", "--cached", "staged", is_flag=True,
              help="With --check: compare the staged files with the staged memories "
                   "(the pre-commit hook's check).")
@click.option("--max-chars", type=click.IntRange(min=1), metavar="N",
              help="Keep the always-on block within N characters "
                   "(default: aide.export.maxChars).")
def export(agents: tuple[str, ...], check: bool, staged: bool, max_chars: int | None) -> None:
    """Write the memories into agents' rules files (a marked block, glob-scoped rules)."""
    from git_aide.agents.rules import export as ex

    if staged and not check:
        raise UsageError("--staged goes with --check")
    with Opened() as ctx:
        top = ctx.repo.require_worktree("export")
        chosen = list(dict.fromkeys(agents)) or ex.exported_agents(top)
        if not chosen:
            if check:
                out("No rules file holds a git-aide block; nothing to check.")
                return
            raise UsageError("no rules file holds a git-aide block yet: name the agents "
                             "to export for (--agent claude, ...)")
        cap = ex.max_chars_of(ctx.repo, max_chars)
        notes: list[str] = []
        if staged:
            from git_aide.agents.rules.exportsync import stale_staged

            done = stale_staged(ctx.repo, ctx.cache, chosen, cap)
        else:
            done, notes = ex.export(ctx.repo, ctx.cache, chosen, check=check, max_chars=cap)
    warn(notes)
    if check:
        bad = [(p, s) for p, s in done if s != "unchanged"]
        if bad:
            if not staged:  # the hook's refusal is its one line, which names the files
                out("\n".join(f"{p}: {s}" for p, s in bad))
            n = len(bad)
            again = "git aide export" + "".join(f" --agent {a}" for a in agents)
            if staged:
                raise AideError(
                    f"{n} rules file{'s' if n > 1 else ''} out of date with the staged "
                    f"memories; run `{again}` and stage "
                    f"{'them' if n > 1 else 'it'} (git add {' '.join(p for p, _s in bad)})")
            raise AideError(f"{n} file{'s' if n > 1 else ''} out of date; run `{again}`")
        return
    changed = [f"{s} {p}" for p, s in done if s != "unchanged"]
    out("\n".join(changed) if changed else "The rules files are up to date; nothing changed.")


@click.command()
def mcp() -> None:
    """Serve the memories to an agent over MCP on stdio (agents start it themselves)."""
    from git_aide.agents import serve

    raise click.exceptions.Exit(serve())


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("event", metavar="EVENT")
@click.option("--agent", type=click.Choice(["claude", "codex", "copilot", "cursor", "gemini",
                                           "vscode"]),
              default="claude", help="The agent whose hook protocol to speak.")
def hook(event: str, agent: str) -> None:
    """Run by an agent's hooks: read its event on stdin, print context for it."""
    # `git-aide hook ...` never gets here: __main__ runs it before click is imported.
    from git_aide.agents.hooks.events import main as events_main

    raise click.exceptions.Exit(events_main([event, "--agent", agent]))


#: The cold commands, for the group (main.py).
COLD: list[click.Command] = [init, remember, index, stats, list_, show, update, forget,
                             merge_driver, resolve, validate, doctor, audit, textconv,
                             import_, export, mcp, hook, config]
