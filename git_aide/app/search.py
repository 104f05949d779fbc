"""`search`, the BM25 relevance of `recall --query` and `index`.

Everything here works on one source's entries: the full-text index is brought up to
date for exactly the blobs that source lists, then asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from git_aide.cache.folder import Cache
from git_aide.rank.selection import Filters, Hit
from git_aide.read.record import Entry, Records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeVar

    T = TypeVar("T")

    from git_aide.app.context import Context
    from git_aide.app.memo import AnswerMemo
    from git_aide.cache.index import FullText
    from git_aide.core.scope import Compiled
    from git_aide.rank.memo import RankMemo
    from git_aide.rank.supersede import Meaning
    from git_aide.read.snapshot import Snapshot

Progress = Callable[[int, int], None]


def open_index(cache: Cache) -> FullText:
    """Open the full-text index of this cache (Whoosh itself is imported when the index is
    written, or a query cannot be answered from the postings tables)."""
    from git_aide.cache.index import FullText

    return FullText(cache.root)


#: How many times work on the full-text index on disk is tried: a cache folder removed
#: while a command rebuilds it (another process's `index --rebuild`, a person's `rm -rf`)
#: can take the rebuilt index away once more; then once more in memory.
ATTEMPTS = 3


def robust(ft: FullText, work: Callable[[], T]) -> T:
    """Run work on the full-text index; if the index proves damaged, rebuild it and retry."""
    from git_aide.core.errors import AideError

    for attempt in range(ATTEMPTS + 1):
        try:
            return work()
        except ft.LockError:
            raise AideError("the full-text index is locked by another git-aide process "
                            "for too long; try again") from None
        except Exception as e:
            if attempt == ATTEMPTS:
                raise
            from git_aide.cache.index_folder import unwritable

            if unwritable(e) and not ft.in_memory and isinstance(e, OSError):
                # Not damaged: nothing on disk can be made again, so this command's
                # answer comes from an index in memory, and says why once.
                ft.rebuild(ft.cannot_write(e), in_memory=True)
            elif attempt < ATTEMPTS - 1:
                ft.rebuild("the full-text index was damaged; rebuilt it")  # said once
            else:
                # Still taken away under this command (a cache folder removed again
                # and again): this command's answer comes from an index in memory.
                ft.rebuild("the full-text index kept changing under this command; "
                           "searched with an index in memory", in_memory=True)
    raise AssertionError("unreachable: the last attempt returns or raises")


def index_sources(ctx: Context, progress: Progress | None = None) -> tuple[int, list[Entry]]:
    """Bring the full-text index up to date with the working tree, the index and HEAD (the
    sources a read may ask next); return how many memories it added and every source's
    memories, each blob once. Only the working tree's view is saved: recall reads it
    next."""
    from git_aide.core.errors import AideError

    # The records a view's build parses are kept for the index, not parsed again.
    records = Records(built=True)
    entries: dict[str, Entry] = {}
    for cached, rev in _sources(ctx, records, entries):
        try:
            snap = ctx.snapshot(cached, rev, save_view=not cached and rev is None,
                                records=records)
        except AideError:
            continue  # no HEAD yet, say
        for e in snap.entries:
            entries.setdefault(e.blob, e)
    kept = list(entries.values())
    return ensure_indexed(ctx.index(), kept, progress), kept


def _sources(ctx: Context, records: Records, entries: dict[str, Entry]
             ) -> Iterator[tuple[bool, str | None]]:
    """Yield the sources index_sources() reads (cached, rev) that may hold memories the
    others did not: the working tree's read first (into `entries`, its records kept in
    `records`), then the index unless the working tree differs from it in no memory
    file (its view is the index's listing), then HEAD unless the index holds what HEAD
    holds. In a fresh clone the three are one: read once, not three times."""
    if ctx.repo.worktree is None:
        yield False, "HEAD"
        return
    from git_aide.core.errors import AideError

    try:
        snap = ctx.snapshot(False, None, records=records)
    except AideError:  # read the others then, as they are
        yield True, None
        yield False, "HEAD"
        return
    for e in snap.entries:
        entries.setdefault(e.blob, e)
    drop, laid = snap.laid()
    if drop or laid:
        yield True, None
    from git_aide.gitio.status import index_matches

    if not index_matches(ctx.repo, "HEAD"):
        yield False, "HEAD"


def ensure_indexed(ft: FullText, entries: list[Entry], progress: Progress | None = None) -> int:
    """Add the entries the full-text index lacks; returns how many it added."""
    return robust(ft, lambda: _ensure(ft, entries, progress))


def _ensure(ft: FullText, entries: list[Entry], progress: Progress | None) -> int:
    missing = set(ft.missing(e.blob for e in entries))
    if not missing:
        return 0
    todo = [(e.blob, e.read_record()) for e in entries if e.blob in missing]
    report = (lambda i: progress(i, len(todo))) if progress is not None else None
    added = ft.add(todo, report)
    if progress is not None:
        progress(len(todo), len(todo))
    return added


def relevance(ft: FullText, entries: list[Entry], query: str, want: int,
              progress: Progress | None = None) -> dict[str, float]:
    """Return the BM25F score by blob id for the (at least `want`) best entries that match; the
    entries the full-text index lacks are added first."""
    def work() -> dict[str, float]:
        _ensure(ft, entries, progress)
        return ft.search(query, {e.blob for e in entries}, want)

    return robust(ft, work) or fragments(entries, query)


def relevance_in(ft: FullText, snap: Snapshot, query: str, want: int,
                 progress: Progress | None = None,
                 skip: Callable[[Compiled | None | Literal[False]], bool] | None = None,
                 need: int | None = None,
                 allowed: set[str] | None = None
                 ) -> tuple[dict[str, float], list[Entry]] | None:
    """Return the BM25F scores of the best (at least `want`) matches among all of a snapshot's
    memories, with their entries, decoding only the groups that hold them (and those of
    memories the index lacks); None when the snapshot cannot name its blobs without
    decoding every memory (relevance() is then the way). `skip`: the matches in groups
    whose compiled scope it takes count, but their entries are neither decoded nor
    returned (a path recall has them already); `need`: only the best this many entries
    are wanted (the groups of the others are not decoded); `allowed`: the blobs to
    look among, when not all."""
    ids = snap.blob_ids()
    if ids is None:
        return None
    among: Among | set[str] = Among(ids) if allowed is None else set(allowed)

    def work() -> tuple[dict[str, float], list[Entry]]:
        _add_missing(ft, snap, among, progress)
        while True:
            # Nothing left out: the blob ids themselves answer (no call per blob).
            scores = ft.search(query, among.ids if isinstance(among, Among) and not among.out
                               else among, want)
            wanted = [b for b in sorted(scores, key=lambda b: -scores[b])
                      if skip is None or not skip(snap.scope_of(b))]
            entries, found, tried = _decode_best(snap, wanted, scores, need)
            # A file the working tree changed or removed may still be named: it leaves
            # the running, and the best are taken again without it.
            gone = tried - found
            if not gone or (need is not None and len(found) >= need):
                return scores, entries
            if len(scores.keys() - gone) >= want:
                # Enough are left: a search without the gone ones would cut the same
                # best documents (postings.best) and keep these, so it is not run again.
                for b in gone:
                    del scores[b]
                return scores, entries
            among.difference_update(gone)

    return robust(ft, work)


def _add_missing(ft: FullText, snap: Snapshot, among: Among | set[str],
                 progress: Progress | None) -> None:
    """Index the memories of `among` that the full-text index lacks."""
    missing = set(among.missing(ft) if isinstance(among, Among) else ft.missing(among))
    if missing:
        live = snap.entries_of(missing)
        _ensure(ft, live, progress)
        # Blobs of files removed since the view was saved were never indexed: they
        # leave now, or every query would decode their groups again.
        among.difference_update(missing - {e.blob for e in live})


class Among:
    """Hold the blobs a search of a whole snapshot may find: its blob ids (read, never
    copied: a long-lived process asks on every call), but those left out."""

    def __init__(self, ids: Mapping[str, int]) -> None:
        #: The snapshot's blob ids.
        self.ids = ids
        #: Those left out (not indexed and gone, or gone from the working tree).
        self.out: set[str] = set()

    def __contains__(self, blob: object) -> bool:
        return blob in self.ids and blob not in self.out

    def difference_update(self, blobs: Iterable[str]) -> None:
        """Leave these out."""
        self.out.update(blobs)

    def missing(self, ft: FullText) -> list[str]:
        """Return the blobs the full-text index lacks: those of the view it was asked of
        before (kept by the index while neither changed), and those laid over it."""
        from git_aide.read.snapshot import ViewBlobIds

        ids = self.ids
        if isinstance(ids, ViewBlobIds):
            return [*ft.missing(ids.base), *ft.missing(set(ids.laid))]
        return ft.missing(ids)


def _decode_best(snap: Snapshot, wanted: list[str], scores: dict[str, float], need: int | None
                 ) -> tuple[list[Entry], set[str], set[str]]:
    """Decode the wanted blobs, best first, into (entries, their blobs, the blobs tried):
    all of them, or (`need`) the best that many and any tied with the last, each group
    decoded once."""
    if need is None:
        entries = snap.entries_of(set(wanted))
        return entries, {e.blob for e in entries}, set(wanted)
    entries = []
    found: set[str] = set()
    tried: set[str] = set()
    at = 0
    while at < len(wanted) and len(found) < need:
        batch = wanted[at:at + need - len(found)]
        at += len(batch)
        # Those tied with the last of the batch come too: which of equals is kept is
        # then decided by path, as a full read decides it.
        while at < len(wanted) and scores[wanted[at]] == scores[batch[-1]]:
            batch.append(wanted[at])
            at += 1
        got = snap.entries_of(set(batch))
        entries += got
        found.update(e.blob for e in got)
        tried.update(batch)
    return entries, found, tried


#: Field weights of the fragment fallback, as in the full-text index.
_FRAGMENT_FIELDS = (("what", 3.0), ("context_label", 2.0), ("why", 1.0), ("scope", 0.5))


def _fragments_of(query: str) -> list[str]:
    return [w for w in (x.strip("\"'()*?[]{}:,.;!") for x in query.lower().split())
            if len(w) >= 3][:8]


def fragment_candidates(snap: Snapshot, query: str) -> list[Entry] | None:
    """Return the memories that may hold one of the query's fragments (fragments() then says
    which do), found in the view's run of file contents at once rather than by parsing
    every memory; None when that cannot be told so (no view, or a fragment that a JSON
    file may spell otherwise, such as one with a digit). A memory whose file has bytes
    outside ASCII or a `\\u` escape is always one: its text, lowered, may hold what its
    bytes do not spell."""
    frags = _fragments_of(query)
    # A number is read as its JSON text (core/memory: 1e5 is "100000.0"), which the
    # file's bytes need not spell: a fragment with a digit is looked for everywhere.
    if not frags or any(not f.isascii() or not f.replace("-", "").replace("_", "").isalnum()
                        or any(c.isdigit() for c in f) for f in frags) \
            or snap.body() is None:
        return None
    from git_aide.read.contents import mentioning

    return mentioning(snap, lambda body: _spelling(body, frags), lambda _c: False)


def _spelling(body: bytes, frags: list[str]) -> list[int]:
    """Find where the bytes hold a fragment (in any case), a `\\u` escape or a byte outside
    ASCII. Found with bytes' own search (a regular expression that ignores case reads
    10 MB in 0.1 s, `find` on the lowered bytes in a few ms)."""
    import re

    low = body.lower()
    out: list[int] = []
    for lit in [*(f.encode() for f in frags), b"\\u"]:
        at = low.find(lit)
        while at >= 0:
            out.append(at)
            at = low.find(lit, at + len(lit))
    if not body.isascii():
        out.extend(m.start() for m in re.finditer(rb"[\x80-\xff]+", body))
    return out


def fragments(entries: list[Entry], query: str) -> dict[str, float]:
    """Return the memories holding a fragment (`eterizat`) inside a word, when no word matches."""
    frags = _fragments_of(query)
    if not frags or not entries:
        return {}
    scores: dict[str, float] = {}
    for e in entries:
        r = e.read_record()
        score = 0.0
        for frag in frags:
            best = 0.0
            for fld, weight in _FRAGMENT_FIELDS:
                if r[fld] and frag in r[fld].lower():
                    best = max(best, weight)
            if any(frag in t.lower() for t in r["tags"]):
                best = max(best, 2.0)
            score += best
        if score:
            scores[e.blob] = score
    return scores


def search_entries(ft: FullText, entries: list[Entry], query: str, filters: Filters, limit: int,
           memo: RankMemo, progress: Progress | None = None) -> list[Hit]:
    """Return the matching memories, best first, at most `limit`."""
    kept = [e for e in entries if filters.keep(e)]
    return _ranked(kept, relevance(ft, kept, query, limit, progress), limit, memo)


def search_in(ft: FullText, snap: Snapshot, query: str, limit: int, memo: AnswerMemo,
              progress: Progress | None = None) -> list[Hit] | None:
    """Run search() over every memory of a snapshot, its best matches found by blob id so
    that only their groups are decoded; None when that cannot answer (no view to name
    the blobs, or no word matched: search() then looks for fragments)."""
    if snap.warmed() is not None:
        # A long-lived process that decoded the whole view: ranked from its columns.
        from git_aide.app import column_search

        ids = snap.blob_ids()
        if ids is not None:
            among = Among(ids)
            robust(ft, lambda: _add_missing(ft, snap, among, progress))
            hits = column_search.search_columns(ft, snap, query, limit, memo)
            if hits is not None:
                return hits
    found = relevance_in(ft, snap, query, limit, progress)
    if found is None or not found[0]:
        return None
    return _ranked(sorted(found[1], key=lambda e: e.path), found[0], limit, memo.rank)


def _ranked(entries: list[Entry], scores: dict[str, float], limit: int, memo: RankMemo
            ) -> list[Hit]:
    hits = [Hit(e, e.scope, score=scores[e.blob]) for e in entries if e.blob in scores]
    return order(hits, limit, memo)[:limit]


#: How much the newest of the matches gains over the oldest (a share of the score).
RECENCY_WEIGHT = 0.1


def order(hits: list[Hit], limit: int, memo: RankMemo, meaning: Meaning | None = None
          ) -> list[Hit]:
    """Order search hits best first: the BM25F score, a little more for the newer of the
    matches; a memory superseded by a newer match after every current one (`hybrid`:
    a model's cosine of two memories, which supersession weighs when there is one)."""
    from git_aide.rank.recall import supersession_window
    from git_aide.rank.supersede import superseded

    if not hits:
        return hits
    stamps = [h.entry.updated_at for h in hits]
    dates = sorted(set(stamps))
    lift = {d: 1.0 + RECENCY_WEIGHT * (i / max(len(dates) - 1, 1)) for i, d in enumerate(dates)}
    for h, d in zip(hits, stamps, strict=True):
        h.score = (h.score or 0.0) * lift[d]
    # Supersession among the best few (each is parsed to compare its words), as many
    # as recall compares: a superseded match further down keeps its place.
    hits.sort(key=lambda h: (-(h.score or 0.0), h.entry.uuid))
    head = hits[:supersession_window(limit)]
    old = {o.uuid for o, _n in superseded([h.entry for h in head], memo, meaning)}
    if not old:
        return hits
    # The superseded (all in the head) after every current match, each part in its
    # order: a stable partition, not a sort of every match.
    behind = [h for h in head if h.entry.uuid in old]
    current = [h for h in head if h.entry.uuid not in old] + hits[len(head):]
    # The score shown is the one that ordered the list: the superseded, after every
    # current match, are scaled below the last of them (their own order kept).
    if current:
        least = current[-1].score or 0.0  # best first: the last is the least
        top = behind[0].score or 0.0
        if top >= least > 0:
            scale = 0.99 * least / top
            for h in behind:
                h.score = (h.score or 0.0) * scale
    return current + behind
