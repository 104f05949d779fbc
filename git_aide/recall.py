"""Filter and rank memories for a set of query paths (DESIGN section 4)."""

from __future__ import annotations

import heapq
import os

from git_aide import scope as scopes
from git_aide.errors import AideError
from git_aide.memory import LAYERS
from git_aide.sources import Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

_LAYER_RANK = {layer: i for i, layer in enumerate(LAYERS)}


class Query:
    """One repo-relative query path."""

    __slots__ = ("path", "is_dir")

    def __init__(self, path: str, is_dir: bool) -> None:
        #: Repo-relative path, "" for the root.
        self.path = path
        #: Whether it names a directory.
        self.is_dir = is_dir


class Filters:
    """What narrows a listing besides paths."""

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
        """Whether an entry passes every filter."""
        if self.layers and e.layer not in self.layers:
            return False
        if self.tags and not set(self.tags) <= set(e.tags):
            return False
        return not (self.contributor and e.contributor.lower() != self.contributor.lower())


class Hit:
    """A ranked memory: the entry, the scope that made it relevant, and its relevance."""

    __slots__ = ("entry", "matched_scope", "score", "depth")

    def __init__(self, entry: Entry, matched_scope: str | None, score: float | None = None,
                 depth: int = 0) -> None:
        #: The memory.
        self.entry = entry
        #: Its scope when it was relevant by scope, None when project-wide.
        self.matched_scope = matched_scope
        #: Relevance to --query (or to the search), None without one.
        self.score = score
        #: Scope depth, for the sort.
        self.depth = depth


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
    """Whether a (compiled) scope is relevant to at least one query path."""
    if not queries:
        return lambda _c: True
    # Many memories share a scope: decide each distinct scope once.
    verdicts: dict[int, bool] = {}

    def keep(c: scopes.Compiled | None) -> bool:
        if c is None:
            return True
        ok = verdicts.get(id(c))
        if ok is None:
            ok = any(scopes.relevant(c, q.path, q.is_dir) for q in queries
                     if q.is_dir or c.depth >= min_depth)
            verdicts[id(c)] = ok
        return ok

    return keep


def select(entries: list[Entry], queries: list[Query], filters: Filters,
           min_depth: int) -> list[Hit]:
    """Every entry relevant to at least one query path (all, without paths)."""
    relevant = scope_filter(queries, min_depth)
    keep = filters.keep if (filters.layers or filters.tags or filters.contributor) else None
    hits: list[Hit] = []
    for e in entries:
        if keep is not None and not keep(e):
            continue
        c = e.compiled
        if relevant(c):
            hits.append(Hit(e, None) if c is None else Hit(e, e.scope, depth=c.depth))
    return hits


def rank(hits: list[Hit], *, file_query: bool, limit: int, diversity_min: int,
         scorer: Callable[[list[Hit]], None] | None = None) -> list[Hit]:
    """Sort (section 4 step 2), cut at the limit, and rebalance layers (step 4)."""
    if scorer is not None:
        scorer(hits)
    if limit <= 0:
        return []
    key = _sort_key(file_query)
    # The first two sort keys (scoped?, layer) take 8 values: bucket on them, and sort
    # only as much of the buckets as the cut needs, not thousands of relevant memories.
    buckets: list[list[Hit]] = [[] for _ in range(2 * len(LAYERS))]
    for h in hits:
        e = h.entry
        buckets[(e.compiled is None) * len(LAYERS) + _LAYER_RANK[e.layer]].append(h)
    cut: list[Hit] = []
    for bucket in buckets:
        if len(cut) >= limit:
            break
        cut.extend(heapq.nsmallest(limit - len(cut), bucket, key=key))
    if limit >= diversity_min and len(hits) > limit:
        present = {h.entry.layer for h in cut}
        for rank_, layer in enumerate(LAYERS):
            if layer in present:
                continue
            pool = buckets[rank_] or buckets[len(LAYERS) + rank_]
            if not pool:
                continue
            counts: dict[str, int] = {}
            for h in cut:
                counts[h.entry.layer] = counts.get(h.entry.layer, 0) + 1
            for i in range(len(cut) - 1, -1, -1):
                if counts[cut[i].entry.layer] > 1:
                    cut[i] = min(pool, key=key)
                    present.add(layer)
                    break
        cut.sort(key=key)
    return cut


_INVERT = str.maketrans("0123456789", "9876543210")


def _sort_key(file_query: bool) -> Callable[[Hit], tuple[object, ...]]:
    # One key: digits inverted make the newest update sort first.
    sign = -1 if file_query else 1
    return lambda h: (
        h.entry.compiled is None,
        _LAYER_RANK[h.entry.layer],
        -(h.score or 0.0),
        sign * h.depth,
        h.entry.updated_at.translate(_INVERT),
        h.entry.uuid,
    )


def recall(entries: list[Entry], queries: list[Query], filters: Filters, *,
           relevance: Callable[[list[Entry]], dict[str, float]] | None,
           limit: int, min_depth: int, diversity_min: int) -> list[Hit]:
    """The whole of section 4's recall: select, score, sort, cut, rebalance.

    `relevance` scores the selected entries against --query (blob id -> score); it is
    asked only for the memories that are relevant by scope.
    """
    hits = select(entries, queries, filters, min_depth)
    scorer = None
    if relevance is not None:

        def scorer(hs: list[Hit]) -> None:
            scores = relevance([h.entry for h in hs])
            for h in hs:
                h.score = scores.get(h.entry.blob, 0.0)

    file_query = any(not q.is_dir for q in queries)
    return rank(hits, file_query=file_query, limit=limit, diversity_min=diversity_min,
                scorer=scorer)


def listing(entries: list[Entry], filters: Filters) -> list[Hit]:
    """Every memory that passes the filters, by layer, then scope, then age."""
    hits = [Hit(e, e.scope, depth=e.compiled.depth if e.compiled else 0)
            for e in entries if filters.keep(e)]
    hits.sort(key=lambda h: (_LAYER_RANK[h.entry.layer], h.entry.scope or "",
                             h.entry.created_at, h.entry.uuid))
    return hits
