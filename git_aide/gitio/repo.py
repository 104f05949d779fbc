"""The git boundary: find the repository, run git, list a source's blobs, read blobs, stage.

Every git process git-aide starts is started here or by gitio/spawn.py (posix_spawn, for
the questions asked before the rest is imported); pygit2 is imported only here. Hot
paths ask git through one cheap process (`rev-parse`, `cat-file --batch-check`) and
leave pygit2, which is slow to import, to the cache misses: walking trees and reading
objects straight from the object database.
"""

from __future__ import annotations

import os
import sys
import time

from git_aide.core.errors import AideError, GitError
from git_aide.core.memory import MEMORIES_DIR
from git_aide.core.settings import Settings
from git_aide.gitio.spawn import (
    CONFIG,
    REV_PARSE,
    WHERE,
    Spawned,
    one_answer,
    resolve_query,
    revision_problem,
    spawn,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Iterable
    from typing import IO

    from pygit2 import Repository

    from git_aide.gitio.spawn import Prefetch

#: The id git gives the empty tree (it knows it without having it stored).
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class Repo:
    """Hold an opened repository: its directories, and how to run git in it."""

    def __init__(self, git_dir: str, common_dir: str, index_file: str, worktree: str | None,
                 prefix: str) -> None:
        #: The repository's own git directory (per linked worktree).
        self.git_dir = git_dir
        #: The directory shared by all linked worktrees; the cache lives below it.
        self.common_dir = common_dir
        #: The index file git would use (honours GIT_INDEX_FILE).
        self.index_file = index_file
        #: The top of the working tree, or None in a bare repository.
        self.worktree = worktree
        #: The current directory relative to the top of the working tree ("" at the top).
        self.prefix = prefix
        #: The aide.* and user.* git config values, read on first use.
        self._config: dict[str, str] | None = None
        #: The aide.* settings parsed from them, on first use.
        self._settings: Settings | None = None
        #: The pygit2 repository, opened on first use.
        self._pygit: Repository | None = None
        #: A `git config` already started (spawn.early), read on first use.
        self._asked_config: Spawned | None = None
        #: Things a write should tell the user once (memories staged that .gitignore
        #: hides), said with the cache's notices (app/context.py).
        self.notices: list[str] = []

    @property
    def cache_dir(self) -> str:
        """Return `<git common dir>/aide/<interpreter>`: all derived state, shared by linked
        worktrees; one folder per Python version, since marshal's format is only promised
        within one (two virtual environments on one repository keep a cache each)."""
        return os.path.join(self.common_dir, "aide", sys.implementation.cache_tag or "python")

    @property
    def lock_path(self) -> str:
        """Return `<git common dir>/aide.lock`: the write lock, beside the cache and not in it,
        so that removing the cache (`index --rebuild`, a user's `rm -rf`) never frees it
        while a writer holds it."""
        return os.path.join(self.common_dir, "aide.lock")

    def unborn(self) -> bool:
        """Tell whether HEAD names a branch with no commit yet (a new repository)."""
        if self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).returncode == 0:
            return False
        return self.git("symbolic-ref", "-q", "HEAD", check=False).returncode == 0

    def require_worktree(self, what: str, reads: bool = False) -> str:
        """Return the working tree's top, or raise an error naming what needed it and
        what works instead: `--rev` for a read, a clone for anything else."""
        if self.worktree is None:
            instead = ("use --rev REV to read a commit" if reads else
                       f"run it in a clone that has one: git clone {self.common_dir}")
            raise AideError(f"{what} needs a working tree; this repository is bare "
                            f"({instead})")
        return self.worktree

    def git(self, *args: str, input: bytes | None = None, check: bool = True,
            cwd: str | None = None, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[bytes]:
        """Run git in this repository; raise GitError with git's message when it fails.
        `env`: variables to set for git beyond the environment."""
        import subprocess

        child = self._child_env()
        if env:
            child = {**(child or os.environ), **env}
        proc = subprocess.run(
            ["git", *args], input=input, capture_output=True,
            cwd=cwd or self.worktree or self.git_dir, env=child,
        )
        if check and proc.returncode != 0:
            msg = proc.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {msg[-1] if msg else proc.returncode}")
        return proc

    def stream(self, *args: str) -> Stream:
        """Run git in this repository, its output read as it comes (`with` it: leaving
        stops git, so a reader can stop early in a long `git log`)."""
        import subprocess

        return Stream(subprocess.Popen(["git", *args], stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL,
                                       cwd=self.worktree or self.git_dir,
                                       env=self._child_env()))

    def _child_env(self) -> dict[str, str] | None:
        # git runs from the top of the working tree: paths the user gave relative to
        # the current directory would point elsewhere there.
        env = None
        for var, value in (("GIT_DIR", self.git_dir), ("GIT_WORK_TREE", self.worktree),
                           ("GIT_INDEX_FILE", self.index_file)):
            given = os.environ.get(var)
            if given is not None and value is not None and not os.path.isabs(given):
                env = env or dict(os.environ)
                env[var] = value
        # GIT_WORK_TREE alone: git found the repository from the current directory, which
        # the top of the working tree may not lie in, so name it.
        if "GIT_WORK_TREE" in os.environ and "GIT_DIR" not in os.environ:
            env = env or dict(os.environ)
            env["GIT_DIR"] = self.git_dir
        return env

    def config(self, key: str, default: str | None = None) -> str | None:
        """Return one git config value (aide.* and user.* only; keys are case-insensitive)."""
        return self._read_config().get(key.lower(), default)

    def _read_config(self) -> dict[str, str]:
        if self._config is None:
            asked = self._asked_config or spawn(*CONFIG)
            out = asked.wait()[1] if asked is not None else b""
            self._config = {}
            for item in out.decode(errors="replace").split("\0"):
                if item:
                    k, _, v = item.partition("\n")
                    self._config[k.lower()] = v
        return self._config

    def config_origins(self) -> list[tuple[str, str, str, str]]:
        """List every aide.* value in git config with where it comes from, in the order git
        reads them (the last of a key wins): (scope, origin, key lower-cased, value), as
        `git config --show-origin --show-scope` says them; one git process."""
        proc = self.git("config", "--show-origin", "--show-scope", "-z", "--get-regexp",
                        r"^aide\.", check=False)
        if proc.returncode not in (0, 1):  # 1: no such key
            msg = proc.stderr.decode(errors="replace").strip().splitlines()
            raise GitError(f"git config failed: {msg[-1] if msg else proc.returncode}")
        items = proc.stdout.decode(errors="replace").split("\0")
        found: list[tuple[str, str, str, str]] = []
        for at in range(0, len(items) - 2, 3):
            key, _, value = items[at + 2].partition("\n")
            found.append((items[at], items[at + 1], key.lower(), value))
        return found

    def set_config(self, key: str, value: str, *, user: bool = False) -> None:
        """Set `key` in this repository's own config (`git config --local`), or in the
        user's (`--global`); read again on next use."""
        self.git("config", "--global" if user else "--local", key, value)
        self.reread_config()

    @property
    def settings(self) -> Settings:
        """Return the aide.* settings (core/settings.py), parsed once from the config."""
        if self._settings is None:
            self._settings = Settings(self._read_config())
        return self._settings

    def reread_config(self, asked: Spawned | None = None) -> None:
        """Read the config again on next use, from `asked` if given (a long-lived
        process, the MCP server, sees settings changed between its calls)."""
        self._config = None
        self._settings = None
        self._asked_config = asked

    @property
    def pygit(self) -> Repository:
        """Return the pygit2 Repository (imported here, off the hot path)."""
        if self._pygit is None:
            import pygit2

            self._pygit = pygit2.Repository(self.git_dir)
        return self._pygit

    def read_blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """Read the contents of blobs (those it finds), by id: from the object database when
        pygit2 is open already, else in one `git cat-file --batch` (importing pygit2
        costs more than that one process, however many blobs it reads)."""
        wanted = list(dict.fromkeys(b for b in ids if b))
        out: dict[str, bytes] = {}
        if not wanted:
            return out
        if self._pygit is not None:
            odb = self._pygit.odb
            for oid in wanted:
                try:
                    out[oid] = odb.read(oid)[1]
                except (KeyError, ValueError):
                    continue
            return out
        data = self.git("cat-file", "--batch", input=("\n".join(wanted) + "\n").encode()).stdout
        at = 0
        end = len(data)
        while at < end:
            nl = data.index(b"\n", at)
            head = data[at:nl].split()
            at = nl + 1
            if len(head) != 3:  # "<id> missing"
                continue
            size = int(head[2])
            out[head[0].decode()] = data[at:at + size]
            at += size + 1
        return out

    def merge_bases(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """Map (first parent, other parent) to their merge base, None when the history at hand
        has none (unrelated histories, a shallow clone)."""
        unique = list(dict.fromkeys(pairs))
        bases: dict[tuple[str, str], str | None] = {}
        if len(unique) > FEW_MERGE_BASES:
            import pygit2

            try:
                pg = self.pygit
            except (pygit2.GitError, OSError, ValueError):
                pg = None  # git itself can still answer, one process a merge
            if pg is not None:
                for a, b in unique:
                    try:
                        oid = pg.merge_base(a, b)
                    except (KeyError, ValueError, pygit2.GitError):
                        oid = None
                    bases[(a, b)] = str(oid) if oid is not None else None
                return bases
        for a, b in unique:
            proc = self.git("merge-base", a, b, check=False)
            found = proc.stdout.decode().split()
            bases[(a, b)] = found[0] if proc.returncode == 0 and found else None
        return bases

    def walk_tree(self, tree_id: str) -> list[tuple[str, str]]:
        """List (path under the memories folder, blob id) for every blob below a tree."""
        import pygit2

        out: list[tuple[str, str]] = []
        stack = [("", self.pygit[tree_id])]
        while stack:
            prefix, tree = stack.pop()
            assert isinstance(tree, pygit2.Tree)  # the tree asked for, then its subtrees
            for entry in tree:
                if entry.type_str == "tree":
                    stack.append((f"{prefix}{entry.name}/", self.pygit[entry.id]))
                elif entry.type_str == "blob" and entry.filemode != pygit2.GIT_FILEMODE_LINK:
                    out.append((f"{prefix}{entry.name}", str(entry.id)))
        return out

    def resolve(self, rev: str, asked: Spawned | None = None) -> tuple[str, str | None]:
        """Resolve any commit-ish to (commit id, tree id of the memories folder or None).

        `asked` is the same question already started (spawn.early).
        """
        check_revision(rev)
        proc = asked or spawn("cat-file", "--batch-check", input=resolve_query(rev))
        if proc is None:
            raise GitError("git is not installed or not on PATH")
        rc, out, err = proc.wait()
        if rc != 0:  # `@{u}` without an upstream, say: git stops at the first bad line
            lines = err.decode(errors="replace").strip().splitlines()
            reason = lines[-1].removeprefix("fatal: ") if lines else f"exit {rc}"
            raise AideError(f"{rev!r} names no commit ({reason})")
        answer = [line.split() for line in out.decode().splitlines()]
        while len(answer) < 3:
            answer.append([])
        named, peeled, memories = answer[:3]
        if len(peeled) == 3 and peeled[1] == "commit":
            commit = peeled[0]
        elif len(named) == 3 and named[1] == "commit":
            commit = named[0]  # `:/text`: only the revision alone resolves
            memories = self._tree_of(commit)
        else:
            raise AideError(f"{rev!r} names no commit")
        tree = memories[0] if len(memories) == 3 and memories[1] == "tree" else None
        return commit, tree

    def _tree_of(self, commit: str) -> list[str]:
        proc = spawn("cat-file", "--batch-check", input=f"{commit}:{MEMORIES_DIR}\n".encode())
        return proc.wait()[1].decode().split() if proc is not None else []

    def ls_files(self, *flags: str) -> list[tuple[str, str, int, str]]:
        """List (mode, blob id, stage, repo-relative path) of the index entries under the
        memories that `git ls-files --stage` (plus `flags`, such as -u) lists."""
        top = self.require_worktree("reading the index", reads=True)
        out = self.git("ls-files", "--stage", *flags, "-z", "--full-name", "--",
                       MEMORIES_DIR, cwd=top).stdout.decode(errors="surrogateescape")
        rows = []
        for item in out.split("\0"):
            if item:
                meta, _, path = item.partition("\t")
                mode, oid, stage = meta.split()
                rows.append((mode, oid, int(stage), path))
        return rows

    def ls_index(self) -> list[tuple[str, str, int]]:
        """List (repo-relative path, blob id, stage) of every index entry under the memories
        that is not a symbolic link."""
        self.require_worktree("--cached", reads=True)
        return [(path, oid, stage) for mode, oid, stage, path in self.ls_files()
                if mode != "120000"]

    def stage(self, add: list[str], remove: list[str]) -> bool:
        """Stage new/changed files and removals; False when the index stayed locked.

        staging.Unwritable at once when index.lock cannot be made because its folder
        cannot be written; shared memory files the ignore rules hide are staged anyway,
        and `notices` says so (gitio/staging.py)."""
        from git_aide.gitio import staging

        deadline = time.monotonic() + self.settings.index_lock_timeout
        delay = 0.02
        steps: list[tuple[str, ...]] = []
        if remove:
            steps.append(("rm", "--cached", "-q", "--ignore-unmatch", "--", *remove))
        if add:
            steps.append(("add", "--", *add))
        for step in steps:
            while True:
                # In the C locale: git's reasons are read (staging.DENIED).
                proc = self.git(*step, check=False, env={"LC_ALL": "C"})
                if proc.returncode == 0:
                    break
                err = proc.stderr.decode(errors="replace")
                if "index.lock" in err:
                    unwritable = staging.unwritable(self.index_file, err)
                    if unwritable is not None:
                        raise unwritable  # nobody holds the lock: it cannot be made
                if "index.lock" in err and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 1.5, 0.25)
                    continue
                if "index.lock" in err:
                    return False
                if step[0] == "add" and "--force" not in step:
                    found = staging.hidden(self, add)
                    if found and all(staging.forcible(h.path) for h in found):
                        self.notices.append(staging.note(self, found))
                        step = ("add", "--force", "--", *add)
                        continue
                lines = err.strip().splitlines()
                raise GitError(f"git {step[0]} failed: {lines[-1] if lines else proc.returncode}")
        return True


#: Up to this many merge bases are asked of git, one process each; beyond that, the
#: import of pygit2 (the time of some thirty git processes) pays for itself.
FEW_MERGE_BASES = 24


class Stream:
    """Read a git process's output as it comes; leaving the `with` stops it."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        #: The process.
        self.proc = proc

    def __enter__(self) -> IO[bytes]:
        """Return git's output."""
        assert self.proc.stdout is not None
        return self.proc.stdout

    def __exit__(self, *_exc: object) -> None:
        """Stop git, whether or not all was read."""
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self.proc.kill()
        self.proc.wait()


def load_reader() -> None:
    """Import pygit2 now: a long-lived process (the MCP server) pays for it before its
    first call rather than during one."""
    import pygit2  # noqa: F401


def git_version() -> str:
    """Return `git --version`'s output ("" when git cannot be started)."""
    proc = spawn("--version")
    return proc.wait()[1].decode(errors="replace") if proc is not None else ""


def check_revision(rev: str) -> str:
    """Return `rev`, or raise an error saying why it names no commit (too long, a control
    character, a leading dash), before git is asked anything about it."""
    problem = revision_problem(rev)
    if problem is not None:
        shown = rev if len(rev) <= 60 else rev[:60] + "..."
        raise AideError(f"{shown!r} names no commit ({problem})")
    return rev


def open_repo(asked: Prefetch | None = None) -> Repo:
    """Open the repository around the current directory (honours GIT_DIR and GIT_WORK_TREE).

    `asked` holds the git questions spawn.early() started, if any.
    """
    proc = (asked and asked.rev_parse) or spawn(*REV_PARSE)
    if proc is None:
        raise GitError("git is not installed or not on PATH")
    rc, stdout, stderr = proc.wait()
    if not stdout:
        raise GitError(_reason(stderr))
    answers = _where(rc, stdout)
    if answers is None:
        answers = _where_one_by_one()
    git_dir, common, inside, index, top, prefix = answers
    if git_dir is None:
        raise GitError("not a git repository")
    repo = Repo(git_dir=git_dir, common_dir=os.path.abspath(common or git_dir),
                index_file=os.path.abspath(index or os.path.join(git_dir, "index")),
                # --show-toplevel fails in a bare repository (and inside .git), and
                # succeeds with GIT_WORK_TREE even when the current directory lies
                # outside the working tree.
                worktree=top or None,
                prefix=(prefix or "").rstrip("/") if inside == "true" else "")
    repo._asked_config = asked.config if asked is not None else None
    return repo


def _where(rc: int, stdout: bytes) -> list[str | None] | None:
    """Split REV_PARSE's answers (spawn.WHERE's, in order; None for one not given), or None
    when its lines cannot be told apart.

    git ends each answer with a newline and escapes none inside a path: six answers in
    a working tree, the first four where --show-toplevel fails (a bare repository, inside
    .git). Any other count of lines means a path holding a newline (or a git that
    answers otherwise), and so does a third line that is no boolean or a git directory
    that is not one: then nothing of it is trusted.
    """
    lines = stdout.decode(errors="surrogateescape").split("\n")
    if lines.pop() != "" or len(lines) != (len(WHERE) if rc == 0 else 4):
        return None
    if lines[2] not in ("true", "false") or not os.path.isdir(lines[0]):
        return None
    return [*lines, *[None] * (len(WHERE) - len(lines))]


def _where_one_by_one() -> list[str | None]:
    """Ask spawn.WHERE's questions one a process (all started at once): each answer
    is then all of its output, whatever its path holds. None for a question git refused
    (--show-toplevel outside a working tree); an error when it finds no repository."""
    procs = [spawn("rev-parse", *question) for question in WHERE]
    answers: list[str | None] = []
    for i, proc in enumerate(procs):
        if proc is None:
            raise GitError("git is not installed or not on PATH")
        rc, out, err = proc.wait()
        if rc != 0 and i == 0:
            raise GitError(_reason(err))
        answers.append(one_answer(out) if rc == 0 else None)
    return answers


def _reason(stderr: bytes) -> str:
    """Say why git found no repository, from its stderr."""
    err = stderr.decode(errors="replace").strip().splitlines()
    return err[-1].removeprefix("fatal: ") if err else "not a git repository"


def set_user_config(key: str, value: str) -> None:
    """Set a key in the user's git config (`git config --global`), as `semantic fetch`
    does for the model it got: a model serves every repository of its user."""
    proc = spawn("config", "--global", key, value)
    code, _out, err = proc.wait() if proc is not None else (127, b"", b"git not found")
    if code:
        msg = err.decode(errors="replace").strip().splitlines()
        raise AideError(f"git config --global {key} failed: {msg[-1] if msg else code}")
