"""The candidates of a recall (docs/ranking.md): the query paths (`query_paths`), the
filters, which scopes may be relevant to the paths (`scope_filter`), and the memories
selected as hits (`select`), each with its scope distance to the nearest path. recall.py
ranks them.
"""

from __future__ import annotations

import math
import os
from itertools import groupby
from operator import attrgetter

from git_aide.core import scope as scopes
from git_aide.core.errors import AideError
from git_aide.rank.mentions import mention_finder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from git_aide.read.record import Entry

#: An entry's compiled scope (None: project-wide).
_COMPILED = attrgetter("compiled")
#: Where a memory that only names the path in its text stands, as a scope distance:
#: after the file's own directory, before its grandparent's rules.
MENTION_DISTANCE = 1.5
#: Where a memory found only by the query file's name (its stem: `throttling` for
#: `src/throttling.py`) in its scope or text stands: no specificity at all, so it
#: ranks by the path's words it holds, like a project-wide memory.
TOPIC_DISTANCE = float("inf")
#: Where a strong --query match from outside the path's scopes stands: no
#: specificity at all, so it ranks by its relevance alone, below the path's own notes
#: that match as well.
ELSEWHERE_DISTANCE = float("inf")


class Query:
    """Hold one repo-relative query path."""

    __slots__ = ("path", "is_dir")

    def __init__(self, path: str, is_dir: bool) -> None:
        #: Repo-relative path, "" for the root.
        self.path = path
        #: Whether it names a directory.
        self.is_dir = is_dir


class Filters:
    """Hold what narrows a listing besides paths."""

    __slots__ = ("layers", "tags", "contributor")

    def __init__(self, layers: tuple[str, ...] = (), tags: tuple[str, ...] = (),
                 contributor: str | None = None) -> None:
        #: Keep only these layers (empty: all).
        self.layers = layers
        #: Keep memories carrying every one of these tags.
        self.tags = tags
        #: Keep memories by this contributor (case-insensitive).
        self.contributor = contributor

    def keep(self, e: Entry) -> bool:
        """Tell whether an entry passes every filter."""
        if self.layers and e.layer not in self.layers:
            return False
        if self.tags and not set(self.tags) <= set(e.tags):
            return False
        return not (self.contributor and e.contributor.lower() != self.contributor.lower())


class Hit:
    """Hold a ranked memory: the entry, the scope that made it relevant, its relevance, and
    what orders it (one object per candidate, since a path recall of
    a large store has thousands)."""

    __slots__ = ("entry", "matched_scope", "score", "depth", "distance", "relevance",
                 "on_path", "superseded", "mention")

    def __init__(self, entry: Entry, matched_scope: str | None, score: float | None = None,
                 depth: int = 0, distance: float = -1.0) -> None:
        #: The memory.
        self.entry = entry
        #: Its scope when it was relevant by scope, None when project-wide.
        self.matched_scope = matched_scope
        #: Relevance to --query (or to the search), None without one.
        self.score = score
        #: Scope depth.
        self.depth = depth
        #: Scope distance to the query path (nearer scopes first); -1 for project-wide.
        self.distance = distance
        #: Relevance to --query, 0..1 (the best match is 1).
        self.relevance = 0.0
        #: Weak relevance to the path's own words (and --query's), 0..1: the share of
        #: their weight, rarer words weighing more, that the memory holds.
        self.on_path = 0.0
        #: The hit whose memory supersedes this one, or None.
        self.superseded: Hit | None = None
        #: Whether it is here only because its text names a query path.
        self.mention = False


def query_paths(worktree: str | None, prefix: str, args: Iterable[str]) -> list[Query]:
    """Turn command-line paths (relative to the current directory) into repo-relative ones."""
    out: list[Query] = []
    for arg in args:
        raw = arg.replace("\\", "/")
        trailing = raw.endswith("/") or raw in (".", "..") or raw.endswith(("/.", "/.."))
        if os.path.isabs(raw):
            if worktree is None:
                raise AideError(f"{arg}: an absolute path needs a working tree")
            joined = os.path.relpath(os.path.realpath(raw), os.path.realpath(worktree))
        else:
            joined = os.path.normpath(os.path.join(prefix, raw))
        if joined == ".":
            joined = ""
        if joined == ".." or joined.startswith("../"):
            raise AideError(f"{arg}: outside the repository")
        rel = joined.replace(os.sep, "/")
        is_dir = trailing or not rel or (
            worktree is not None and os.path.isdir(os.path.join(worktree, rel)))
        out.append(Query(rel, is_dir))
    return out


