"""Carry memories to and from agents' rules files (agents/rules/): `import` turns
CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc... into memories, `export` writes the
memories into them.
"""

from __future__ import annotations

import click

from git_aide.cli.click_options import LAYER_CHOICE, json_option
from git_aide.cli.commands import Opened, out, warn
from git_aide.core.errors import AideError, UsageError


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
