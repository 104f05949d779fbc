"""What a warm server's answers depend on, so that it need not ask or work them out again.

A reading tool's answer on the working tree depends on: the memory files (the index
and the files that differ from it; agents/watch.py's generation changes whenever the
kernel reports anything under the memories folder, or git is asked again), the git
config (the aide.* and user.* settings), the full-text index on disk (for a search or
a question), and the call's arguments (with its paths as the tree has them now: a path
may have become a folder). While none of these changed, the server gives an identical
call's answer again, and does not spawn git to read its config.

The config is vouched for by the stat of every file git reads it from: the repository's
and the worktree's config, the global and system ones, every file an entry came from
(includes) and every include's target, and HEAD (an `includeIf "onbranch:..."` follows
it). A file changed within RACY_SECONDS of its stat is not trusted: its config is read
again on the next call, as git treats a racily clean index entry.
"""

from __future__ import annotations

import json
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
#: Answers kept for one state: the identical calls an agent repeats, a few files each.
KEPT_ANSWERS = 64


def config_files(repo: Repo) -> list[str]:
    """The files git reads the config from wherever it has no entries yet (then
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
    """The files `git config --list --show-origin -z` read (relative to the current
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
    """The stat of the files a repository's config was last read from."""

    def __init__(self) -> None:
        #: Files besides config_files() that the config came from (includes).
        self.more: set[str] = set()
        #: Their stat when the config was last read; None: read it again.
        self.sig: tuple[Any, ...] | None = None

    def current(self, repo: Repo) -> tuple[Any, ...] | None:
        """The files' stat now; None when one changed too lately to be trusted."""
        names = sorted(set(config_files(repo)) | self.more)
        sigs = tuple(stat_sig(n) for n in names)
        now = time.time()
        if any(s is not None and now - max(s[1], s[3]) / 1e9 < RACY_SECONDS for s in sigs):
            return None
        return (tuple(names), sigs)

    def unchanged(self, repo: Repo) -> bool:
        """Whether the config read last is still what git would read."""
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


class Answers:
    """The reading tools' answers of one state of the memories, config and index."""

    def __init__(self) -> None:
        self._state: Any = None
        self._kept: dict[Any, Any] = {}

    def get(self, state: Any, key: Any) -> Any:
        """The answer kept for `key` in this state, or None (a new state forgets the
        answers of the last)."""
        if state is None or state != self._state:
            self.enter(state)
            return None
        return self._kept.get(key)

    def enter(self, state: Any) -> Any:
        """Make `state` the current one (the answers of another are forgotten)."""
        if state != self._state:
            self._kept.clear()
            self._state = state
        return state

    def put(self, state: Any, key: Any, answer: Any) -> None:
        """Keep an answer worked out in `state` (which must still hold when it ends)."""
        if state is None or state != self._state:
            return
        while len(self._kept) >= KEPT_ANSWERS:
            self._kept.pop(next(iter(self._kept)))
        self._kept[key] = answer

    def clear(self) -> None:
        """Forget every answer (a tool wrote)."""
        self._kept.clear()
        self._state = None


def call_key(name: str, arguments: dict[str, Any], *more: Any) -> Any:
    """What identifies a call: its tool, its checked arguments, and `more`."""
    return (name, json.dumps(arguments, sort_keys=True, default=str), more)
