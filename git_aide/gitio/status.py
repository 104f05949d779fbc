"""What `git status` says of the memories folder: the files that differ from the index.

The question itself is asked early (spawn.STATUS, with posix_spawn); this reads its
answer. A folder git names whole (an ignored one: personal memories) is listed file by
file, and files that are not memories (a folder's .gitignore, a README) are left out.
"""

from __future__ import annotations

import os

from git_aide.core.errors import GitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Spawned

#: Files in the memories folders that are not memories and say nothing when skipped.
QUIET = frozenset({".gitignore", ".gitkeep", ".gitattributes", "README.md", ".DS_Store"})

def _files_below(top: str, folder: str) -> list[str]:
    out: list[str] = []
    for base, _dirs, files in os.walk(os.path.join(top, folder)):
        rel = os.path.relpath(base, top).replace(os.sep, "/")
        out.extend(f"{rel}/{name}" for name in files)
    return out


def changed_paths(top: str, status: Spawned | None) -> list[str]:
    """List the files of the memories folder that differ from the index, as `git status` names
    them (an ignored folder's expanded)."""
    if status is None:
        raise GitError("git could not be started")
    rc, out, err = status.wait()
    if rc != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        raise GitError(f"git status failed: {lines[-1] if lines else rc}")
    paths: set[str] = set()
    for item in out.decode(errors="surrogateescape").split("\0"):
        if item[1:2] == " ":
            # Staged and unchanged since ("A ", "M "): the index holds it as it is, so it
            # does not differ from the index's listing (a fresh `remember` is such a file).
            continue
        path = item[3:]
        if path.endswith("/"):  # an ignored folder (personal memories) is named, not listed
            paths.update(_files_below(top, path))
        elif path:
            paths.add(path)
    # The personal folder's own .gitignore and the like are no memories and say nothing:
    # not reading them keeps a clean tree's recall from hashing anything.
    return sorted(p for p in paths if p.rsplit("/", 1)[-1] not in QUIET)


def index_matches(repo: Repo, rev: str) -> bool:
    """Tell whether the index holds exactly what `rev` holds under the memories folder (one
    `git diff-index --cached`, which reads no file of the working tree); False too when
    git cannot tell (no such revision yet)."""
    from git_aide.core.memory import MEMORIES_DIR
    from git_aide.gitio.repo import check_revision

    check_revision(rev)
    proc = repo.git("diff-index", "--cached", "--quiet", rev, "--", MEMORIES_DIR, check=False)
    return proc.returncode == 0
