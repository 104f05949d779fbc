"""Serve the cold commands' side of the user's own store (app/userstore.py,
docs/user-store.md): `remember --user`, `list --user`, what a write there says, and the
repository a command works on, or none outside one (show, update and forget then work
on the user store alone).
"""

from __future__ import annotations

from git_aide.cli.commands import Opened, out, tty, warn
from git_aide.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.store import Written


def project(cached: bool = False, rev: str | None = None) -> Opened | None:
    """Find the command's repository, or None outside any (the user store's commands then
    work on it alone; reading --cached or --rev needs a repository)."""
    from git_aide.core.errors import GitError

    try:
        return Opened(cached=cached, rev=rev)
    except GitError:
        if cached or rev is not None:
            raise
        return None


def remember_user(what: str, *, why: str | None, layer: str | None, scope: str | None,
                  tags: list[str], label: str | None, personal: bool, priority: str,
                  source: str, contributor: str | None, force: bool, as_json: bool) -> None:
    """Remember into the user's own store (`remember --user`; no repository needed)."""
    from git_aide.app import userstore

    if personal:
        raise UsageError("--user and --personal go apart: a --user memory is yours in every "
                         "repository, a --personal one in this one")
    w = userstore.remember(what, why=why, layer=layer, scope=scope, tags=tags, label=label,
                           priority=priority, source=source, contributor=contributor,
                           force=force)
    wrote_user(w, "Remembered" if w.created else "Already remembered as", as_json)


def wrote_user(w: Written, verb: str, as_json: bool) -> None:
    """Say what a write to the user store did: its warnings, and what it wrote where."""
    warn(w.warnings)
    if as_json:
        from git_aide.app.answers import remember_doc, update_doc
        from git_aide.render.output import dumps

        out(dumps(update_doc(w) if verb == "Updated" else remember_doc(w)))
        return
    done = "committed" if w.committed else "not committed"
    out(f"{verb} {w.uuid[:8]} in your user store ({w.path}, {done}).")


def list_user(as_json: bool, *, layers: tuple[str, ...], tags: tuple[str, ...],
              contributor: str | None, scope: str | None, priority: str | None,
              by: str | None, generated_by: str | None) -> None:
    """List the user store's memories alone (`list --user`)."""
    from git_aide.app import userstore
    from git_aide.app.queries import ListQuery
    from git_aide.render import output as render

    warnings: list[str] = []
    hits = userstore.listing(ListQuery(layers=layers, tags=tags, contributor=contributor,
                                       scope=scope, priority=priority, by=by,
                                       generated_by=generated_by), warnings)
    warn(warnings)
    if as_json:
        out(render.dumps(userstore.list_doc(hits)))
    else:
        on_tty = tty()
        out(render.memories_text(hits, tty=on_tty, empty="No memories in your user store."),
            raw=on_tty, page=True)
