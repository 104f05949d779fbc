"""`git aide doctor`: what is missing or broken in this clone, and the command that fixes it.

A fresh clone has the committed half of the set-up (.gitattributes, .gitignore, the
memories) but not the local half (the merge driver in .git/config, the hooks), so
each check looks at what git itself will do, not only at the files init writes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass
from typing import Any

from git_aide.app import hooks
from git_aide.cache.folder import Cache
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR
from git_aide.gitio import folders
from git_aide.gitio.repo import Repo

#: The oldest git git-aide is known to work with (rev-parse --absolute-git-dir, %P).
MIN_GIT: tuple[int, int] = (2, 20)
#: A path that stands for any memory when asking git about attributes and ignores.
PROBE = f"{MEMORIES_DIR}/technical/00000000-0000-4000-8000-000000000000.json"
_PERSONAL_PROBE = f"{PERSONAL_DIR}/00000000-0000-4000-8000-000000000000.json"
_INSTALL = ("install git-aide from a checkout of it (`pip install .` there) and put its "
            "bin folder on PATH")


@dataclass(frozen=True)
class Finding:
    """Hold the outcome of one check."""

    #: Which check: git, driver, textconv, attributes, hooks, cache, personal, ignore,
    #: user, folder, audit.
    check: str
    #: True when nothing is wrong.
    ok: bool
    #: What was found.
    message: str
    #: The command that fixes it (problems only).
    fix: str | None = None
    #: A remark worth reading that is not a problem (printed as `note:`).
    note: bool = False

    def line(self) -> str:
        """Return one line: `ok: message`, `note: message` or `problem: message; fix: command`."""
        if self.note:
            return f"note: {self.message}"
        if self.ok:
            return f"ok: {self.message}"
        return f"problem: {self.message}; fix: {self.fix}"

    def as_json(self) -> dict[str, Any]:
        """Return the finding as `doctor --json` lists it."""
        return {"check": self.check, "ok": self.ok, "message": self.message, "fix": self.fix}


def diagnose(repo: Repo) -> list[Finding]:
    """Run every check of the clone, in order; the problems are those with `ok` false. The
    agents' checks are agents/setup/doctor.py's (the command adds them after these)."""
    repo.require_worktree("doctor")
    out = [_git_version()]
    out.append(_folder(repo))
    out.extend(_links(repo))
    out.extend(_driver(repo))
    out.append(_textconv(repo))
    out.append(_attribute(repo, "merge", "the git-aide line, or a later one overrides it"))
    out.append(_attribute(repo, "diff", "'diff=aide' on the git-aide line"))
    out.extend(_hooks(repo))
    out.append(_cache(repo))
    out.extend(_personal(repo))
    out.append(_ignored(repo))
    out.extend(user_findings())
    orphans = _orphans(repo)
    if orphans is not None:
        out.append(orphans)
    return out


def _git_version() -> Finding:
    """Check that git is new enough."""
    from git_aide.gitio.repo import git_version

    version = git_version()
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not m:
        return Finding("git", False, f"cannot tell the git version from {version.strip()!r}",
                       "install git 2.20 or newer")
    have = (int(m[1]), int(m[2]))
    text = m[0]
    if have < MIN_GIT:
        return Finding("git", False, f"git {text} is older than {MIN_GIT[0]}.{MIN_GIT[1]}",
                       f"upgrade git to {MIN_GIT[0]}.{MIN_GIT[1]} or newer")
    return Finding("git", True, f"git {text}")


def _folder(repo: Repo) -> Finding:
    """Check that the memories folder exists."""
    top = repo.require_worktree("doctor")
    if os.path.isdir(os.path.join(top, MEMORIES_DIR)):
        return Finding("folder", True, f"{MEMORIES_DIR}/ exists")
    return Finding("folder", False, f"{MEMORIES_DIR}/ does not exist", "git aide init")


def _links(repo: Repo) -> list[Finding]:
    """Check that no memory folder leads out of the working tree (a committed symlink, say)."""
    top = repo.require_worktree("doctor")
    return [Finding("folder", False, message,
                    f"rm {shlex.quote(rel)} && mkdir {shlex.quote(rel)} (and commit that)")
            for rel, message in folders.problems(top)]


def _driver(repo: Repo) -> list[Finding]:
    """Check that the merge driver is configured and that git can start it."""
    value = repo.git("config", "--get", "merge.aide.driver", check=False
                     ).stdout.decode(errors="replace").strip()
    if not value:
        return [Finding("driver", False, "the merge driver is not configured in this clone "
                        "(merge.aide.driver); git falls back to a text merge", "git aide init")]
    words, program = _command(value)
    if "merge-driver" not in words:
        return [Finding("driver", False, f"merge.aide.driver is {value!r}, which is not "
                        "git-aide's merge driver", "git aide init")]
    if not (shutil.which(program) or os.access(program, os.X_OK)):
        return [Finding("driver", False, f"the merge driver runs {program}, which is not on PATH",
                        _INSTALL)]
    return [Finding("driver", True, f"merge driver configured ({value})")]


def _command(value: str) -> tuple[list[str], str]:
    """Return a configured command's words and the program git would start for it."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    program = words[0] if words else ""
    if program == "git" and len(words) > 1:
        program = f"git-{words[1]}"
    return words, program


