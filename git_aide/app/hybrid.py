"""Words and meaning together, where a model is configured (app/semantic.py holds the
model): the fused order of `search`, the relevance of `recall --query`, the cosine that
supersession weighs, and the pairs `audit` finds alike (docs/semantic.md)."""

from __future__ import annotations

import heapq

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.app.memo import AnswerMemo
    from git_aide.app.semantic import Progress, Semantic
    from git_aide.cache.index import FullText
    from git_aide.rank.selection import Hit, Query
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

#: The best cosine matches of the whole store a fused search weighs beside BM25's.
SEMANTIC_CANDIDATES = 50


def coverage(question: str, bm25: dict[str, float], entries: dict[str, Entry]) -> float:
    """Return the share of the question's words that the best lexical hit holds (in its what,
    why and tags); 0 without a hit among `entries` (by blob id)."""
    from git_aide.rank.fusion import coverage as share
    from git_aide.rank.fusion import query_words

    if not bm25:
        return 0.0
    best = entries.get(max(bm25, key=lambda b: bm25[b]))
    if best is None:
        return 0.0
    r = best.read_record()
    return share(query_words(question),
                 query_words(" ".join([r["what"], r.get("why") or "", " ".join(r["tags"])])))


def search_hybrid(sem: Semantic, ft: FullText, snap: Snapshot, query: str, limit: int, mode: str,
           keep: Callable[[Entry], bool] | None = None, progress: Progress | None = None,
           memo: AnswerMemo | None = None) -> list[Hit]:
    """Run `search` by meaning (mode "semantic") or by words and meaning (mode "auto": by
    words alone when the model cannot be used). `keep`: the --layer, --tag and
    --contributor filters; `memo`: what a long-lived process keeps between calls."""
    from git_aide.app import search as sr
    from git_aide.app.memo import AnswerMemo
    from git_aide.rank import fusion
    from git_aide.rank.selection import Hit

    if mode == "semantic" and not sem.ready(say=False):
        raise AideError(sem.error or "semantic search needs a model: git aide semantic fetch")
    rank = (memo if memo is not None else AnswerMemo()).rank
    # A long-lived process embeds the question meanwhile, on another core.
    sem.foresee(query)
    want = max(limit, SEMANTIC_CANDIDATES)
    bm25: dict[str, float] = {}
    decoded: dict[str, Entry] = {}
    if mode != "semantic":
        found = sr.relevance_in(ft, snap, query, want, progress) if keep is None else None
        if found is not None and found[0]:
            bm25 = found[0]
            decoded = {e.blob: e for e in found[1]}
        else:
            kept = [e for e in snap.entries if keep is None or keep(e)]
            bm25 = sr.relevance(ft, kept, query, want, progress)
            decoded = {e.blob: e for e in kept if e.blob in bm25}
    if mode == "auto" and not sem.ready():
        # The model cannot be used (said once): the keyword order.
        lexical = sorted((e for b, e in decoded.items() if b in bm25), key=lambda e: e.path)
        return sr.order([Hit(e, e.scope, score=bm25[e.blob]) for e in lexical], limit,
                        rank)[:limit]
    cover = coverage(query, bm25, decoded)
    cos = sem.nearest(query, snap, want, bm25.keys(), progress)
    # A memory that holds none of the words answers only above a cosine floor: without
    # one, a question returned the whole store, down to a cosine of 0.0.
    near = heapq.nlargest(want, cos, key=lambda b: cos[b])
    pool = set(near) | bm25.keys()
    floor = fusion.COSINE_FLOOR
    scores = fusion.fuse({b: cos[b] for b in pool if b in cos},
                         {b: s for b, s in bm25.items() if b in pool}, cover, floor) \
        if mode != "semantic" else {b: cos[b] for b in near if cos[b] >= floor}
    lacking = set(scores) - decoded.keys()
    if lacking:
        decoded.update((e.blob, e) for e in snap.entries_of(lacking))
    entries = sorted((decoded[b] for b in scores if b in decoded), key=lambda e: e.path)
    if keep is not None:
        entries = [e for e in entries if keep(e)]
    hits = [Hit(e, e.scope, score=scores[e.blob]) for e in entries]
    return sr.order(hits, limit, rank, meaning_of(sem, entries))[:limit]