def scope_filter(queries: list[Query], min_depth: int
                 ) -> Callable[[scopes.Compiled | None], bool]:
    """Tell whether a (compiled) scope may be relevant to at least one query path.

    For a directory this keeps every glob that starts at or above it (a superset);
    `select` then applies the directory rule (core/scope.py) to the scopes it decoded.
    """
    if not queries:
        return lambda _c: True
    # Many memories share a scope: decide each distinct scope once. The verdict is
    # kept with its scope: an id is unique only while its object lives, and groups
    # built again (a damaged view, the working tree's files) bring new scopes.
    verdicts: dict[int, tuple[scopes.Compiled, bool]] = {}

    def keep(c: scopes.Compiled | None) -> bool:
        if c is None:
            return True
        got = verdicts.get(id(c))
        if got is None:
            ok = any(scopes.relevant(c, q.path, q.is_dir) for q in queries
                     if q.is_dir or c.depth >= min_depth)
            verdicts[id(c)] = (c, ok)
            return ok
        return got[1]

    return keep


def select(entries: list[Entry], queries: list[Query], filters: Filters,
           min_depth: int, mentions: Sequence[Entry] = (),
           elsewhere: Sequence[Entry] = (),
           on_topic: Callable[[bytes], bool] | None = None,
           most_specific: int | None = None) -> list[Hit]:
    """Select every entry relevant to at least one query path (all, without paths), then the
    memories that only name a query path in their text or a query file's stem in their
    scope or text, then the strong --query matches from elsewhere.

    `most_specific`: when more scoped memories than this are relevant, leave out those
    farther than the farthest of the `most_specific` nearest (all of its distance are
    kept): what `rank` makes of the others cannot reach an answer that needs no more
    than that many (see `recall`)."""
    relevant = scope_filter(queries, min_depth)
    keep = filters.keep if (filters.layers or filters.tags or filters.contributor) else None
    # Per distinct scope: its distance to the nearest query path, or None (irrelevant).
    distances: dict[str, float | None] = {}
    # A snapshot's entries come group by group, and the entries of a group share their
    # compiled scope (and its text): each run of them is decided at once.
    runs: list[tuple[str | None, int, float, list[Entry]]] = []
    for c, group in groupby(entries, key=_COMPILED):
        run = list(group if keep is None else filter(keep, group))  # noqa: B031 -- once
        if c is None:
            runs.append((None, 0, -1.0, run))
            continue
        if not run or not relevant(c):
            continue
        scope = run[0].scope
        assert scope is not None  # only a project-wide scope has no compiled form
        d = distances.get(scope, -1.0)
        if d == -1.0:
            d = _distance(scope, c, queries, min_depth)
            distances[scope] = d
        if d is not None:
            runs.append((scope, c.depth, d, run))
    farthest = math.inf
    if most_specific is not None:
        near = sorted((d, len(run)) for scope, _depth, d, run in runs if scope is not None)
        count = 0
        for d, n in near:
            count += n
            if count > most_specific:
                farthest = d
                break
    hits: list[Hit] = []
    for scope, depth, d, run in runs:
        if scope is None:
            hits.extend([Hit(e, None) for e in run])
        elif d <= farthest:
            hits.extend([Hit(e, scope, None, depth, d) for e in run])
    if not mentions and not elsewhere:
        return hits
    seen = {h.entry.uuid for h in hits}
    for e in mentions:
        if e.uuid in seen or (keep is not None and not keep(e)):
            continue
        if _names_a_path(e, queries):
            d = MENTION_DISTANCE
        elif on_topic is not None and on_topic(_stem_text(e)):
            d = TOPIC_DISTANCE
        else:
            continue
        seen.add(e.uuid)
        h = Hit(e, None, None, e.compiled.depth if e.compiled else 0, d)
        h.mention = True
        hits.append(h)
    for e in elsewhere:
        if e.uuid in seen or e.compiled is None or (keep is not None and not keep(e)):
            continue
        seen.add(e.uuid)
        hits.append(Hit(e, None, None, e.compiled.depth, ELSEWHERE_DISTANCE))
    return hits


def _distance(scope: str, c: scopes.Compiled, queries: list[Query], min_depth: int
              ) -> float | None:
    """Return the scope's distance to the nearest query path it is relevant to (None: none)."""
    if not queries:
        return 0.0
    best: float | None = None
    for q in queries:
        if q.is_dir:
            if q.path and not scopes.reaches(scope, q.path):
                continue
        elif c.depth < min_depth or not scopes.relevant(c, q.path, False):
            continue
        d = scopes.distance(scope, q.path, q.is_dir)
        best = d if best is None else min(best, d)
    return best


def _names_a_path(e: Entry, queries: list[Query]) -> bool:
    """Tell whether the memory's what or why (not its scope or tags) names a query path."""
    finder = mention_finder(queries)
    r = e.read_record()
    text = f"{r['what']}\n{r['why'] or ''}".encode()
    return finder is not None and bool(finder(text))


def _stem_text(e: Entry) -> bytes:
    """Return where a memory may name a query file's stem: its scope, what and why."""
    r = e.read_record()
    return f"{r['scope'] or ''}\n{r['what']}\n{r['why'] or ''}".encode()