def _textconv(repo: Repo) -> Finding:
    """Check that the textconv diff driver is configured and that git can start it."""
    value = repo.git("config", "--get", "diff.aide.textconv", check=False
                     ).stdout.decode(errors="replace").strip()
    if not value:
        return Finding("textconv", False, "the textconv diff driver is not configured in this "
                       "clone (diff.aide.textconv); git diff shows memories as raw JSON",
                       "git aide init")
    words, program = _command(value)
    if "textconv" not in words:
        return Finding("textconv", False, f"diff.aide.textconv is {value!r}, which is not "
                       "git-aide's textconv", "git aide init")
    if not (shutil.which(program) or os.access(program, os.X_OK)):
        return Finding("textconv", False, f"the textconv runs {program}, which is not on PATH",
                       _INSTALL)
    return Finding("textconv", True, f"textconv diff driver configured ({value})")


def _attribute(repo: Repo, name: str, lacking: str) -> Finding:
    """Do memory files get `name`=aide (merge, diff) from .gitattributes?"""
    out = repo.git("check-attr", name, "--", PROBE, check=False).stdout.decode(errors="replace")
    value = out.strip().rsplit(": ", 1)[-1] if out.strip() else "unspecified"
    if value == "aide":
        return Finding("attributes", True, f"memory files use {name}=aide")
    return Finding("attributes", False, f"the {name} attribute of memory files is {value!r}, "
                   f"not 'aide' (.gitattributes lacks {lacking})", "git aide init")


def _hooks(repo: Repo) -> list[Finding]:
    """Check that the hooks are installed, current and executable, and git-aide on PATH."""
    found = [Finding("hooks", False, p.message, p.fix) for p in hooks.problems(repo)]
    if not shutil.which("git-aide"):
        found.append(Finding("hooks", False, "git-aide is not on PATH, so the hooks skip it",
                             _INSTALL))
    if not found:
        found.append(Finding("hooks", True, "hooks installed: " + ", ".join(hooks.HOOKS)))
    return found


def _cache(repo: Repo) -> Finding:
    """Check that the cache can be read and written."""
    root = repo.cache_dir
    for folder in (os.path.dirname(root), root):  # `aide/`, then this Python's folder in it
        if not os.path.lexists(folder):
            return Finding("cache", True, "cache not built yet (the next command builds it)")
        if not os.path.isdir(folder) or not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
            return Finding("cache", False, f"the cache {folder} is not a folder git-aide can "
                           "read and write", f"rm -rf {shlex.quote(folder)} (it is rebuilt)")
    cache = Cache(root)
    cache.load_records()
    note = "; repaired: " + "; ".join(cache.notices) if cache.notices else ""
    return Finding("cache", True, f"cache healthy ({len(cache.metas)} entries){note}")


