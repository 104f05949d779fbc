"""Which paths git ignores: `git check-ignore`, asked once for many paths.

`import` follows a rules file's `@path` imports only to files git tracks or would track
(docs/rules-files.md): an ignored `.env` is nobody's rules.
"""

from __future__ import annotations

import os
import posixpath
import subprocess

from git_aide.core.errors import GitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from git_aide.gitio.repo import Repo

#: What tells git which repository it is in; dropped when another repository (a submodule)
#: is asked, as git drops them for its submodules (`git rev-parse --local-env-vars`).
_LOCAL_ENV = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_IMPLICIT_WORK_TREE", "GIT_PREFIX",
    "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE"})


def ignored(repo: Repo, paths: Iterable[str]) -> set[str]:
    """Return the `paths` (relative to the top of the working tree, "/"-separated, no link and
    no git folder in them) that git ignores: untracked, and left out by a .gitignore,
    .git/info/exclude or core.excludesFile. A tracked file is never ignored.

    One `git check-ignore` for them all; a path inside a submodule (or another repository
    in the tree) is asked of that repository, as git will not answer for it."""
    top = repo.require_worktree("check-ignore")
    by_repo: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    for path in dict.fromkeys(paths):
        by_repo.setdefault(_repository_of(top, posixpath.dirname(path), where), []).append(path)
    out: set[str] = set()
    for sub, group in by_repo.items():
        # "./": a path starting with ":" is not read as pathspec magic (check-ignore takes
        # no --literal-pathspecs); git echoes each ignored path as it was given.
        asked = {b"./" + os.fsencode(p[len(sub) + 1:] if sub else p): p for p in group}
        data = b"".join(a + b"\0" for a in asked)
        if sub:
            env = {k: v for k, v in os.environ.items() if k not in _LOCAL_ENV}
            proc = subprocess.run(["git", "check-ignore", "-z", "--stdin"], input=data,
                                  capture_output=True, cwd=os.path.join(top, sub), env=env)
        else:
            proc = repo.git("check-ignore", "-z", "--stdin", input=data, check=False, cwd=top)
        if proc.returncode not in (0, 1):  # 1: none of them is ignored
            msg = proc.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git check-ignore failed: {msg[-1] if msg else proc.returncode}")
        out.update(asked[a] for a in proc.stdout.split(b"\0") if a in asked)
    return out


def _repository_of(top: str, folder: str, known: dict[str, str]) -> str:
    """Find the folder of the innermost repository holding `folder` below `top` ("": the
    top's own): the nearest one with a `.git` of its own. `known` keeps the answers."""
    below: list[str] = []
    found = ""
    while folder:
        if folder in known:
            found = known[folder]
            break
        below.append(folder)
        if os.path.lexists(os.path.join(top, folder, ".git")):
            found = folder
            break
        folder = posixpath.dirname(folder)
    for f in below:
        known[f] = found
    return found
