"""audit: memories that the code left behind (docs/audit.md).

Four findings: `orphaned` (the scope matches nothing), `moved` (what it matched was
renamed, with the scope rewritten when one matches the moved files and nothing that was
already there), `duplicate` (nearly the same words in one layer) and `stale` (the code
under it changed many times since it was written). The cost is one listing of the
source's paths and one walk of the history since the oldest memory, whatever the number
of memories: every question is asked of those two.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from git_aide.core import controls
from git_aide.core import scope as scopes
from git_aide.gitio import pathlog
from git_aide.gitio.repo import Repo
from git_aide.rank import duplicates
from git_aide.rank.memo import RankMemo
from git_aide.read.record import Entry
from git_aide.read.snapshot import Snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from git_aide.app.semantic import Semantic
    from git_aide.core.settings import Settings


@dataclass
class Finding:
    """Hold one thing `audit` found about one memory."""

    #: The memory's uuid.
    uuid: str
    #: Its file, repo-relative.
    path: str
    #: `orphaned`, `moved`, `duplicate` or `stale`.
    kind: str
    #: What was found.
    message: str
    #: What to do about it.
    todo: str
    #: The rewritten scope of a `moved` finding; None when no scope names just the
    #: moved files (then the finding says so and `--fix` leaves the memory alone).
    scope: str | None = None
    #: The other memory of a `duplicate` finding (the one to keep).
    other: str | None = None
    #: The area of the code the memory is about (places.py: `packages/web`, "" the top
    #: folder), which `audit`'s summary counts findings by.
    area: str = ""
    #: When the memory was last written (its `updated_at`), for the summary's oldest.
    written: str = ""

    def line(self) -> str:
        """Return the finding as `<uuid8> <kind>: <message> (<what to do>)`."""
        return f"{self.uuid[:8]} {self.kind}: {self.message} ({self.todo})"

    def as_json(self) -> dict[str, Any]:
        """Return the finding as `audit --json` lists it."""
        return {"uuid": self.uuid, "path": self.path, "kind": self.kind,
                "message": self.message,
                "suggestion": {"scope": self.scope} if self.scope is not None else None,
                "other": self.other, "area": self.area, "updated_at": self.written}


# -- paths --------------------------------------------------------------------------------


class Paths:
    """Hold the source's code paths (memories excluded), sorted, with range look-ups by folder."""

    def __init__(self, paths: list[str], worktree: str | None, untracked: bool = False
                 ) -> None:
        #: Every path, sorted.
        self.paths = sorted(p for p in paths if not p.startswith(".aide/"))
        #: The whole set, for membership.
        self.set = frozenset(self.paths)
        #: The working tree, to see folders that hold only untracked or ignored files.
        self.worktree = worktree
        #: Whether some are new files, not yet added (which may be renamed ones).
        self.untracked = untracked

    def under(self, base: str) -> list[str]:
        """Return the paths equal to `base` or below it ("" is everything)."""
        if not base:
            return self.paths
        lo = bisect.bisect_left(self.paths, base)
        hi = bisect.bisect_left(self.paths, base + "/\uffff")
        return self.paths[lo:hi]

    def matched(self, c: scopes.Compiled) -> list[str]:
        """Return the paths a scope matches."""
        out: set[str] = set()
        for base in set(c.bases):
            out.update(p for p in self.under(base) if scopes.relevant(c, p, False))
        return sorted(out)

    def matches_any(self, c: scopes.Compiled) -> bool:
        """Tell whether a scope matches at least one path (stops at the first)."""
        for base, rx in zip(c.bases, c.regexes, strict=True):
            if not rx:  # a plain path: the path itself, or one under it
                if (not base and self.paths) or base in self.set:
                    return True
                at = bisect.bisect_left(self.paths, base + "/")
                if base and at < len(self.paths) and self.paths[at].startswith(base + "/"):
                    return True
            # A glob's regex holds its leading folders: `under` only narrows the run.
            elif any(map(re.compile(rx).match, self.under(base))):
                return True
        return False

    def names_directory(self, c: scopes.Compiled) -> bool:
        """Tell whether a plain scope names a folder that exists (an empty one, on disk)."""
        for base, rx in zip(c.bases, c.regexes, strict=True):
            if base and not rx and self.worktree is not None and os.path.isdir(
                    os.path.join(self.worktree, base)):
                return True
        return False