def _personal(repo: Repo) -> list[Finding]:
    """Check that personal memories are ignored, and none in the index."""
    out: list[Finding] = []
    ignored = repo.git("check-ignore", "-q", "--no-index", "--", _PERSONAL_PROBE, check=False)
    if ignored.returncode == 0:
        out.append(Finding("personal", True, f"{PERSONAL_DIR}/ is ignored"))
    else:
        out.append(Finding("personal", False, f"{PERSONAL_DIR}/ is not ignored, so a private "
                           "memory could be committed", "git aide init"))
    listed = repo.git("ls-files", "-z", "--", PERSONAL_DIR, check=False
                      ).stdout.decode(errors="replace").split("\0")
    tracked = [p for p in listed if p and p.rsplit("/", 1)[-1] not in (".gitignore", ".gitkeep")]
    if tracked:
        out.append(Finding("personal", False, f"{len(tracked)} personal memory file(s) are in "
                           "the index (staged or committed)",
                           f"git rm --cached -r -q -- {PERSONAL_DIR}"))
    return out


def _ignored(repo: Repo) -> Finding:
    """Do the ignore rules hide shared memory files (a `*.json` in .gitignore, say)?"""
    from git_aide.app.install import ignore_problem

    problem = ignore_problem(repo)
    if problem is None:
        return Finding("ignore", True, "shared memory files are not ignored")
    return Finding("ignore", False, problem[0], problem[1])


def user_findings() -> list[Finding]:
    """Check the user's own store (app/userstore.py): where it is, how many memories it
    holds, and whether a remote carries it to another machine; a file in it that is no
    memory, a store that is no repository, or a write left uncommitted are problems."""
    from git_aide.app import userstore

    st = userstore.status()
    where = shlex.quote(st.folder)
    if not st.exists:
        return [Finding("user", True, f"no user store yet ({st.folder}); "
                        "`git aide remember --user` starts one", note=True)]
    out = [Finding("user", True, f"user store {st.folder}: {st.memories} "
                   f"memor{'y' if st.memories == 1 else 'ies'}")]
    if not st.repository:
        out.append(Finding("user", False, f"the user store {st.folder} is not a git "
                           "repository, so its memories have no history",
                           f"git init {where} && git -C {where} add -A && "
                           f"git -C {where} commit -m 'git-aide user store'"))
        return out
    out.extend(Finding("user", False, f"in the user store: {line}",
                       "edit the file, or remove it") for line in st.broken or ())
    if st.uncommitted:
        n = len(st.uncommitted)
        out.append(Finding("user", False, f"{n} file{'s' if n > 1 else ''} of the user store "
                           "not committed", f"git -C {where} add -A && "
                           f"git -C {where} commit -m 'git-aide user store'"))
    if st.remotes:
        out.append(Finding("user", True, "the user store has a remote "
                           f"({', '.join(st.remotes)}): `git -C {where} push` carries it to "
                           "your other machines", note=True))
    else:
        out.append(Finding("user", True, "the user store has no remote: `git -C "
                           f"{where} remote add origin URL` and push, to carry it to your "
                           "other machines", note=True))
    return out


def _orphans(repo: Repo) -> Finding | None:
    """Say a word about memories whose code is gone: not a set-up problem, so not a failure."""
    from git_aide.app.audit import orphaned_count
    from git_aide.core.errors import AideError
    from git_aide.read.load import load

    try:
        n = orphaned_count(repo, load(repo, Cache(repo.cache_dir)))
    except AideError:
        return None
    if not n:
        return None
    return Finding("audit", True, f"{n} memor{'ies' if n > 1 else 'y'} with a scope that "
                   "matches no file any more: `git aide audit` lists them", note=True)
