"""The command line: parse arguments, call one function, render. Nothing else.

Each command imports what its own path needs inside its body, so that `--version`
and a warm `recall` do not pay for pygit2, whoosh or rich.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from git_aide import __version__
from git_aide.errors import AideError, UsageError

F = TypeVar("F", bound=Callable[..., Any])
LAYER_CHOICE = click.Choice(["area_context", "technical", "preferences", "guidelines"])
SOURCE_CHOICE = click.Choice(["conversation", "import", "agent_discovery", "elevated", "hook"])


def _tty() -> bool:
    return sys.stdout.isatty()


def _out(text: str) -> None:
    click.echo(text)


def _warn(lines: list[str]) -> None:
    for line in lines:
        click.echo(f"git-aide: warning: {line}", err=True)


def _context() -> tuple[Any, Any]:
    from git_aide.cache import Cache
    from git_aide.repo import open_repo

    repo = open_repo()
    return repo, Cache(repo.cache_dir)


def _source(cached: bool, rev: str | None) -> tuple[str, str | None]:
    if cached and rev is not None:
        raise UsageError("--cached and --rev cannot be used together")
    if rev is not None:
        return "rev", rev
    return ("index", None) if cached else ("worktree", None)


def source_options(f: F) -> F:
    """--cached/--staged and --rev REV."""
    f = click.option("--rev", metavar="REV", help="Read the tree of this commit-ish.")(f)
    f = click.option("--cached", "--staged", "cached", is_flag=True,
                     help="Read the staged blobs (the index).")(f)
    return f


def json_option(f: F) -> F:
    """--json."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(f)


def _load(cached: bool, rev: str | None) -> tuple[Any, Any, Any]:
    from git_aide.sources import load

    kind, rev = _source(cached, rev)
    repo, cache = _context()
    snap = load(repo, cache, kind, rev)
    _warn(snap.warnings)
    _warn(cache.notices)
    return repo, cache, snap


