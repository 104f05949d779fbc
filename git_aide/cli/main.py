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
from git_aide.cli import commands
from git_aide.cli.commands import Opened, out, progress, render_hits, tty, warn
from git_aide.cli.hot import COMMANDS as HOT
from git_aide.cli.hot import Hot
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


class AideGroup(click.Group):
    """A group whose `-h` prints usage and whose `--help` opens the man page, as git does."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        """Usage for -h only; --help is the man page (see get_params)."""
        opt = super().get_help_option(ctx)
        if opt is not None:
            opt.opts, opt.secondary_opts = ["-h"], []
        return opt

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """The group's parameters plus --help, which shows the man page."""
        def show_man(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
            if value and not ctx.resilient_parsing:
                _show_man(ctx)
                ctx.exit()

        man = click.Option(["--help", "show_man"], is_flag=True, expose_value=False, is_eager=True,
                           callback=show_man, help="Show the manual page.")
        return [*super().get_params(ctx), man]


def _show_man(ctx: click.Context) -> None:
    import shutil
    import subprocess

    page = _man_page()
    if page and shutil.which("man"):
        subprocess.call(["man", "-l", page])
    elif page:
        click.echo(open(page, encoding="utf-8").read())
    else:
        click.echo(ctx.get_help())


def _man_page() -> str | None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # git_aide/
    for candidate in (
        os.path.join(sys.prefix, "share", "man", "man1", "git-aide.1"),
        os.path.join(os.path.dirname(here), "man", "git-aide.1"),
    ):
        if os.path.exists(candidate):
            return candidate
    return None


@click.group(cls=AideGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="git-aide",
                      message="git-aide version %(version)s")
def main() -> None:
    """git-aide: a git-native memory for AI coding agents and the people beside them."""


@main.command()
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
        from git_aide.agents import config

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
        notes, problem = ([], None) if uninstall else config.check(top, list(agents))
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
    from git_aide.app.install import init as do_init

    return do_init(repo, with_hooks=not no_hooks)


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
    from git_aide.app import store

    with Opened() as ctx:
        w = store.remember(ctx.repo, ctx.cache, what, why=why, layer=layer, scope=scope,
                           tags=list(tags), label=label, personal=personal,
                           priority=priority, source=source, stage=not no_stage)
    warn(w.warnings)
    if as_json:
        from git_aide.app.answers import remember_doc
        from git_aide.render.output import dumps

        out(dumps(remember_doc(w)))
        return
    if not w.created:
        out(f"Already remembered as {w.uuid[:8]} ({w.path}).")
        return
    staged = "staged" if w.staged else "not staged"
    out(f"Remembered {w.uuid[:8]} in {w.path} ({staged}).")


@main.command()
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
    if not quiet:
        out(f"Indexed {added} new memories; {len(entries)} in the cache for this checkout.")


@main.command()
@source_options
@json_option
def stats(cached: bool, rev: str | None, as_json: bool) -> None:
    """Memories by layer, source and contributor; the most and the never recalled."""
    import time

    from git_aide.app import search as sr
    from git_aide.render import output as render

    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        doc = sr.stats(snap.entries, ctx.cache.stats(), time.time())
    if as_json:
        out(render.dumps({"source": snap.source.as_json(), **doc}))
    else:
        out(render.stats_text(doc))


@main.command(name="list")
@click.option("--layer", "layers", type=LAYER_CHOICE, multiple=True)
@click.option("--tag", "tags", multiple=True)
@click.option("--contributor")
@source_options
@json_option
def list_(layers: tuple[str, ...], tags: tuple[str, ...], contributor: str | None,
          cached: bool, rev: str | None, as_json: bool) -> None:
    """Every memory of the source."""
    from git_aide.app.answers import list_hits

    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        render_hits(snap, list_hits(snap, layers=layers, tags=tags, contributor=contributor),
                    as_json)


@main.command()
@click.argument("ident", metavar="ID")
@source_options
@json_option
def show(ident: str, cached: bool, rev: str | None, as_json: bool) -> None:
    """One memory, whole."""
    from git_aide.app.store import find
    from git_aide.render import output as render

    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
    e = find(snap.entries, ident)
    if as_json:
        from git_aide.app.answers import show_doc

        out(render.dumps(show_doc(snap, e)))
    else:
        on_tty = tty()
        out(render.show_text(e.record, e.path, tty=on_tty), raw=on_tty)


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
    from git_aide.app import store

    if all(x is None for x in (what, why, scope, label, layer)) and not (add_tags or remove_tags):
        raise UsageError("nothing to change: give --what, --why, --scope, --tag, --untag, "
                         "--label or --layer")
    with Opened() as ctx:
        w = store.update(ctx.repo, ctx.cache, ident, what=what, why=why, scope=scope,
                         add_tags=list(add_tags), remove_tags=list(remove_tags), label=label,
                         layer=layer, stage=not no_stage)
    warn(w.warnings)
    if as_json:
        from git_aide.app.answers import update_doc
        from git_aide.render.output import dumps

        out(dumps(update_doc(w)))
    else:
        out(f"Updated {w.uuid[:8]} in {w.path} ({'staged' if w.staged else 'not staged'}).")


@main.command()
@click.argument("idents", metavar="ID...", nargs=-1, required=True)
@click.option("--no-stage", is_flag=True, help="Leave the index alone.")
@json_option
def forget(idents: tuple[str, ...], no_stage: bool, as_json: bool) -> None:
    """Delete memories (and stage the removals)."""
    from git_aide.app import store

    with Opened() as ctx:
        gone, staged, warnings = store.forget(ctx.repo, ctx.cache, list(idents),
                                              stage=not no_stage)
    warn(warnings)
    if as_json:
        from git_aide.app.answers import forget_doc
        from git_aide.render.output import dumps

        out(dumps(forget_doc(gone, staged)))
    else:
        out("\n".join(f"Forgot {u[:8]}." for u in gone))


@main.command(name="merge-driver")
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
    from git_aide.core.merge import run_driver

    args = [base, ours, theirs] + [a for a in (marker_size, path) if a is not None]
    raise click.exceptions.Exit(run_driver(args))


@main.command()
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


@main.command()
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


@main.command()
@json_option
def doctor(as_json: bool) -> None:
    """What is missing or broken here, and the command that fixes it."""
    from git_aide.app.doctor import diagnose
    from git_aide.gitio.repo import open_repo

    findings = diagnose(open_repo())
    bad = [f for f in findings if not f.ok]
    if as_json:
        import orjson

        out(orjson.dumps({"ok": not bad, "checks": [f.as_json() for f in findings]}).decode())
    else:
        out("\n".join(f.line() for f in findings))
    if bad:
        raise AideError(f"{len(bad)} problem{'s' if len(bad) > 1 else ''} found")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--fix", is_flag=True, help="Rewrite the scopes of moved memories (staged).")
@click.option("--strict", is_flag=True, help="Exit 1 when anything was found (for CI).")
@source_options
@json_option
def audit(paths: tuple[str, ...], fix: bool, strict: bool, cached: bool, rev: str | None,
          as_json: bool) -> None:
    """Memories the code left behind: orphaned, moved, duplicate, stale."""
    from git_aide.app import audit as au
    from git_aide.render import output as render

    if fix and (cached or rev is not None):
        raise UsageError("--fix rewrites files in the working tree; it cannot be used "
                         "with --cached or --rev")
    with Opened(cached=cached, rev=rev) as ctx:
        snap = ctx.snapshot(cached, rev)
        warn(snap.warnings)
        findings, fixed, audited = au.run(ctx.repo, ctx.cache, snap, list(paths), fix=fix)
    if as_json:
        doc: dict[str, Any] = {"source": snap.source.as_json(),
                               "findings": [f.as_json() for f in findings]}
        if fix:
            doc["fixed"] = [{"uuid": u, "from": a, "to": b} for u, a, b in fixed]
        out(render.dumps(doc))
    else:
        lines = [f.line() for f in findings]
        lines += [f"fixed {u[:8]}: scope {a} -> {b} (staged)" for u, a, b in fixed]
        out("\n".join(lines) if lines else
            f"No findings in {audited} memor{'y' if audited == 1 else 'ies'}.")
    if strict and findings:
        n = len(findings)
        raise AideError(f"{n} finding{'s' if n > 1 else ''}; see `git aide audit`")


class PathsAfterDash(click.Command):
    """A command whose `-- PATH...` is kept apart from its revisions, as git does."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Everything after the first `--` goes to ctx.meta["paths"]."""
        if "--" in args:
            at = args.index("--")
            ctx.meta["paths"] = args[at + 1:]
            args = args[:at]
        else:
            ctx.meta["paths"] = []
        return super().parse_args(ctx, args)


def _hot_command(hot: Hot) -> click.Command:
    """The click command of a hot command, built from its declaration (hot.py) as the
    fast parser reads it, and calling the same function (commands.run)."""
    params: list[click.Parameter] = [
        click.Argument([hot.words], nargs=1 if hot.one_word else -1,
                       metavar=hot.words_metavar)]
    for opt in hot.options:
        kind: click.ParamType | None = None
        if opt.kind == "count":
            kind = click.IntRange(min=0)
        elif opt.choices is not None:
            kind = click.Choice(list(opt.choices()))
        flag = opt.kind == "flag"
        params.append(click.Option([*opt.names, opt.dest], is_flag=flag, multiple=opt.multiple,
                                   type=kind, help=opt.help, metavar=opt.metavar,
                                   default=False if flag else opt.default))

    def callback(**kwargs: Any) -> None:
        # click gives tuples for the repeatable options and the words; fastpath lists.
        got: dict[str, object] = {k: list(v) if isinstance(v, tuple) else v
                                  for k, v in kwargs.items()}
        if hot.paths_after_dash:
            got["paths"] = click.get_current_context().meta["paths"]
        status = commands.run(hot.name, got)
        if isinstance(status, int) and status:
            raise click.exceptions.Exit(status)

    cls = PathsAfterDash if hot.paths_after_dash else click.Command
    return cls(hot.name, params=params, callback=callback, help=hot.help)


for _hot in HOT.values():
    main.add_command(_hot_command(_hot))


@main.command()
@click.argument("file")
def textconv(file: str) -> None:
    """A memory file as readable lines (git runs it for `git diff`; see `init`)."""
    # `git-aide textconv` never gets here: __main__ dispatches it before click is
    # imported. This keeps it listed in the help and callable through `run()`.
    from git_aide.gitprog.textconv import main as textconv_main

    raise click.exceptions.Exit(textconv_main([file]))

@main.command(name="import")
@click.argument("files", metavar="[FILE]...", nargs=-1)
@click.option("--layer", type=LAYER_CHOICE, help="Default: from the file (see the man page).")
@click.option("--scope", metavar="GLOB", help="Where the rules apply (default: from the file).")
@click.option("--dry-run", "-n", is_flag=True, help="Say what would be imported; write nothing.")
@json_option
def import_(files: tuple[str, ...], layer: str | None, scope: str | None, dry_run: bool,
            as_json: bool) -> None:
    """Turn rules files (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc...; none: all of them)
    into memories."""
    from git_aide.agents import rules

    with Opened() as ctx:
        doc = rules.import_doc(ctx.repo, ctx.cache, list(files), layer=layer, scope=scope,
                               dry_run=dry_run)
    warn(doc["warnings"])
    refused = [s for s in doc["skipped"] if s["reason"] not in ("exists", "repeated")]
    if as_json:
        from git_aide.render.output import dumps

        out(dumps(doc))
    else:
        lines = [f"{'would import' if dry_run else 'imported'} {m['why']}: "
                 f"{_one_line(m['what'])}" for m in doc["imported"]]
        out("\n".join([*lines, doc["summary"]]))
    warn([f"{s['where']}: not imported: {s['message']}" for s in refused])
    if refused:
        n = len(refused)
        raise AideError(f"{n} item{'s' if n > 1 else ''} refused (named above); "
                        "the rest were imported" if not dry_run else
                        f"{n} item{'s' if n > 1 else ''} would be refused (named above)")


def _one_line(text: str, width: int = 70) -> str:
    first = text.strip().split("\n")[0]
    return first if len(first) <= width else first[: width - 3] + "..."


@main.command()
@click.option("--agent", "agents", multiple=True, required=True,
              type=click.Choice(["claude", "codex", "cursor", "gemini", "copilot", "windsurf"]),
              help="Write this agent's rules files (repeatable).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file is out of date.")
@click.option("--max-chars", type=click.IntRange(min=1), metavar="N",
              help="Keep the always-on block within N characters.")
def export(agents: tuple[str, ...], check: bool, max_chars: int | None) -> None:
    """Write the memories into agents' rules files (a marked block, glob-scoped rules)."""
    from git_aide.agents import export as ex

    with Opened() as ctx:
        done, notes = ex.export(ctx.repo, ctx.cache, list(agents), check=check,
                                max_chars=max_chars)
    warn(notes)
    if check:
        bad = [(p, s) for p, s in done if s != "unchanged"]
        if bad:
            out("\n".join(f"{p}: {s}" for p, s in bad))
            n = len(bad)
            raise AideError(f"{n} file{'s' if n > 1 else ''} out of date; run `git aide export "
                            + " ".join(f"--agent {a}" for a in dict.fromkeys(agents)) + "`")
        return
    changed = [f"{s} {p}" for p, s in done if s != "unchanged"]
    out("\n".join(changed) if changed else "The rules files are up to date; nothing changed.")
@main.command()
def mcp() -> None:
    """Serve the memories to an agent over MCP on stdio (agents start it themselves)."""
    from git_aide.agents import serve

    raise click.exceptions.Exit(serve())


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("event", metavar="EVENT")
@click.option("--agent", type=click.Choice(["claude", "codex", "copilot", "cursor", "gemini",
                                           "vscode"]),
              default="claude", help="The agent whose hook protocol to speak.")
def hook(event: str, agent: str) -> None:
    """Run by an agent's hooks: read its event on stdin, print context for it."""
    # `git-aide hook ...` never gets here: __main__ runs it before click is imported.
    from git_aide.agents.events import main as events_main

    raise click.exceptions.Exit(events_main([event, "--agent", agent]))


def run(argv: list[str] | None = None) -> int:
    """Run the command line; every error becomes one line and an exit status."""
    args = sys.argv[1:] if argv is None else argv
    if not args:  # as `git` alone: the usage on stdout, status 1, no error line
        click.echo(main.get_help(click.Context(main, info_name="git aide")))
        return 1
    try:
        commands.check_arguments(args)
        rv = main.main(args=argv, prog_name="git aide", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("git-aide: error: aborted", err=True)
        return 1
    except click.UsageError as e:
        # An option missing its value is raised without a context: the command is
        # then the first argument that names one.
        name = e.ctx.command_path.split()[-1] if e.ctx else next(
            (a for a in args if a in main.commands), "aide")
        hint = f" (see 'git aide {name} -h')" if name != "aide" else " (see 'git aide -h')"
        click.echo(f"git-aide: error: {commands.escape(e.format_message())}{hint}", err=True)
        return 2
    except click.ClickException as e:
        click.echo(f"git-aide: error: {commands.escape(e.format_message())}", err=True)
        return e.exit_code
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 -- the one error boundary
        from git_aide.app.boundary import report

        return report(e)
    return rv if isinstance(rv, int) else 0
