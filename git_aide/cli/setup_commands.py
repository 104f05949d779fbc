"""Set a repository up and look after it: `init`, `doctor`, `validate`, `resolve`; and
declare the commands init installs for other programs to run: git's merge driver and
textconv, an agent's MCP server and hooks (__main__ runs those before click is
imported; their click declarations list them in the help and serve `run()`).
"""

from __future__ import annotations

import click

from git_aide.cli.click_options import json_option
from git_aide.cli.commands import out, warn
from git_aide.core.errors import AideError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.gitio.repo import Repo


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


def _init_repo(repo: Repo, no_hooks: bool) -> list[str]:
    from git_aide.app.install import ignore_problem
    from git_aide.app.install import init as do_init

    done = do_init(repo, with_hooks=not no_hooks)
    hidden = ignore_problem(repo)
    if hidden is not None:
        warn([f"{hidden[0]}; fix: {hidden[1]}"])
    return done

@click.command()
@json_option
def doctor(as_json: bool) -> None:
    """Find what is missing or broken here, and the command that fixes it."""
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


@click.command(name="merge-driver")
@click.argument("base")
@click.argument("ours")
@click.argument("theirs")
@click.argument("marker_size", required=False)
@click.argument("path", required=False)
def merge_driver(base: str, ours: str, theirs: str, marker_size: str | None,
                 path: str | None) -> None:
    """Merge memories as git's merge driver (git runs it; see `init`)."""
    # `git-aide merge-driver` never gets here: __main__ dispatches it before click is
    # imported. This keeps it listed in the help and callable through `run()`.
    from git_aide.drivers.merge import run_driver

    args = [base, ours, theirs] + [a for a in (marker_size, path) if a is not None]
    raise click.exceptions.Exit(run_driver(args))


@click.command()
@click.argument("file")
def textconv(file: str) -> None:
    """Print a memory file as readable lines (git runs it for `git diff`; see `init`)."""
    # `git-aide textconv` never gets here: __main__ dispatches it before click is
    # imported. This keeps it listed in the help and callable through `run()`.
    from git_aide.drivers.textconv import main as textconv_main

    raise click.exceptions.Exit(textconv_main([file]))


@click.command()
def mcp() -> None:
    """Serve the memories to an agent over MCP on stdio (agents start it themselves)."""
    from git_aide.agents import serve
    from git_aide.cli.served import run

    raise click.exceptions.Exit(serve(run))


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("event", metavar="EVENT")
@click.option("--agent", type=click.Choice(["claude", "codex", "copilot", "cursor", "gemini",
                                           "vscode"]),
              default="claude", help="The agent whose hook protocol to speak.")
def hook(event: str, agent: str) -> None:
    """Run by an agent's hooks: read its event on stdin, print context for it."""
    # `git-aide hook ...` never gets here: __main__ runs it before click is imported.
    from git_aide.agents.hooks.events import main as events_main

    raise click.exceptions.Exit(events_main([event, "--agent", agent]) or 0)
