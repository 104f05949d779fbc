"""Whether the git config a long-lived process read is still what git would read, told
by the stat of every file git reads it from (ConfigFiles): the repository's and the
worktree's config, the global and system ones, every file an entry came from (includes)
and every include's target, and HEAD (an `includeIf "onbranch:..."` follows it). A file
changed within RACY_SECONDS of its stat is not trusted: its config is read again on the
next call, as git treats a racily clean index entry.
"""

from __future__ import annotations

import os
import time

from git_aide.core.files import stat_sig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Spawned

#: A file whose stat is younger than this (seconds) may change again without its stat
#: changing (the file system's timestamp granularity): it vouches for nothing yet.
RACY_SECONDS = 2.0
#: Every config entry with the file it came from: the files to stat.
ORIGINS = ("config", "--list", "--show-origin", "-z")


def config_files(repo: Repo) -> list[str]:
    """Return the files git reads the config from wherever it has no entries yet (then
    `origins` names the others), and HEAD."""
    env = os.environ
    home = os.path.expanduser("~")
    out = [os.path.join(repo.common_dir, "config"),
           os.path.join(repo.git_dir, "config.worktree"),
           os.path.join(repo.git_dir, "HEAD"),
           env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"]
    given = env.get("GIT_CONFIG_GLOBAL")
    if given:
        out.append(given)
    else:
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        out += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    return [os.path.abspath(p) for p in out]


def origins(out: bytes) -> set[str]:
    """Return the files `git config --list --show-origin -z` read (relative to the current
    directory, as git names them), and the targets of their includes."""
    found: set[str] = set()
    items = out.split(b"\0")
    for origin, entry in zip(items[::2], items[1::2], strict=False):
        kind, _, where = os.fsdecode(origin).partition(":")
        if kind != "file" or not where:
            continue
        where = os.path.abspath(where)
        found.add(where)
        key, _, value = os.fsdecode(entry).partition("\n")
        key = key.lower()
        if value and (key == "include.path"
                      or (key.startswith("includeif.") and key.endswith(".path"))):
            target = os.path.expanduser(value)
            found.add(os.path.join(os.path.dirname(where), target))
    return found


class ConfigFiles:
    """Hold the stat of the files a repository's config was last read from."""

    def __init__(self) -> None:
        #: Files besides config_files() that the config came from (includes).
        self.more: set[str] = set()
        #: Their stat when the config was last read; None: read it again.
        self.sig: tuple[Any, ...] | None = None
        #: The files to stat, sorted, and what they were worked out from (the
        #: repository's folders, the current directory, the environment's settings):
        #: worked out again only when one of these changes, not at every call.
        self._names: tuple[tuple[Any, ...], list[str]] | None = None

    def current(self, repo: Repo) -> tuple[Any, ...] | None:
        """Return the files' stat now; None when one changed too lately to be trusted."""
        env = os.environ
        key = (repo.common_dir, repo.git_dir, os.getcwd(), len(self.more),
               *map(env.get, ("GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME",
                              "HOME")))
        if self._names is None or self._names[0] != key:
            # (self.more only grows: its size tells it changed.)
            self._names = (key, sorted(set(config_files(repo)) | self.more))
        names = self._names[1]
        sigs = tuple(stat_sig(n) for n in names)
        now = time.time()
        if any(s is not None and now - max(s[1], s[3]) / 1e9 < RACY_SECONDS for s in sigs):
            return None
        return (tuple(names), sigs)

    def unchanged(self, repo: Repo) -> bool:
        """Tell whether the config read last is still what git would read."""
        return self.sig is not None and self.current(repo) == self.sig

    def read(self, repo: Repo) -> None:
        """Read the config again (on the repository's next use of it), and stat its files
        first, so that a change made meanwhile is seen next time."""
        from git_aide.gitio.spawn import CONFIG, spawn

        sig = self.current(repo)
        asked = spawn(*ORIGINS)
        repo.reread_config(spawn(*CONFIG))
        self.sig = sig
        self._learn(asked)

    def _learn(self, asked: Spawned | None) -> None:
        """Take the files the config came from; a file not statted before makes the
        next call read the config again (it is statted then)."""
        found = origins(asked.wait()[1]) if asked is not None else set()
        known = set(self.sig[0]) if self.sig is not None else set()
        if not found <= known:
            self.more |= found
            self.sig = None
