"""Rank the candidates of a path recall (docs/ranking.md); selection.py selects them.

One module on purpose: the order of a recall is one function of many signals (scope
distance, layer, relevance, recency, supersession, the project-wide cap, diversity),
tuned together against bench/quality/; splitting them would hide how they weigh against
each other. Where a weak candidate stands (its distance) is set by selection.py; the
weak signals themselves are mentions.py's.
"""

from __future__ import annotations

import heapq
import math
from itertools import groupby
from operator import attrgetter

from git_aide.core.memory import LAYERS
from git_aide.core.words import words
from git_aide.rank.mentions import held, path_words
from git_aide.rank.selection import Hit, select

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from git_aide.rank.memo import RankMemo
    from git_aide.rank.selection import Filters, Query
    from git_aide.rank.supersede import Meaning
    from git_aide.read.record import Entry

_LAYER_RANK = {layer: i for i, layer in enumerate(LAYERS)}
#: A hit's scope distance.
_DISTANCE = attrgetter("distance")
#: When a hit's memory last changed.
_UPDATED = attrgetter("entry.updated_at")

#: How much the path's own words weigh against specificity (1: a memory holding every
#: rare word of the path gains as much as a scope naming the file is worth).
PATH_WEIGHT = 1.0
#: The same for a project-wide memory in a path recall: small enough that it never
#: lifts one above a scoped memory (whose specificity is at least 1 / (1 + its
#: distance)), enough to order the project-wide ones.
PROJECT_WIDE_PATH_WEIGHT = 0.01
#: How many project-wide memories (the newest) a path recall looks through for shared
#: words: a large store holds thousands, and reading them all would double a recall.
PROJECT_WIDE_SCAN = 200
#: How many scoped candidates (the most specific) a path recall weighs by the path's
#: words: below that many, a candidate could not reach the first screenful anyway.
PATH_WORDS_SCAN = 200
#: How far down the provisional order supersession is looked for (times the limit).
SUPERSESSION_WINDOW = 3
#: ... but never among more than this many memories (recall's and search's), so that a
#: --limit of a million costs what sorting costs: comparing words grows with the square
#: of the memories compared. A superseded memory further down keeps its place.
SUPERSESSION_MOST = 1000
#: How much relevance to --query weighs against specificity (1: a perfect match is
#: worth as much as a scope naming the file).
QUERY_WEIGHT = 1.0


def rank(hits: list[Hit], *, memo: RankMemo, limit: int, diversity_min: int,
         scorer: Callable[[list[Hit]], None] | None = None,
         project_wide_limit: int = -1, path_words_: set[str] | None = None,
         body: bytes | None = None, named: list[bytes] | None = None,
         meaning: Meaning | None = None, by_path: bool = False) -> list[Hit]:
    """Order the hits, cap project-wide memories, cut at the limit
    and, when asked, rebalance layers. With a `scorer` (a question), only the
    memories it scores are kept, and, `by_path`, those scoped to a query path."""
    if scorer is not None:
        scorer(hits)
        hits = [h for h in hits if h.score or (by_path and h.matched_scope is not None)]
    if limit <= 0:
        return []
    # Only a scorer gives scores: select's hits have none.
    top = max((h.score or 0.0) for h in hits) if hits and scorer is not None else 0.0
    if top > 0:
        for h in hits:
            if h.score:
                h.relevance = h.score / top
    if path_words_:
        wanted = [w.encode() for w in sorted(path_words_)]
        weights = _weigh_path_words(hits, wanted, body, memo, path_only=scorer is None)
        if project_wide_limit >= 0:
            hits = _cap_project_wide(hits, project_wide_limit, weights, body, memo,
                                     below_scoped=scorer is None, named=named or [],
                                     wanted=wanted)
    key = _sort_key()
    size = supersession_window(limit)
    pool = hits
    if len(hits) > size:
        # Only a memory whose value is among the best `size` values can be in the
        # window (the value leads the key): the key is made for those alone.
        qw, pw = QUERY_WEIGHT, PATH_WEIGHT  # _plain_value's sum, inline: thousands
        values = [(0.0 if h.distance < 0 else 1.0 / (1.0 + h.distance))
                  + qw * h.relevance + pw * h.on_path for h in hits]
        least = heapq.nlargest(size, values)[-1]
        pool = [h for h, v in zip(hits, values, strict=True) if v >= least]
    window = heapq.nsmallest(size, pool, key=key)
    _mark_superseded(window, memo, meaning)
    window.sort(key=key)
    cut = window[:limit]
    if len(window) < len(hits) and any(h.superseded for h in cut):
        # Superseded memories may have sunk below the window: the next ones move up.
        inside = set(map(id, window))
        rest = heapq.nsmallest(limit, (h for h in hits if id(h) not in inside), key=key)
        cut = sorted(window + rest, key=key)[:limit]
    if diversity_min and limit >= diversity_min and len(hits) > limit:
        cut = _diversify(cut, hits, key)
    return in_file_order(cut)