def recall_relevance(sem: Semantic, question: str, queries: list[Query],
                     relevance: Callable[[list[Entry]], dict[str, float]]
                     ) -> Callable[[list[Entry]], dict[str, float]]:
    """Return `recall --query`'s relevance with a model: BM25 fused with the cosine of each
    candidate to the question and the path's words (the candidates stay git-aide's own:
    no memory is added by meaning alone)."""
    from git_aide.rank import fusion
    from git_aide.rank.mentions import path_words

    said = " ".join([question, *sorted({w for q in queries for w in path_words(q.path)})])

    def fused(entries: list[Entry]) -> dict[str, float]:
        bm25 = relevance(entries)
        sem.embed_entries(entries)
        cos = sem.cosines(said, [e.blob for e in entries])
        cover = coverage(question, bm25, {e.blob: e for e in entries})
        return fusion.fuse(cos, bm25, cover, fusion.COSINE_FLOOR)

    return fused


def meaning_of(sem: Semantic | None, entries: list[Entry]
               ) -> Callable[[Entry, Entry], float | None] | None:
    """Return the cosine of two of these memories' texts, for supersession; None without a
    usable model. Their vectors are made first (within the embedding budget)."""
    if sem is None or not sem.configured or not sem.ready():
        return None
    sem.embed_entries(entries)
    vecs = sem.vectors

    def cosine(a: Entry, b: Entry) -> float | None:
        ra, rb = vecs.rows.get(a.blob), vecs.rows.get(b.blob)
        if ra is None or rb is None or vecs.matrix is None:
            return None
        return float(vecs.matrix[ra] @ vecs.matrix[rb])

    return cosine


#: The cosine from which `audit` calls two memories of one layer and overlapping scopes
#: near duplicates by meaning, whatever their words (all-MiniLM-L6-v2 gives a note and
#: its reworded replacement 0.7 to 0.9, and notes that only share a topic up to 0.75).
DUPLICATE_COSINE = 0.85


def similar_pairs(sem: Semantic, entries: list[Entry], least: float = DUPLICATE_COSINE
                  ) -> list[tuple[Entry, Entry, float]]:
    """Return (older, newer, cosine) of the memories whose texts are at least `least` alike by
    the model: one layer and sharing, overlapping scopes; each older memory with its
    closest newer one. Vectors are made first (within the embedding budget)."""
    import numpy as np

    from git_aide.core.memory import PERSONAL_DIR
    from git_aide.rank.duplicates import overlap

    def personal(e: Entry) -> bool:
        return e.path.startswith(PERSONAL_DIR + "/")

    sem.embed_entries(entries)
    vecs = sem.vectors
    have = [e for e in entries if e.blob in vecs.rows]
    if len(have) < 2 or vecs.matrix is None:
        return []
    m = vecs.matrix[[vecs.rows[e.blob] for e in have]]
    best: dict[int, tuple[float, int]] = {}
    for at in range(0, len(have), 512):
        sims = m[at:at + 512] @ m.T
        rows, cols = np.nonzero(sims >= least)
        for i, j in zip((rows + at).tolist(), cols.tolist(), strict=True):
            if i >= j:
                continue
            a, b = have[i], have[j]
            if a.layer != b.layer or personal(a) != personal(b) \
                    or not overlap(a.compiled, b.compiled):
                continue
            o, n = (i, j) if (a.updated_at, a.uuid) <= (b.updated_at, b.uuid) else (j, i)
            cos = float(sims[i - at, j])
            if cos > best.get(o, (0.0, -1))[0]:
                best[o] = (cos, n)
    return [(have[o], have[n], c) for o, (c, n) in sorted(best.items())]
