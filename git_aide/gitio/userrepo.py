"""The user's own store as git sees it (app/userstore.py): made by `git init` on its
first write, each write committed there, asked for its config, remotes and what is not
committed.

git runs in the store with its folders named (GIT_DIR, GIT_WORK_TREE) and the rest of
the command's own repository taken out of its environment (a hook's GIT_INDEX_FILE, an
alternate object folder): whatever repository the command runs in, git never writes
into it, and a store folder without a repository of its own is never taken for part of
one around it.
"""

from __future__ import annotations

import os
import subprocess

from git_aide.core.errors import GitError

#: The variables that point git at a repository: none of them may reach the store's.
_LOCATION = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
             "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
             "GIT_PREFIX")


def _env(top: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION}
    if top is not None:
        env["GIT_DIR"] = os.path.join(top, ".git")
        env["GIT_WORK_TREE"] = top
    return env


def git(top: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run git in the store at `top`; GitError with git's last line when it fails."""
    proc = subprocess.run(["git", *args], capture_output=True, cwd=top, env=_env(top))
    if check and proc.returncode != 0:
        raise GitError(f"git {args[0]} failed in {top}: {_last_line(proc.stderr)}")
    return proc


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[-1].removeprefix("fatal: ") if lines else "no reason given"


def is_repository(top: str) -> bool:
    """Tell whether the store's folder holds a repository of its own (`.git`)."""
    return os.path.isdir(os.path.join(top, ".git"))


def init(top: str) -> bool:
    """Make the store a repository (its folder too) unless it is one; whether it was
    made now."""
    if is_repository(top):
        return False
    os.makedirs(top, exist_ok=True)
    proc = subprocess.run(["git", "init", "-q", top], capture_output=True, env=_env(None))
    if proc.returncode != 0:
        raise GitError(f"git init failed in {top}: {_last_line(proc.stderr)}")
    return True


def config(top: str) -> dict[str, str]:
    """Read the aide.* and user.* settings git reads for the store (its own config, and the
    user's global and system ones), keys lower-cased; the user's alone before it is a
    repository."""
    where = top if is_repository(top) else None
    # Before, no repository at all is read (GIT_DIR names none): not one around here.
    proc = subprocess.run(["git", "config", "-z", "--get-regexp", r"^(aide|user)\."],
                          capture_output=True, cwd=where,
                          env=_env(where) if where else {**_env(None), "GIT_DIR": os.devnull})
    out: dict[str, str] = {}
    for item in proc.stdout.decode(errors="replace").split("\0"):
        if item:
            key, _, value = item.partition("\n")
            out[key.lower()] = value
    return out


def commit(top: str, paths: list[str], message: str) -> str | None:
    """Commit the store's files at `paths` (relative to `top`) as they are now, new,
    changed or removed, and nothing else; None when committed, else why not (git's
    reason). No hook runs and nothing is signed: the store is git-aide's to write."""
    added = git(top, "add", "--all", "--force", "--", *paths, check=False)
    if added.returncode != 0:
        return _last_line(added.stderr)
    done = git(top, "-c", "commit.gpgSign=false", "commit", "-q", "--no-verify",
               "-m", message, "--", *paths, check=False)
    return None if done.returncode == 0 else _last_line(done.stderr or done.stdout)


def remotes(top: str) -> list[str]:
    """Return the store's remotes, by name."""
    proc = git(top, "remote", check=False)
    return proc.stdout.decode(errors="replace").split() if proc.returncode == 0 else []


def uncommitted(top: str, folder: str) -> list[str]:
    """List the files under `folder` (relative to `top`) that differ from the store's last
    commit, relative to `top`."""
    proc = git(top, "status", "--porcelain", "-z", "--untracked-files=all", "--", folder,
               check=False)
    if proc.returncode != 0:
        return []
    return [item[3:] for item in proc.stdout.decode(errors="surrogateescape").split("\0")
            if len(item) > 3]