def supersession_window(limit: int) -> int:
    """Count how many of the best memories are compared for supersession, for a limit."""
    return min(max(SUPERSESSION_WINDOW * limit, 30), SUPERSESSION_MOST)


def _standing_value(h: Hit) -> float:
    """Value a hit by specificity plus relevance to --query; a superseded memory just below its
    replacement."""
    if h.superseded:
        # Just below the memory that replaces it, wherever that stands.
        own = _plain_value(h)
        return min(own, _standing_value(h.superseded) - 1e-9)
    return _plain_value(h)


def _plain_value(h: Hit) -> float:
    """Value a hit at 1 / (1 + scope distance), 0 project-wide, plus the weighted relevance."""
    if h.distance < 0:  # project-wide
        spec = 0.0
    else:
        spec = 1.0 / (1.0 + h.distance)
    return spec + QUERY_WEIGHT * h.relevance + PATH_WEIGHT * h.on_path


_INVERT = str.maketrans("0123456789", "9876543210")


def _sort_key() -> Callable[[Hit], tuple[object, ...]]:
    # Digits inverted make the newest update sort first.
    return lambda h: (
        -_standing_value(h),
        h.entry.updated_at.translate(_INVERT),
        _LAYER_RANK[h.entry.layer],
        h.entry.uuid,
    )


def in_file_order(hits: list[Hit]) -> list[Hit]:
    """Reorder the memories imported from one rules file with one scope among the places
    they hold, in the file's order: a budget that cuts the end of an answer then cuts the
    file's last lines, not its first; and, of one scope, put the memories written for
    git-aide before the imported ones."""
    from git_aide.core.memory import imported_from

    groups: dict[tuple[str, str | None], list[int]] = {}
    lines: list[int] = []
    imported: set[int] = set()
    for i, h in enumerate(hits):
        origin = imported_from(h.entry.read_record())
        lines.append(origin[1] if origin else 0)
        if origin is not None:
            imported.add(id(h))
            groups.setdefault((origin[0], h.entry.scope), []).append(i)
    out = list(hits)
    for places in groups.values():
        if len(places) > 1:
            for at, i in zip(places, sorted(places, key=lines.__getitem__), strict=True):
                out[at] = hits[i]
    # Of one scope, the memories written for git-aide before the imported rules: a rule
    # is also in a file some agent loads itself, a team memory only here.
    by_scope: dict[str | None, list[int]] = {}
    for i, h in enumerate(out):
        by_scope.setdefault(h.entry.scope, []).append(i)
    kept = list(out)
    for places in by_scope.values():
        mixed = [kept[i] for i in places]
        ordered = sorted(mixed, key=lambda h: id(h) in imported)
        if ordered != mixed:
            for at, h in zip(places, ordered, strict=True):
                out[at] = h
    return out


def _weigh_path_words(hits: list[Hit], want: list[bytes], body: bytes | None,
                      memo: RankMemo, path_only: bool = False) -> dict[bytes, float]:
    """Give each scoped or weak candidate its share of the path's words (the
    relevance of a mention), and return each word's weight. `path_only` (a recall without a
    question): the words never lift a scoped memory above a more specific one.

    A word weighs by how rare it is among these candidates: the package folder that
    every candidate's scope names weighs nothing, the file's own name the most. Words
    are looked for in the stored bytes, so nothing is parsed.
    """
    if not want:
        return {}
    mine = [h for h in hits if h.distance >= 0]  # all but the project-wide ones
    if len(mine) > PATH_WORDS_SCAN:
        # A large store: the most specific scoped ones, and every weak candidate.
        scoped = [h for h in mine if not h.mention]
        # A stable sort, as nsmallest is: equal distances keep their order.
        scoped.sort(key=_DISTANCE)
        mine = scoped[:PATH_WORDS_SCAN] + [h for h in hits if h.mention]
    n = len(mine)
    holders = held([h.entry for h in mine], body, want, memo)
    idf = {w: max(0.0, math.log((n + 1) / (len(at) + 0.5))) for w, at in holders.items()}
    total = sum(idf.values())
    if total <= 0:
        return {}
    weights = {w: i / total for w, i in idf.items() if i > 0}
    on = [0.0] * n
    for w, v in weights.items():
        for i in holders[w]:
            on[i] += v
    for h, v in zip(mine, on, strict=True):
        h.on_path = v
    if path_only:
        _below_nearer_scopes(mine)
    return weights