def source_paths(repo: Repo, snap: Snapshot) -> Paths:
    """Return every code path of the source: a commit's tree, the index, or (the working
    tree) the files on disk that the index tracks or that are new and not ignored."""
    kind = snap.source.kind
    if kind == "rev":
        commit = snap.source.commit
        if commit is None:  # a branch with no commit yet: its tree holds nothing
            return Paths([], None)
        out = repo.git("ls-tree", "-r", "-z", "--name-only", "--full-tree", commit).stdout
        names = out.decode(errors="surrogateescape").split("\0")
        return Paths(list(dict.fromkeys(n for n in names if n)), None)
    top = repo.require_worktree("audit", reads=True)
    if kind == "index":
        out = repo.git("ls-files", "-z", "--full-name", "--cached", cwd=top).stdout
        names = out.decode(errors="surrogateescape").split("\0")
        return Paths(list(dict.fromkeys(n for n in names if n)), None)
    return worktree_paths(repo, top)


def worktree_paths(repo: Repo, top: str) -> Paths:
    """Return the working tree's code paths: the files on disk that the index tracks or that
    are new and not ignored (also what `remember --scope` checks a new scope against)."""
    # One listing, tagged: a file deleted from disk but still in the index comes once
    # as tracked (H) and once as removed (R); it is not in the working tree.
    out = repo.git("ls-files", "-z", "-t", "--full-name", "--cached", "--deleted",
                   "--others", "--exclude-standard", cwd=top).stdout
    tagged = [t.decode(errors="surrogateescape") for t in out.split(b"\0") if t]
    gone = {t[2:] for t in tagged if t[0] == "R"}
    return Paths(list(dict.fromkeys(t[2:] for t in tagged if t[2:] not in gone)), top,
                 untracked=any(t[0] == "?" for t in tagged))


# -- the audit ----------------------------------------------------------------------------


def audit(repo: Repo, snap: Snapshot, entries: list[Entry], settings: Settings,
          now: datetime | None = None,
          alike: Sequence[tuple[Entry, Entry, float]] = (), *,
          paths: Paths | None = None, walk: pathlog.Walk | None = None,
          duplicates: bool = True) -> list[Finding]:
    """Return every finding about `entries` (memories of `snap`), in uuid order per kind.
    `alike`: (older, newer, cosine) of the pairs a model finds alike (semantic.py);
    `paths`, `walk`: the source's paths and the walk of its history back to the
    memories' writes, when the caller has them (source_paths, pathlog.walk);
    `duplicates`: whether to look for near duplicates (`map` does not)."""
    from git_aide.app.places import area, place

    if paths is None:
        paths = source_paths(repo, snap)
    if walk is None:
        walk = pathlog.walk(repo, snap.source.kind, snap.source.commit,
                            [e.path for e in entries], paths.untracked)
    when = now or walk.source_time or datetime.now(timezone.utc)
    findings: list[Finding] = []
    any_match: dict[str, bool] = {}  # per scope text
    churn: dict[tuple[int, str], int] = {}  # commits touching a scope, per (since, scope)
    for e in entries:
        c = e.compiled
        if c is None:
            continue
        key = e.scope or ""
        got = any_match.get(key)
        if got is None:
            got = any_match[key] = paths.matches_any(c)
        since = walk.written.get(e.path)
        moved = _moved(e, c, paths, walk, since)
        found: Finding | None = None
        if moved is not None:
            found = moved
        elif not got and (not paths.names_directory(c) or (
                # The folder is still there, but only because of what git does not
                # track (a cache, build output): what the scope matched was deleted.
                since is not None and walk.deleted_after(since, c))):
            found = Finding(
                e.uuid, e.path, "orphaned", f"scope {e.scope} matches no file",
                "the code it was about is gone: update its scope or forget it")
        elif got and since is not None:
            found = _stale(e, c, walk, since, settings, when, churn)
        if found is not None:
            found.area, found.written = area(place(c, paths.set)), e.updated_at
            findings.append(found)
    if duplicates:
        by_uuid = {e.uuid: e for e in entries}
        for f in _duplicates(entries, settings.audit_duplicate_threshold, alike):
            e = by_uuid[f.uuid]
            f.area, f.written = area(place(e.compiled, paths.set)), e.updated_at
            findings.append(f)
    order = {"moved": 0, "orphaned": 1, "duplicate": 2, "stale": 3}
    findings.sort(key=lambda f: (order[f.kind], f.path))
    return findings


