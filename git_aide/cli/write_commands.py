"""Write memories: `remember`, `update` and `forget`, each one click declaration and one
function that calls app/store.py (or app/userstore.py, for the user's own store),
follows the write (agents/rules/afterwrite.py) and says what it did.
"""

from __future__ import annotations

import click

from git_aide.cli.click_options import LAYER_CHOICE, SOURCE_CHOICE, json_option
from git_aide.cli.commands import Opened, out, warn
from git_aide.cli.user_store import project, remember_user, wrote_user
from git_aide.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from git_aide.app.context import Context
    from git_aide.core.jsonvalue import JSONObject

    class _Changes(TypedDict):
        """Name what `update` changes, as app/store.py's and app/userstore.py's update take it."""

        what: str | None
        why: str | None
        scope: str | None
        add_tags: list[str]
        remove_tags: list[str]
        label: str | None
        layer: str | None
        priority: str | None
        generated_by: None
        force: bool


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
        remember_user(what, why=why, layer=layer, scope=scope, tags=list(tags), label=label,
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


def _with_exported(doc: JSONObject, exported: list[JSONObject]) -> JSONObject:
    """Return a write's --json document, with the rules files aide.export.auto refreshed."""
    return {**doc, "exported": exported} if exported else doc


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

    changes: _Changes = {
        "what": what, "why": why, "scope": scope, "add_tags": list(add_tags),
        "remove_tags": list(remove_tags), "label": label, "layer": layer,
        "priority": priority, "force": force,
        "generated_by": None}  # a person's change: no agent's mark
    opened = project()
    if opened is None:  # outside any repository: the user store's
        wrote_user(userstore.update(ident, **changes), "Updated", as_json)
        return
    with opened as ctx:
        mine = userstore.claimed(lambda: _uuids(ctx), [ident])
        if mine:
            wrote_user(userstore.update(mine[ident], **changes), "Updated", as_json)
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

    opened = project()
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


def _uuids(ctx: Context) -> list[str]:
    """Return the uuids of the working tree's memories (not the user store's)."""
    return [e.uuid for e in ctx.snapshot().entries]