def _below_nearer_scopes(hits: list[Hit]) -> None:
    """Lower the path-word share of scoped memories so that none stands above one whose
    scope holds the file more specifically: each scope distance, farthest last, is kept
    below the lowest value of the nearer ones (its own order kept)."""
    scoped = sorted((h for h in hits if h.distance >= 0 and not h.mention), key=_DISTANCE)
    ceiling = math.inf
    for _d, group in groupby(scoped, key=_DISTANCE):
        run = list(group)
        for h in run:
            spec = 1.0 / (1.0 + h.distance)
            value = spec + PATH_WEIGHT * h.on_path
            if value >= ceiling:
                # Just below the ceiling, still in their order (a share is at most 1).
                value = ceiling - 1e-4 + (value - ceiling) * 1e-5
                h.on_path = max(0.0, (value - spec) / PATH_WEIGHT)
        ceiling = min(ceiling, min(1.0 / (1.0 + h.distance) + PATH_WEIGHT * h.on_path
                                   for h in run))


def _cap_project_wide(hits: list[Hit], cap: int, weights: dict[bytes, float],
                      body: bytes | None, memo: RankMemo, below_scoped: bool = False,
                      named: list[bytes] | None = None,
                      wanted: list[bytes] | None = None) -> list[Hit]:
    """Keep at most `cap` project-wide memories: those holding most of the path's (and
    query's) weighted words (none that holds none, unless --query found it relevant).

    `below_scoped` (a path recall without --query): the path's words only order the
    kept ones among themselves. A word of the path is no mention of the file ("The app
    deploys on Fridays" for src/app.py): project-wide memories follow the scoped ones,
    but for those that name a query file by its path or its name with the extension
    (`named`, lower case), which are mentions of it.

    Their stored bytes are searched for the words (in a large store only the newest
    PROJECT_WIDE_SCAN), so nothing is parsed. `wanted`: every word `weights` was
    worked out from (what a long-lived process keeps per blob, weak.held).
    """
    # Only a project-wide memory (not a mention) stands at a negative distance.
    out = [h for h in hits if h.distance >= 0]
    wide = [h for h in hits if h.distance < 0]
    if len(wide) > PROJECT_WIDE_SCAN:
        # A store of thousands: the newest few hundred, and those --query found.
        # (As nlargest: equal times keep their order, a stable sort's.)
        newest = sorted(wide, key=_UPDATED, reverse=True)[:PROJECT_WIDE_SCAN]
        chosen = set(map(id, newest))
        wide = newest + [h for h in wide if h.relevance and id(h) not in chosen]
    mentioning: set[int] = set()
    if weights:
        names = named if below_scoped and named else []
        # One search of their bytes for the names and the words.
        found = held([h.entry for h in wide], body,
                     list(dict.fromkeys(names + (wanted or list(weights)))), memo)
        mentioning = {i for n in names for i in found[n]}
        on = [0.0] * len(wide)
        for w, v in weights.items():
            for i in found[w]:
                on[i] += v
        for h, v in zip(wide, on, strict=True):
            h.on_path = v
    kept = [h for h in wide if h.on_path or h.relevance]
    if len(kept) > cap:
        # Only the first `cap` are kept: those whose share leads the key is enough.
        firsts = [-h.on_path - h.relevance for h in kept]
        least = max(heapq.nsmallest(cap, firsts), default=-math.inf)
        kept = [h for h, f in zip(kept, firsts, strict=True) if f <= least]
    kept.sort(key=lambda h: (-h.on_path - h.relevance,
                             h.entry.updated_at.translate(_INVERT), h.entry.uuid))
    if below_scoped:
        mentions = {id(wide[i]) for i in mentioning}
        for h in kept:
            if id(h) not in mentions:
                h.on_path *= PROJECT_WIDE_PATH_WEIGHT
    out.extend(kept[:cap])
    return out