def _moved(e: Entry, c: scopes.Compiled, paths: Paths, walk: pathlog.Walk,
           since: int | None) -> Finding | None:
    """Return a `moved` finding when most of what the scope matched then was renamed away."""
    if since is None:
        return None
    renamed = [(old, new) for old, new in walk.renames_after(since, c)
               if new in paths.set and not scopes.relevant(c, new, False)]
    if not renamed:
        return None
    added = walk.added_after(since)
    # A file renamed twice counts once: its later rename starts from a path it was
    # itself renamed to.
    renamed = [(old, new) for old, new in renamed if old not in added]
    if not renamed:
        return None
    gone = walk.deleted_after(since, c)
    now_matched = paths.matched(c)  # only asked of a scope some of whose files moved
    then = len([p for p in now_matched if p not in added]) + len(renamed) + len(gone)
    if len(renamed) * 2 <= then:
        return None
    scope = scopes.normalize(e.scope or "")
    file = scopes.literal(scope)
    exact = [(old, new) for old, new in renamed if old == file]
    if exact:
        # A one-file scope follows its file, however often it was renamed.
        old_place, new_place = exact[0]
        rewritten = scopes.escape_path(new_place)
        where = f"from {old_place} to {new_place}"
    else:
        votes = Counter(_prefix_pair(old, new) for old, new in renamed).most_common()
        (old_place, new_place), count = votes[0]
        where = f"from {old_place or 'the top folder'} to {new_place or 'the top folder'}"
        most = count * 2 > len(renamed)
        rewritten = _rewrite(scope, old_place, new_place) if most else None
        if rewritten is None and "{" in scope:
            rewritten, each = _rewrite_each(scope, [pair for pair, _ in votes])
            where = each or where
        if rewritten is None and not most:
            return None  # scattered, not moved to one place
    n = len(renamed)
    moved = f"{n} file{'s' if n > 1 else ''} it matched moved {where}"
    if rewritten is None or not _safe(rewritten, scope, c, renamed, paths,
                                      walk.added_after(since)):
        # A rewrite that also matched other code would attach the memory to it: the
        # finding says what moved and leaves the new scope to a person.
        return Finding(e.uuid, e.path, "moved",
                       f"{moved}; no rewrite of scope {e.scope} matches "
                       f"{'them' if n > 1 else 'it'} and nothing else",
                       f"give it a scope by hand: `git aide update {e.uuid[:8]} --scope GLOB`")
    return Finding(e.uuid, e.path, "moved", f"{moved}: scope {e.scope} -> {rewritten}",
                   "run `git aide audit --fix` to rewrite the scope", scope=rewritten)


def _safe(rewritten: str, scope: str, c: scopes.Compiled,
          renamed: list[tuple[str, str]], paths: Paths, added: frozenset[str]) -> bool:
    """Tell whether a rewritten scope is safe to apply: valid, matching most of the moved
    files where they are now, and taking in no file that was already there outside the old
    scope (`src/a*/**` for a folder renamed to `src/a*` would take in `src/abc/`)."""
    if scopes.check_new(rewritten) or controls.find(rewritten):
        return False
    was = set(scopes.expand_braces(scope))
    # A changed alternative that is a bare glob name (`*.ts`, `**`) matches at any depth:
    # what moved into the top folder would bring the whole tree with it.
    if not all(scopes.anchored(alt) for alt in scopes.expand_braces(rewritten)
               if alt not in was):
        return False
    new_c = scopes.compile_scope(rewritten)
    hits = sum(1 for _, new in renamed if scopes.relevant(new_c, new, False))
    if hits * 2 <= len(renamed):
        return False
    return all(p in added or scopes.relevant(c, p, False) for p in paths.matched(new_c))