class AideGroup(click.Group):
    """A group whose --help opens the man page, as `git aide --help` does."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        """-h prints usage; --help opens the man page."""
        def show_man(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
            if value and not ctx.resilient_parsing:
                _show_man(ctx)
                ctx.exit()

        return click.Option(["--help"], is_flag=True, expose_value=False, is_eager=True,
                            callback=show_man, help="Show the manual page.")


def _show_man(ctx: click.Context) -> None:
    import shutil
    import subprocess

    page = _man_page()
    if page and shutil.which("man") and sys.stdout.isatty():
        subprocess.call(["man", "-l", page])
    elif page:
        click.echo(open(page, encoding="utf-8").read())
    else:
        click.echo(ctx.get_help())


def _man_page() -> str | None:
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (
        os.path.join(sys.prefix, "share", "man", "man1", "git-aide.1"),
        os.path.join(os.path.dirname(here), "man", "git-aide.1"),
    ):
        if os.path.exists(candidate):
            return candidate
    return None


@click.group(cls=AideGroup, context_settings={"help_option_names": ["-h"]})
@click.version_option(__version__, "--version", prog_name="git-aide",
                      message="git-aide version %(version)s")
def main() -> None:
    """git-aide: a git-native memory for AI coding agents and the people beside them."""


@main.command()
@click.option("--agent", type=click.Choice(["claude"]), help="Also write notes for this agent.")
@click.option("--no-hooks", is_flag=True, help="Do not install the git hooks.")
def init(agent: str | None, no_hooks: bool) -> None:
    """Set this repository up for git-aide (idempotent)."""
    from git_aide.install import init as do_init
    from git_aide.repo import open_repo

    done = do_init(open_repo(), agent=agent)
    _out("\n".join(done) if done else "git-aide is already set up here; nothing changed.")


@main.command()
@click.argument("what")
@click.option("--why", help="The reason or the source.")
@click.option("--layer", type=LAYER_CHOICE, help="Default: technical.")
@click.option("--scope", metavar="GLOB", help="Where it applies (default: project-wide).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--label", help="A short human label.")
@click.option("--personal", is_flag=True, help="A private preference: never staged.")
@click.option("--priority", type=click.Choice(["always", "normal"]), default="normal")
@click.option("--source", type=SOURCE_CHOICE, default="conversation")
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@json_option
def remember(what: str, why: str | None, layer: str | None, scope: str | None,
             tags: tuple[str, ...], label: str | None, personal: bool, priority: str,
             source: str, no_stage: bool, as_json: bool) -> None:
    """Store a memory in the working tree and stage it."""
    from git_aide import store

    repo, cache = _context()
    w = store.remember(repo, cache, what, why=why, layer=layer, scope=scope, tags=list(tags),
                       label=label, personal=personal, priority=priority, source=source,
                       stage=not no_stage)
    _warn(w.warnings)
    if as_json:
        from git_aide.render import dumps

        _out(dumps({"uuid": w.uuid, "path": w.path, "created": w.created, "staged": w.staged,
                    "warnings": w.warnings}))
        return
    if not w.created:
        _out(f"Already remembered as {w.uuid[:8]} ({w.path}).")
        return
    staged = "staged" if w.staged else "not staged"
    _out(f"Remembered {w.uuid[:8]} in {w.path} ({staged}).")


def _filters(layers: tuple[str, ...], tags: tuple[str, ...], contributor: str | None) -> Any:
    from git_aide.recall import Filters

    return Filters(layers=layers, tags=tags, contributor=contributor)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--query", "-q", help="Re-rank by relevance to these words.")
@click.option("--layer", "layers", type=LAYER_CHOICE, multiple=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--contributor")
@click.option("--limit", type=click.IntRange(min=0), help="Default: aide.recall.limit or 20.")
@source_options
@json_option
def recall(paths: tuple[str, ...], query: str | None, layers: tuple[str, ...],
           tags: tuple[str, ...], contributor: str | None, limit: int | None, cached: bool,
           rev: str | None, as_json: bool) -> None:
    """What should I know before I touch these paths?"""
    from git_aide import memory
    from git_aide import recall as rc

    repo, cache, snap = _load(cached, rev)
    queries = rc.query_paths(repo.worktree, repo.prefix, paths)
    hits = rc.recall(
        snap.entries, queries, _filters(layers, tags, contributor), query=query,
        limit=limit if limit is not None else repo.config_int("aide.recall.limit", 20),
        min_depth=repo.config_int("aide.recall.minScopeDepth", 1),
        diversity_min=repo.config_int("aide.recall.layerDiversityMinLimit", 5),
    )
    cache.count_recall([h.entry.record["uuid"] for h in hits], memory.now())
    _render_hits(snap, hits, as_json)


def _render_hits(snap: Any, hits: list[Any], as_json: bool) -> None:
    from git_aide import render

    if as_json:
        _out(render.memories_doc(snap.source, hits))
    else:
        _out(render.memories_text(hits, tty=_tty()))


@main.command(name="list")
@click.option("--layer", "layers", type=LAYER_CHOICE, multiple=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--contributor")
@source_options
@json_option
def list_(layers: tuple[str, ...], tags: tuple[str, ...], contributor: str | None,
          cached: bool, rev: str | None, as_json: bool) -> None:
    """Every memory of the source."""
    from git_aide import recall as rc

    _repo, _cache, snap = _load(cached, rev)
    _render_hits(snap, rc.listing(snap.entries, _filters(layers, tags, contributor)), as_json)


@main.command()
@click.argument("ident", metavar="ID")
@source_options
@json_option
def show(ident: str, cached: bool, rev: str | None, as_json: bool) -> None:
    """One memory, whole."""
    from git_aide import render
    from git_aide.store import find

    _repo, _cache, snap = _load(cached, rev)
    e = find(snap.entries, ident)
    if as_json:
        doc = dict(e.record)
        doc["path"] = e.path
        _out(render.dumps({"source": snap.source.as_json(), "memory": doc}))
    else:
        _out(render.show_text(e.record, e.path, tty=_tty()))


@main.command()
@click.argument("ident", metavar="ID")
@click.option("--what", help="New text.")
@click.option("--why", help="New reason ('' clears it).")
@click.option("--scope", metavar="GLOB", help="New scope ('' or 'project': project-wide).")
@click.option("--tag", "add_tags", multiple=True, help="Add a tag (repeatable).")
@click.option("--untag", "remove_tags", multiple=True, help="Remove a tag (repeatable).")
@click.option("--label", help="New label ('' clears it).")
@click.option("--layer", type=LAYER_CHOICE, help="Move to another layer.")
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@json_option
def update(ident: str, what: str | None, why: str | None, scope: str | None,
           add_tags: tuple[str, ...], remove_tags: tuple[str, ...], label: str | None,
           layer: str | None, no_stage: bool, as_json: bool) -> None:
    """Change a memory (and stage the change)."""
    from git_aide import store

    if all(x is None for x in (what, why, scope, label, layer)) and not (add_tags or remove_tags):
        raise UsageError("nothing to change: give --what, --why, --scope, --tag, --untag, "
                         "--label or --layer")
    repo, cache = _context()
    w = store.update(repo, cache, ident, what=what, why=why, scope=scope,
                     add_tags=list(add_tags), remove_tags=list(remove_tags), label=label,
                     layer=layer, stage=not no_stage)
    _warn(w.warnings)
    if as_json:
        from git_aide.render import dumps

        _out(dumps({"uuid": w.uuid, "path": w.path, "staged": w.staged}))
    else:
        _out(f"Updated {w.uuid[:8]} in {w.path} ({'staged' if w.staged else 'not staged'}).")


@main.command()
@click.argument("idents", metavar="ID...", nargs=-1, required=True)
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@json_option
def forget(idents: tuple[str, ...], no_stage: bool, as_json: bool) -> None:
    """Delete memories (and stage the removals)."""
    from git_aide import store

    repo, cache = _context()
    gone, staged, warnings = store.forget(repo, cache, list(idents), stage=not no_stage)
    _warn(warnings)
    if as_json:
        from git_aide.render import dumps

        _out(dumps({"forgotten": gone, "staged": staged}))
    else:
        _out("\n".join(f"Forgot {u[:8]}." for u in gone))


def run(argv: list[str] | None = None) -> int:
    """Run the command line; every error becomes one line and an exit status."""
    try:
        rv = main.main(args=argv, prog_name="git aide", standalone_mode=False)
    except AideError as e:
        click.echo(f"git-aide: error: {e}", err=True)
        return e.code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("git-aide: error: aborted", err=True)
        return 1
    except click.UsageError as e:
        hint = f" (see 'git aide {e.ctx.command_path.split()[-1]} -h')" if e.ctx and \
            e.ctx.command_path.split()[-1] != "aide" else " (see 'git aide -h')"
        click.echo(f"git-aide: error: {e.format_message()}{hint}", err=True)
        return 2
    except click.ClickException as e:
        click.echo(f"git-aide: error: {e.format_message()}", err=True)
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug: still one line, the traceback only on request
        if os.environ.get("GIT_AIDE_DEBUG"):
            raise
        click.echo(f"git-aide: error: internal error: {type(e).__name__}: {e} "
                   "(set GIT_AIDE_DEBUG=1 for the traceback)", err=True)
        return 1
    return rv if isinstance(rv, int) else 0