def _mark_superseded(window: list[Hit], memo: RankMemo, meaning: Meaning | None = None
                     ) -> None:
    """Flag the memories a newer one of the window supersedes (rank/supersede.py)."""
    from git_aide.rank.supersede import superseded

    by_uuid = {h.entry.uuid: h for h in window}
    for older, newer in superseded([h.entry for h in window], memo, meaning):
        by_uuid[older.uuid].superseded = by_uuid[newer.uuid]


def _diversify(cut: list[Hit], hits: list[Hit], key: Callable[[Hit], tuple[object, ...]]
               ) -> list[Hit]:
    """Diversify layers as aide-memory does: a layer missing from the cut takes the place of
    the last memory of a layer that has more than one."""
    present = {h.entry.layer for h in cut}
    chosen = set(map(id, cut))
    for layer in LAYERS:
        if layer in present:
            continue
        pool = [h for h in hits if h.entry.layer == layer and id(h) not in chosen]
        if not pool:
            continue
        counts: dict[str, int] = {}
        for h in cut:
            counts[h.entry.layer] = counts.get(h.entry.layer, 0) + 1
        for i in range(len(cut) - 1, -1, -1):
            if counts[cut[i].entry.layer] > 1:
                cut[i] = min(pool, key=key)
                chosen.add(id(cut[i]))
                present.add(layer)
                break
    cut.sort(key=key)
    return cut


def recall(entries: list[Entry], queries: list[Query], filters: Filters, *, memo: RankMemo,
           relevance: Callable[[list[Entry]], dict[str, float]] | None,
           limit: int, min_depth: int, diversity_min: int = 0,
           project_wide_limit: int = 3, mentions: Sequence[Entry] = (),
           elsewhere: Sequence[Entry] = (),
           query: str | None = None, body: bytes | None = None,
           on_topic: Callable[[bytes], bool] | None = None,
           meaning: Meaning | None = None) -> list[Hit]:
    """Rank a path recall: select, score, sort, cap, cut, rebalance.

    `relevance` scores the selected entries against --query (blob id -> score);
    `mentions` are memories outside the relevant scopes whose files name a query path
    or (as `on_topic` tells from their scope and texts) a query file's stem;
    `elsewhere` are the best --query matches of the whole store (candidates only when
    their scope is not relevant: they rank by relevance alone);
    `body` is the snapshot's stored contents in one run, when it has them.
    """
    # A path recall without --query or layer diversity ranks the scoped memories beyond
    # the PATH_WORDS_SCAN nearest by specificity alone, below every one of those: when
    # the answer and its supersession window need fewer, they are left out at once (a
    # large store has a thousand candidates for a file, and a recall shows twenty).
    few = (relevance is None and queries and not diversity_min
           and supersession_window(limit) + limit < PATH_WORDS_SCAN)
    hits = select(entries, queries, filters, min_depth, mentions, elsewhere, on_topic,
                  most_specific=PATH_WORDS_SCAN if few else None)
    scorer = None
    if relevance is not None:

        def scorer(hs: list[Hit]) -> None:
            scores = relevance([h.entry for h in hs])
            for h in hs:
                h.score = scores.get(h.entry.blob, 0.0)

    want: set[str] | None = None
    if queries:
        want = set().union(*(path_words(q.path) for q in queries))
        if query:
            want |= words(query)
    # A file named by its path, or by its name with the extension, is mentioned.
    named = sorted({n.lower().encode() for q in queries if not q.is_dir and q.path
                    for n in (q.path, q.path.rpartition("/")[2]) if "." in n or "/" in n})
    return rank(hits, memo=memo, limit=limit,
                diversity_min=diversity_min, scorer=scorer,
                project_wide_limit=project_wide_limit if queries else -1,
                path_words_=want, body=body, named=named, meaning=meaning,
                by_path=bool(queries))


def listing(entries: list[Entry], filters: Filters) -> list[Hit]:
    """List every memory that passes the filters, by layer, then scope, then age."""
    hits = [Hit(e, e.scope, depth=e.compiled.depth if e.compiled else 0)
            for e in entries if filters.keep(e)]
    hits.sort(key=lambda h: (_LAYER_RANK[h.entry.layer], h.entry.scope or "",
                             h.entry.created_at, h.entry.uuid))
    return hits
