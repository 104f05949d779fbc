"""Filter and rank memories for a set of query paths (DESIGN section 4)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from git_aide import scope as scopes
from git_aide.errors import AideError
from git_aide.memory import LAYERS
from git_aide.sources import Entry

_LAYER_RANK = {layer: i for i, layer in enumerate(LAYERS)}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Query:
    """One repo-relative query path."""

    #: Repo-relative path, "" for the root.
    path: str
    #: Whether it names a directory.
    is_dir: bool


@dataclass
class Filters:
    """What narrows a listing besides paths."""

    #: Keep only these layers (empty: all).
    layers: tuple[str, ...] = ()
    #: Keep memories carrying every one of these tags.
    tags: tuple[str, ...] = ()
    #: Keep memories by this contributor (case-insensitive).
    contributor: str | None = None

    def keep(self, e: Entry) -> bool:
        """Whether an entry passes every filter."""
        r = e.record
        if self.layers and r["layer"] not in self.layers:
            return False
        if self.tags and not set(self.tags) <= set(r["tags"]):
            return False
        return not (self.contributor and r["contributor"].lower() != self.contributor.lower())


@dataclass
class Hit:
    """A ranked memory: the entry, the scope that made it relevant, and its relevance."""

    #: The memory.
    entry: Entry
    #: Its scope when it was relevant by scope, None when project-wide.
    matched_scope: str | None
    #: Keyword relevance to --query, or None without one.
    score: float | None = None
    #: Scope depth, for the sort.
    depth: int = field(default=0)


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


def keyword_score(entry: Entry, words: list[str]) -> float:
    """The fraction of query words found in what, context_label and why."""
    if not words:
        return 0.0
    r = entry.record
    text = " ".join(x for x in (r["what"], r["context_label"], r["why"]) if x).lower()
    found = set(_WORD.findall(text))
    return sum(1 for w in words if w in found) / len(words)


def query_words(query: str) -> list[str]:
    """The distinct lower-cased words of a query."""
    return list(dict.fromkeys(_WORD.findall(query.lower())))


def select(entries: list[Entry], queries: list[Query], filters: Filters,
           min_depth: int) -> list[Hit]:
    """Every entry relevant to at least one query path (all, without paths)."""
    hits: list[Hit] = []
    for e in entries:
        if not filters.keep(e):
            continue
        c = e.compiled
        if c is None:
            hits.append(Hit(e, None))
            continue
        if queries:
            ok = False
            for q in queries:
                if not q.is_dir and c.depth < min_depth:
                    continue
                if scopes.relevant(c, q.path, q.is_dir):
                    ok = True
                    break
            if not ok:
                continue
        hits.append(Hit(e, e.record["scope"], depth=c.depth))
    return hits


def rank(hits: list[Hit], *, file_query: bool, limit: int, diversity_min: int,
         scorer: Callable[[list[Hit]], None] | None = None) -> list[Hit]:
    """Sort (section 4 step 2), cut at the limit, and rebalance layers (step 4)."""
    if scorer is not None:
        scorer(hits)
    ordered = _sorted(hits, file_query)
    if limit <= 0:
        return []
    cut = ordered[:limit]
    if limit >= diversity_min and len(ordered) > limit:
        present = {h.entry.record["layer"] for h in cut}
        for layer in LAYERS:
            if layer in present:
                continue
            best = next((h for h in ordered if h.entry.record["layer"] == layer), None)
            if best is None:
                continue
            counts: dict[str, int] = {}
            for h in cut:
                counts[h.entry.record["layer"]] = counts.get(h.entry.record["layer"], 0) + 1
            for i in range(len(cut) - 1, -1, -1):
                if counts[cut[i].entry.record["layer"]] > 1:
                    cut[i] = best
                    present.add(layer)
                    break
        cut = _sorted(cut, file_query)
    return cut


def _sorted(hits: list[Hit], file_query: bool) -> list[Hit]:
    # Stable sorts, least significant key first: uuid, then newest update, then the rest.
    out = sorted(hits, key=lambda h: h.entry.record["uuid"])
    out.sort(key=lambda h: h.entry.record["updated_at"], reverse=True)
    sign = -1 if file_query else 1
    out.sort(key=lambda h: (
        h.entry.compiled is None,
        _LAYER_RANK[h.entry.record["layer"]],
        -(h.score or 0.0),
        sign * h.depth,
    ))
    return out


def recall(entries: list[Entry], queries: list[Query], filters: Filters, *, query: str | None,
           limit: int, min_depth: int, diversity_min: int) -> list[Hit]:
    """The whole of section 4's recall: select, score, sort, cut, rebalance."""
    hits = select(entries, queries, filters, min_depth)
    scorer = None
    if query:
        words = query_words(query)

        def scorer(hs: list[Hit]) -> None:
            for h in hs:
                h.score = keyword_score(h.entry, words)

    file_query = any(not q.is_dir for q in queries)
    return rank(hits, file_query=file_query, limit=limit, diversity_min=diversity_min,
                scorer=scorer)


def listing(entries: list[Entry], filters: Filters) -> list[Hit]:
    """Every memory that passes the filters, by layer, then scope, then age."""
    hits = [Hit(e, e.record["scope"], depth=e.compiled.depth if e.compiled else 0)
            for e in entries if filters.keep(e)]
    hits.sort(key=lambda h: (_LAYER_RANK[h.entry.record["layer"]], h.entry.record["scope"] or "",
                             h.entry.record["created_at"], h.entry.record["uuid"]))
    return hits
