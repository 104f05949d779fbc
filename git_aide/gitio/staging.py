"""What staging a memory meets besides another git's lock: a git folder that cannot be
written (README, Writing safely).

A lock held by another git is waited for (`Repo.stage`), but index.lock that cannot be
made because its folder cannot be written is never freed: that is said at once, and
the writing commands ask before they write anything (`index_problem`), so that no
memory is left written and not staged.
"""

from __future__ import annotations

import os

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.gitio.repo import Repo

#: What git says (in the C locale) when it cannot make a file for want of permission.
DENIED = ("Permission denied", "Read-only file system", "Operation not permitted")


class Unwritable(AideError):
    """Git's index cannot be written: its folder cannot be written, so index.lock cannot
    be made, however long one waits."""

    def __init__(self, folder: str, reason: str = "permission denied") -> None:
        super().__init__(f"cannot write {folder}: {reason}")
        #: The folder that cannot be written.
        self.folder = folder


def unwritable(index_file: str, err: str = "") -> Unwritable | None:
    """Why index.lock cannot be made beside `index_file`, when that is its folder's
    fault (not another git's lock): the folder cannot be written (os.access) or git said
    so in `err`; None when the lock exists (someone holds it) or nothing is wrong."""
    folder = os.path.dirname(index_file) or "."
    if os.path.lexists(index_file + ".lock"):
        return None
    said = next((m for m in DENIED if m in err), None)
    if said is None and os.access(folder, os.W_OK):
        return None
    return Unwritable(folder, (said or DENIED[0]).lower())


def index_problem(repo: Repo) -> Unwritable | None:
    """Unwritable when staging could not succeed because git's index cannot be written
    (asked before a memory is written, so that none is left written and not staged)."""
    return unwritable(repo.index_file)
