"""What staging a memory meets besides another git's lock: a git folder that cannot be
written, and ignore rules that hide the memories (docs/memory-file.md).

A lock held by another git is waited for (`Repo.stage`), but index.lock that cannot be
made because its folder cannot be written is never freed: that is said at once, and
the writing commands ask before they write anything (`index_problem`), so that no
memory is left written and not staged.

Shared memories are meant to be committed whatever the repository ignores (a `*.json`
in .gitignore, say): the memory files git-aide writes are staged with `git add --force`,
those exact paths only and never a personal one, and the user is told once which line
hides them and which line stops it (`note`); `init` and `doctor` say so too (`hidden`,
`fix_lines`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from git_aide.core.errors import AideError
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.gitio.repo import Repo

#: What git says (in the C locale) when it cannot make a file for want of permission.
DENIED = ("Permission denied", "Read-only file system", "Operation not permitted")
#: The line that makes memory files tracked again when a pattern such as `*.json` hides
#: them (a later negation wins; no parent folder of theirs is excluded by it).
FILES_LINE = "!.aide/**/*.json"
#: The line that makes the .aide folder itself seen again (hidden by `.*`, say): git
#: does not look inside an excluded folder, so no pattern about its files can help.
FOLDER_LINE = "!.aide/"
#: The shared memory folders (one path in each stands for any memory there).
SHARED = ("technical", "area_context", "guidelines", "preferences/shared")
#: A memory file's name, for asking git about a folder's memories.
PROBE_NAME = "00000000-0000-4000-8000-000000000000.json"


class Unwritable(AideError):
    """Report that git's index cannot be written: its folder cannot be written, so
    index.lock cannot be made, however long one waits."""

    def __init__(self, folder: str, reason: str = "permission denied") -> None:
        super().__init__(f"cannot write {folder}: {reason}")
        #: The folder that cannot be written.
        self.folder = folder


def unwritable(index_file: str, err: str = "") -> Unwritable | None:
    """Say why index.lock cannot be made beside `index_file`, when that is its folder's
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
    """Return Unwritable when staging could not succeed because git's index cannot be written
    (asked before a memory is written, so that none is left written and not staged)."""
    return unwritable(repo.index_file)


# -- ignore rules that hide the memories ---------------------------------------------------

@dataclass(frozen=True)
class Hidden:
    """Hold a path an ignore rule hides, and the rule."""

    #: The repo-relative path.
    path: str
    #: The file the pattern is in (as git names it: `.gitignore`, `.git/info/exclude`...).
    source: str
    #: Its line number there.
    line: str
    #: The pattern.
    pattern: str

    def rule(self) -> str:
        """Return `source:line: pattern`, as `git check-ignore -v` says it."""
        return f"{self.source}:{self.line}: {self.pattern}"


def hidden(repo: Repo, paths: list[str]) -> list[Hidden]:
    """Find which of `paths` (repo-relative, a folder ending in '/') the ignore rules hide,
    whether or not they are tracked (`git check-ignore --no-index -v`)."""
    if not paths:
        return []
    proc = repo.git("check-ignore", "--no-index", "-v", "-z", "--stdin", check=False,
                    input="".join(p + "\0" for p in paths).encode(errors="surrogateescape"),
                    cwd=repo.worktree)
    fields = proc.stdout.decode(errors="surrogateescape").split("\0")
    out = []
    for i in range(0, len(fields) - 3, 4):
        source, line, pattern, path = fields[i:i + 4]
        if source and not pattern.startswith("!"):  # a negation is a match that keeps it
            out.append(Hidden(path, source, line, pattern))
    return out


def forcible(path: str) -> bool:
    """Tell whether git-aide may stage `path` against the ignore rules: a shared memory file."""
    return (path.startswith(MEMORIES_DIR + "/") and path.endswith(".json")
            and not path.startswith(PERSONAL_DIR + "/"))


def shared_hidden(repo: Repo) -> list[Hidden]:
    """Return the shared memory folders whose memories the ignore rules hide (one Hidden each,
    for a memory file there)."""
    return hidden(repo, [f"{MEMORIES_DIR}/{f}/{PROBE_NAME}" for f in SHARED])


def fix_lines(repo: Repo) -> list[str]:
    """Return the lines that, at the end of the top .gitignore, make the memory files tracked
    again: `!.aide/**/*.json`, after `!.aide/` when the .aide folder itself is ignored."""
    folder = hidden(repo, [".aide/"]) if repo.worktree and os.path.isdir(
        os.path.join(repo.worktree, ".aide")) else []
    return [FOLDER_LINE, FILES_LINE] if folder else [FILES_LINE]


def fix(repo: Repo, found: list[Hidden]) -> str:
    """Return what stops the ignore rules in `found` from hiding the memories."""
    deeper = [h for h in found if h.source.endswith("/.gitignore")
              and not os.path.isabs(h.source) and not h.source.startswith(".git/")]
    if deeper:  # a .gitignore below the top wins over any line of the top one
        h = deeper[0]
        return f"remove `{h.pattern}` from {h.source} (line {h.line})"
    lines = fix_lines(repo)
    return ("add " + " and ".join(f"`{x}`" for x in lines)
            + " at the end of .gitignore")


def note(repo: Repo, found: list[Hidden]) -> str:
    """Return the one line a write says when it staged memories the ignore rules hide."""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (f"{first.rule()} ignores {first.path}{more}; staged anyway (shared memories are "
            f"meant to be committed): {fix(repo, found)} to stop this notice")


# -- a file's staged content, set without the working tree -------------------------------

def index_entries(repo: Repo, paths: list[str]) -> dict[str, tuple[str, str]]:
    """Map repo-relative path to (mode, blob id) of the index entries (stage 0) of `paths`,
    files or folders (a folder: every file under it)."""
    if not paths:
        return {}
    top = repo.require_worktree("reading the index", reads=True)
    out = repo.git("ls-files", "--stage", "-z", "--full-name", "--", *paths, cwd=top
                   ).stdout.decode(errors="surrogateescape")
    found: dict[str, tuple[str, str]] = {}
    for item in out.split("\0"):
        meta, _tab, path = item.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[2] == "0":
            found[path] = (parts[0], parts[1])
    return found


def stage_blob(repo: Repo, path: str, data: bytes, mode: str = "100644") -> bool:
    """Stage `data` as the content of `path` (repo-relative), the working tree's file
    left as it is (`git add -p` of a part, done by a program); False when another git's
    index.lock stayed for the whole wait (aide.indexLockTimeout)."""
    import time

    top = repo.require_worktree("staging")
    oid = repo.git("hash-object", "-w", "--no-filters", "--stdin", input=data
                   ).stdout.decode().strip()
    deadline = time.monotonic() + repo.settings.index_lock_timeout
    delay = 0.02
    while True:
        proc = repo.git("update-index", "--cacheinfo", mode, oid, path, check=False,
                        cwd=top, env={"LC_ALL": "C"})
        if proc.returncode == 0:
            return True
        err = proc.stderr.decode(errors="replace")
        if "index.lock" not in err:
            lines = err.strip().splitlines()
            raise AideError(f"git update-index failed: {lines[-1] if lines else proc.returncode}")
        problem = unwritable(repo.index_file, err)
        if problem is not None:
            raise problem
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)
