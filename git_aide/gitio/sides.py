"""Sides: what a person calls git's "ours" and "theirs" while a merge, a pull, a
cherry-pick or a rebase is stopped, from the git directory's state and git's environment
(for the merge driver's notices and `resolve`'s)."""

from __future__ import annotations

import os

from git_aide.core import controls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.merge import Label


def side_names(git_dir: str | None, environ: dict[str, str] | None = None
               ) -> dict[str, Label]:
    """Name what a person calls git's "ours" and "theirs" right now.

    In a merge, pull, cherry-pick or revert "ours" is HEAD and "theirs" what comes in.
    A rebase replays your commits onto upstream, so there git's "ours" is upstream and
    its "theirs" is your commit: the words follow what the user did, not git's plumbing.
    """
    picked = _rebase_pick(git_dir) if git_dir else None
    if picked is not None:
        return {"ours": ("upstream", None),
                "theirs": ("yours", f"commit {picked[:7]}" if picked else None)}
    env = os.environ if environ is None else environ
    # `git merge` names what it merges in GITHEAD_<id>: the name the user typed, or the
    # id itself when `git pull` hands it over; an octopus has several, and no name fits.
    heads = [v for k, v in env.items() if k.startswith("GITHEAD_") and v]
    theirs = None
    if len(heads) == 1:
        theirs = f"commit {heads[0][:7]}" if hex_id(heads[0]) else controls.escape(heads[0])
    return {"ours": ("ours", None), "theirs": ("theirs", theirs)}


def _rebase_pick(git_dir: str) -> str | None:
    """Return the commit a rebase is replaying ("" if it cannot tell), or None outside a rebase.

    A merge that `rebase --rebase-merges` replays counts as a merge: None.
    """
    todo = os.path.join(git_dir, "rebase-merge")
    if os.path.isdir(todo):
        try:
            with open(os.path.join(todo, "done"), encoding="utf-8", errors="replace") as f:
                lines = [x.split() for x in f.read().splitlines()]
        except OSError:
            return ""
        done = [x for x in lines if x and not x[0].startswith("#")]
        if not done:
            return ""
        if done[-1][0] in ("merge", "m"):
            return None
        # "pick <id> subject", "fixup -C <id> subject", ...: the first hex word.
        return next((w for w in done[-1][1:] if hex_id(w)), "")
    if os.path.isfile(os.path.join(git_dir, "rebase-apply", "rebasing")):
        try:
            with open(os.path.join(git_dir, "REBASE_HEAD"), encoding="ascii",
                      errors="replace") as f:
                head = f.read().strip()
        except OSError:
            return ""
        return head if hex_id(head) else ""
    return None


def hex_id(word: str) -> bool:
    """Tell whether a word is an object id (or an abbreviation of one)."""
    return len(word) >= 4 and all(c in "0123456789abcdef" for c in word)