def _prefix_pair(old: str, new: str) -> tuple[str, str]:
    """Return what a rename changed: the leading folders before the part both paths share
    ("" is the top folder)."""
    a, b = old.split("/"), new.split("/")
    same = 0
    while same < min(len(a), len(b)) and a[-1 - same] == b[-1 - same]:
        same += 1
    if same == 0 and len(a) > 1 and len(b) > 1 and a[:-1] != b[:-1]:
        # Renamed and moved at once: the folders still say where it went.
        return "/".join(a[:-1]), "/".join(b[:-1])
    if same == 0:
        return old, new
    return "/".join(a[: len(a) - same]), "/".join(b[: len(b) - same])


def _rewrite(scope: str, old_place: str, new_place: str) -> str | None:
    """Return the scope with its leading `old_place` replaced by `new_place`, if it has one
    (spelt literally: `src/a[*]/**` starts with `src/a*`); the new place written so that
    its glob characters are characters (`src/a*` -> `src/a[*]`)."""
    new = scopes.escape_path(new_place)
    if new is None:
        return None
    if not old_place:  # moved down from the top folder
        rest = scope
    else:
        # `src/{a,b}/**` starts with `src`; alternatives that start apart are
        # rewritten one by one (`_rewrite_each`).
        at = scopes.literal_prefix(scope, old_place)
        if at is None:
            return None
        rest = scope[at:].lstrip("/")
    return f"{new}/{rest}" if new and rest else new or rest or None


def _rewrite_each(scope: str, places: list[tuple[str, str]]) -> tuple[str | None, str]:
    """Rewrite a brace scope whose alternatives moved to different places, each by the first
    (most voted) place it lies in, as `{a,b}`; return it and what moved."""
    alts: list[str] = []
    used: list[str] = []
    for alt in scopes.expand_braces(scope):
        for old_place, new_place in places:
            new = _rewrite(alt, old_place, new_place) if old_place else None
            if new is not None:
                alts.append(new)
                used.append(f"{old_place} to {new_place or 'the top folder'}")
                break
        else:
            alts.append(alt)
    if not used:
        return None, ""
    return scopes.join_alternatives(alts), "from " + " and ".join(dict.fromkeys(used))


def _stale(e: Entry, c: scopes.Compiled, walk: pathlog.Walk, since: int,
           settings: Settings, now: datetime, churn: dict[tuple[int, str], int]
           ) -> Finding | None:
    """Return a `stale` finding: old, and the code under it changed in many commits since.
    `churn`: the commits counted per (since, scope), as most memories share both."""
    written = _time(e.updated_at)
    if written is None:
        return None
    days = (now - written).days
    if days < settings.audit_stale_days:  # whole days, so any setting compares without overflow
        return None
    key = (since, e.scope or "")
    commits = churn.get(key)
    if commits is None:
        commits = churn[key] = walk.commits_touching(since, c)
    if commits < settings.audit_churn_commits:
        return None
    return Finding(e.uuid, e.path, "stale",
                   f"the code under {e.scope} changed in {commits} commits since it was "
                   f"written {days} days ago", "re-read it against the code; update or forget it")


#: A time as git-aide writes it (`2024-01-31T09:30:00.000Z`), read the fast way.
_WRITTEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z")


