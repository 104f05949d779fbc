"""The rules files `export` wrote, kept in step with the memories (docs/export-and-stats.md;
man page, aide.export.auto and aide.export.check).

- `refresh`: after a write, with aide.export.auto, the files of the agents exported to
  already (an always-read file holding a git-aide block, or git-aide rule files in a
  rules folder) are exported again, and staged as the memory was: only the block goes
  into the index, so what a person changed around it and has not staged stays
  unstaged. No agent is exported to for the first time, and no always-read file is
  made.
- `stale_staged`: `export --check --staged`, the pre-commit hook's check: whether the
  files as staged say what the staged memories would have them say (the blocks compared,
  not what a person wrote around them).

A file that is not tracked is refreshed in the working tree and not staged, and not
checked by `--staged` (the commit does not hold it); a new rule file in a rules folder
is staged when export's other rule files there are tracked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from git_aide.agents.rules import export as ex
from git_aide.agents.rules.blocksplice import block_of, with_block_of
from git_aide.agents.rules.rulefiles import whole_file
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo


@dataclass
class Refreshed:
    """Record what a refresh did: (path, what happened, staged) per file it changed."""

    files: list[tuple[str, str, bool]] = field(default_factory=list)
    #: What the user should know (a file refreshed but not staged, a refresh refused).
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """Return one line per file: `updated CLAUDE.md (staged)`."""
        return [f"{state} {path} ({'staged' if staged else 'not staged'})"
                for path, state, staged in self.files]


def refresh(repo: Repo, cache: Cache, *, stage: bool) -> Refreshed:
    """Export again for the agents exported to already; stage what changed when
    `stage`. Under the write lock, so that two writers' refreshes leave the last
    state of the memories. A refresh that cannot be made is a warning: the memory was
    written all the same."""
    from git_aide.app.store import write_lock
    from git_aide.core.files import write_atomic

    out = Refreshed()
    why: dict[str, str] = {}  # the files not staged, and why
    top = repo.worktree
    if top is None:
        return out
    try:
        agents = ex.exported_agents(top)
        if not agents:
            return out
        with write_lock(repo):
            planned, _notes = ex.changes(repo, cache, agents,
                                         max_chars=ex.max_chars_of(repo, None))
            changed = [c for c in planned if c[1] != c[2]]
            for _path, data, _current, full in changed:
                if data is None:
                    os.unlink(full)
                else:
                    write_atomic(full, data)
            if changed:
                staged, why = _stage(repo, top, changed) if stage else (set(), {})
                for path, data, current, _full in changed:
                    state = "removed" if data is None else (
                        "created" if current is None else "updated")
                    out.files.append((path, state, path in staged))
    except (AideError, OSError) as e:
        out.warnings.append(f"aide.export.auto: the rules files were not refreshed ({e}); "
                            "run `git aide export`")
        return out
    for reason in dict.fromkeys(why.values()):
        paths = [p for p, r in why.items() if r == reason]
        out.warnings.append(f"aide.export.auto: {', '.join(paths)} refreshed, not staged: "
                            f"{reason}")
    return out


def _stage(repo: Repo, top: str, changed: list[tuple[str, bytes | None, bytes | None, str]]
           ) -> tuple[set[str], dict[str, str]]:
    """Stage the changed files that git tracks: a rule file export writes whole, whole;
    an always-read file's block alone, into the index's version. (The paths staged, and
    why each of the others that should have been was not.)"""
    from git_aide.gitio import staging

    real = os.path.realpath(top)
    # A link (CLAUDE.md -> AGENTS.md) was written through: its target is what is staged.
    where = {path: os.path.relpath(os.path.realpath(full), real).replace(os.sep, "/")
             for path, _d, _c, full in changed}
    folders = sorted({p.rpartition("/")[0] for p in where.values() if whole_file(p)})
    index = staging.index_entries(repo, [*where.values(), *folders])
    tracked_folders = {f for f in folders
                       if any(p.startswith(f + "/") and whole_file(p) for p in index)}
    add: list[str] = []
    remove: list[str] = []
    blobs: dict[str, tuple[str, bytes]] = {}
    why: dict[str, str] = {}  # by target
    for path, data, current, _full in changed:
        target = where[path]
        entry = index.get(target)
        if whole_file(target):
            if data is None:
                if entry is not None:
                    remove.append(target)
            elif entry is not None or target.rpartition("/")[0] in tracked_folders:
                add.append(target)
            else:
                why[target] = "not tracked"
            continue
        if entry is None or data is None:
            why[target] = "not tracked"
            continue
        mode, oid = entry
        old = repo.read_blobs([oid]).get(oid)
        if old == current:
            add.append(target)  # nothing unstaged in it: the file as written
        else:
            try:
                blobs[target] = (mode, with_block_of(target, old or b"", data))
            except (AideError, UnicodeDecodeError):
                why[target] = "its staged version holds no single git-aide block to replace"
    locked = "another git process held the index"
    if (add or remove) and not repo.stage(add=add, remove=remove):
        why.update(dict.fromkeys(add + remove, locked))
    for target, (mode, data) in blobs.items():
        if not staging.stage_blob(repo, target, data, mode):
            why[target] = locked
    staged = {p for p, t in where.items() if t not in why and (t in add or t in remove
                                                               or t in blobs)}
    return staged, {p: why[t] for p, t in where.items() if t in why}


def stale_staged(repo: Repo, cache: Cache, agents: list[str], max_chars: int | None
                 ) -> list[tuple[str, str]]:
    """Return the staged rules files that an export for `agents` of the staged memories would
    change: [(path, "out of date" | "missing" | "stale")]. A file git does not track is not
    checked (the commit does not hold it), nor is a new rule file in a rules folder
    where git tracks none of export's."""
    from git_aide.gitio import staging

    top = repo.require_worktree("export --check --staged")
    planned, _notes = ex.changes(repo, cache, agents, max_chars=max_chars, cached=True)
    real = os.path.realpath(top)
    where = {path: os.path.relpath(os.path.realpath(full), real).replace(os.sep, "/")
             if data is not None else path for path, data, _c, full in planned}
    folders = sorted({p.rpartition("/")[0] for p in where.values() if whole_file(p)})
    index = staging.index_entries(repo, [*where.values(), *folders])
    blobs = repo.read_blobs(oid for _mode, oid in index.values())
    out: list[tuple[str, str]] = []
    for path, data, _current, _full in planned:
        target = where[path]
        entry = index.get(target)
        staged = blobs.get(entry[1]) if entry is not None else None
        if whole_file(target):
            if data is None:
                if staged is not None:
                    out.append((path, "stale"))
            elif staged is None:
                folder = target.rpartition("/")[0] + "/"
                if any(p.startswith(folder) and whole_file(p) for p in index):
                    out.append((path, "missing"))
            elif staged != data:
                out.append((path, "out of date"))
            continue
        if staged is None or data is None:
            continue
        want = block_of(data.decode("utf-8", "replace"))
        if block_of(staged.decode("utf-8", "replace")) != want:
            out.append((path, "out of date"))
    return out