def _time(text: str) -> datetime | None:
    """Parse a record's time (`%Y-%m-%dT%H:%M:%S.%fZ`), or return None when it is not one."""
    try:
        if _WRITTEN.fullmatch(text):  # as strptime reads it, at a tenth of the cost
            return datetime.fromisoformat(text[:-1] + "+00:00")
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def _duplicates(entries: list[Entry], threshold: float,
                alike: Sequence[tuple[Entry, Entry, float]] = ()) -> list[Finding]:
    """Return the older memory of each near-duplicate pair, naming the newer one.

    Advice that deletes knowledge must be sure: `forget` is advised only when the two
    say the same words, every value and name included (`is X` and `is Y`, `trigger` and
    `batch trigger` are different facts); otherwise the two are to be compared."""
    out = []
    for o, n, sim in duplicates.pairs(entries, threshold, RankMemo()):
        if _same_words(o.read_what(), n.read_what()):
            fix = f"forget it: `git aide forget {o.uuid[:8]}`"
        else:
            fix = (f"compare them (`git aide show {o.uuid[:8]}`, `git aide show "
                   f"{n.uuid[:8]}`); forget one only if they say the same thing")
        out.append(Finding(o.uuid, o.path, "duplicate",
                           f"says nearly what {n.uuid[:8]} says ({round(sim * 100)}% the "
                           f"same words, both {o.layer})", fix, other=n.uuid))
    # By meaning (a model is configured): only what words did not already pair, and
    # never with advice to forget unless the words are the same.
    told = {f.uuid for f in out}
    if threshold > 0:
        for o, n, cos in alike:
            if o.uuid in told:
                continue
            told.add(o.uuid)
            same = _same_words(o.read_what(), n.read_what())
            fix = (f"forget it: `git aide forget {o.uuid[:8]}`" if same
                   else f"compare them (`git aide show {o.uuid[:8]}`, `git aide show "
                        f"{n.uuid[:8]}`); forget one only if they say the same thing")
            out.append(Finding(o.uuid, o.path, "duplicate",
                               f"says by meaning nearly what {n.uuid[:8]} says (cosine "
                               f"{cos:.2f}, both {o.layer})", fix, other=n.uuid))
    return out


def _same_words(a: str, b: str) -> bool:
    """Tell whether two texts hold the same words, every one counted (one letter, a
    number, a filler word): what they differ in is only order, case and punctuation."""
    from git_aide.core.words import every_word

    return every_word(a) == every_word(b)


def orphaned_count(repo: Repo, snap: Snapshot) -> int:
    """Count the scoped memories that match no path (for `doctor`): one listing, no history."""
    paths = source_paths(repo, snap)
    seen: dict[str, bool] = {}
    n = 0
    for e in snap.entries:
        c = e.compiled
        if c is None:
            continue
        key = e.scope or ""
        if key not in seen:
            seen[key] = paths.matches_any(c) or paths.names_directory(c)
        n += not seen[key]
    return n


def run(repo: Repo, snap: Snapshot, paths: list[str], semantic: Semantic | None = None
        ) -> tuple[list[Finding], int]:
    """Run `git aide audit`: return the findings about the memories relevant to `paths`
    (all when none) and how many memories were audited. Nothing is written: `--fix` is the
    command's, through the write use case (`fixes`, then app/store.py's update).
    `semantic`: the model's state, whose near duplicates by meaning count too."""
    from git_aide.rank.selection import query_paths, scope_filter

    entries = snap.entries
    if paths:
        queries = query_paths(repo.worktree, repo.prefix, paths)
        keep = scope_filter(queries, 0)
        entries = [e for e in entries if keep(e.compiled)]
    alike: list[tuple[Entry, Entry, float]] = []
    if semantic is not None and semantic.configured and semantic.ready():
        from git_aide.app.hybrid import similar_pairs

        alike = similar_pairs(semantic, entries)
    return audit(repo, snap, entries, repo.settings, alike=alike), len(entries)


def fixes(snap: Snapshot, findings: list[Finding]) -> list[tuple[str, str, str]]:
    """Return what `audit --fix` rewrites: (uuid, old scope, new scope) of every `moved`
    finding that has a safe new scope."""
    old = {e.uuid: e.scope for e in snap.entries}
    return [(f.uuid, old.get(f.uuid) or "", f.scope) for f in findings
            if f.kind == "moved" and f.scope is not None]
