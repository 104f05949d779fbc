"""What each reading and writing command answers, as data: the hits it ranks and the
`--json` document it prints. The command line dumps or renders these; the MCP server
(agents/mcp/server.py) hands the same documents to agents, so there is one implementation.

Nothing here prints; heavy modules are imported inside the functions that need them,
since a plain recall comes through here on the hot path.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter

from git_aide.app.memo import AnswerMemo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    from git_aide.app.queries import ListQuery, RecallQuery, SearchQuery
    from git_aide.app.search import Progress
    from git_aide.app.semantic import Semantic
    from git_aide.app.store import Written
    from git_aide.cache.folder import Cache
    from git_aide.cache.index import FullText
    from git_aide.core.scope import Compiled
    from git_aide.gitio.repo import Repo
    from git_aide.rank.selection import Filters, Hit, Query
    from git_aide.read.later import Queue
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    T = TypeVar("T")
    #: Whether a compiled scope (None: project-wide) may be relevant to the query paths.
    ScopeFilter = Callable[[Compiled | None], bool]
    #: The scores of a question's matches among some entries, by blob id.
    Relevance = Callable[[list[Entry]], dict[str, float]]


def filters(layers: tuple[str, ...] | list[str] = (), tags: tuple[str, ...] | list[str] = (),
            contributor: str | None = None) -> Filters:
    """Return the --layer / --tag / --contributor filters."""
    from git_aide.rank.selection import Filters

    return Filters(layers=tuple(layers), tags=tuple(tags), contributor=contributor)


def recall_hits(repo: Repo, cache: Cache, snap: Snapshot, ask: RecallQuery, *,
                index: FullText | None = None, semantic: Semantic | None = None,
                memo: AnswerMemo | None = None, count: bool = True) -> list[Hit]:
    """Return `recall`'s memories relevant to the paths `ask` names, in recall order, cut
    at the limit.

    `index`: an open full-text index to reuse (the server keeps one); `semantic`: the
    model's state, whose cosines re-order the candidates of a question; `memo`: what a
    long-lived process keeps between calls (a command passes none); `count`: add the
    recall to the per-machine stats.
    """
    paths, query, limit = ask.paths, ask.question, ask.limit
    layers, tags, contributor = ask.layers, ask.tags, ask.contributor
    scoped_only, always = ask.scoped_only, ask.always
    from git_aide.rank import recall as rc
    from git_aide.rank.mentions import MentionFinder
    from git_aide.rank.selection import Hit, query_paths
    from git_aide.read.contents import mentioning
    from git_aide.read.worktree import speculate

    memo = memo if memo is not None else AnswerMemo()
    queries = query_paths(repo.worktree, repo.prefix, paths)
    relevance = None
    if query is not None and query.strip():
        from git_aide.app import search as sr

        ft = index if index is not None else sr.open_index(cache)
        # Scores lift memories across layers and scopes; the best few hundred are
        # plenty to rank a cut of `limit` memories.
        want = max(5 * (limit or 20), 200)

        def relevance(entries: list[Entry]) -> dict[str, float]:
            return sr.relevance(ft, entries, query, want)

    min_depth = repo.settings.recall_min_scope_depth
    # Decode only the memories whose scope is relevant: most of a large store is not.
    relevant = _scope_filter(queries, min_depth, memo.filters)
    pw_limit = repo.settings.recall_project_wide_limit
    # A path recall without filters weighs only the newest project-wide memories and
    # those its question finds (recall._cap_project_wide): the rest need not be decoded.
    newest = (rc.PROJECT_WIDE_SCAN if queries and pw_limit >= 0
              and not (layers or tags or contributor) else None)
    decode = relevant if not scoped_only else (lambda c: c is not None and relevant(c))
    cut = limit if limit is not None else repo.settings.recall_limit
    diversity_min = repo.settings.recall_layer_diversity_min_limit
    if relevance is not None:
        ft.warm(query or "")
        snap.prefetch_ids()

    def gather() -> list[Hit]:
        """Return the candidates (with the memories elsewhere that name the path or match the
        question), ranked."""
        entries = snap.entries_where(decode, newest_wide=newest, near=queries or None)
        finder = MentionFinder(queries)  # a new one each time: it counts what it sees
        # Memories elsewhere that name a query path in their text, or a query file's
        # stem in their scope or text: weak candidates, found by one pass over the
        # stored contents, not by decoding every memory.
        mentions = (mentioning(snap, finder, relevant, finder.kept(), finder.words())
                    if finder.active() and not scoped_only else [])
        elsewhere: list[Entry] = []
        meaning = None
        rel: Relevance | None = relevance
        if rel is not None and queries:
            elsewhere = _strong_matches(snap, ft, query or "", relevant)
        if rel is not None and newest is not None and not scoped_only:
            entries, rel = _question_wide(snap, ft, query or "", want, entries, decode,
                                          rel, mentions + elsewhere)
        if rel is not None and semantic is not None and semantic.configured \
                and semantic.ready():
            from git_aide.app.hybrid import meaning_of, recall_relevance

            rel = recall_relevance(semantic, query or "", queries, rel)
            meaning = meaning_of(semantic, entries)
        return rc.recall(
            entries, queries, filters(layers, tags, contributor), memo=memo.rank, relevance=rel,
            limit=cut, min_depth=min_depth, diversity_min=diversity_min,
            project_wide_limit=pw_limit,
            mentions=mentions, elsewhere=elsewhere, query=query, body=snap.body(),
            on_topic=finder.names_a_stem, meaning=meaning,
        )

    # Worked out (and ranked) while git compares the working tree, when the snapshot
    # was loaded early; again only if git names other files than guessed.
    hits = _paused(speculate, snap, gather)
    if always and not scoped_only:
        keep = filters(layers, tags, contributor).keep
        have = {h.entry.uuid for h in hits}
        hits += [Hit(e, None) for e in always_on(snap) if e.uuid not in have and keep(e)]
    if count:
        from git_aide.app.stats import count as count_answer

        count_answer(cache, "recall", "cli", [h.entry.uuid for h in hits])
    return hits


#: The most always-on memories a recall shows (more would not fit a session start's
#: budget either; a store of hundreds decodes only their first groups).
ALWAYS_SHOWN = 20


def always_on(snap: Snapshot) -> list[Entry]:
    """Return the always-on memories (priority `always`) of a snapshot, in its order, at
    most ALWAYS_SHOWN of those in the view (and any laid over it).

    Their stored bytes are searched in one run, so that only the groups holding one are
    decoded; each found is checked in its parsed record."""
    import re

    from git_aide.read.contents import mentioning

    # What marks one in its stored bytes, canonical or written by hand.
    marked = re.compile(rb'"priority"\s*:\s*"always"')

    def found(data: bytes) -> list[int]:
        out: list[int] = []
        at = data.find(b'"always"')
        while at >= 0 and len(out) < ALWAYS_SHOWN:
            m = marked.search(data, max(0, at - 40), at + 8)
            if m is not None:
                out.append(m.start())
            at = data.find(b'"always"', at + 8)
        return out

    return [e for e in mentioning(snap, found, lambda _c: False)
            if e.read_record().get("priority") == "always"]


def _paused(work: Callable[[Snapshot, Callable[[], T]], T], snap: Snapshot,
            gather: Callable[[], T]) -> T:
    """Run `work(*args)` without the cyclic garbage collector: a path recall makes a hit per
    candidate (thousands in a large store), freed by reference counting as soon as the
    answer is cut, and a collection meanwhile would promote them and, every few calls,
    walk a long-lived process's whole heap (its decoded views) for nothing."""
    from git_aide.core import collector

    with collector.paused():
        return work(snap, gather)


#: How many scope filters an AnswerMemo keeps, and how many recalls one serves before it
#: is made again (the scopes of files laid over a view are new each time: its verdicts
#: grow).
KEPT_FILTERS = 32
FILTER_USES = 1000


def _scope_filter(queries: list[Query], min_depth: int, kept: dict[tuple[object, ...],
                  tuple[ScopeFilter, int]]) -> ScopeFilter:
    """Return rank/selection.scope_filter for these paths, made once while `kept`
    (AnswerMemo.filters) keeps it (it keeps each verdict with its compiled scope, so a
    verdict never outlives what it is about)."""
    from git_aide.rank.selection import scope_filter

    key = (tuple((q.path, q.is_dir) for q in queries), min_depth)
    got = kept.pop(key, None)
    if got is None or got[1] >= FILTER_USES:
        while len(kept) >= KEPT_FILTERS:
            kept.pop(next(iter(kept)))
        got = (scope_filter(queries, min_depth), 0)
    kept[key] = (got[0], got[1] + 1)  # the newest last: the oldest go first
    return got[0]


def query_key(repo: Repo, paths: tuple[str, ...] | list[str]) -> tuple[tuple[str, bool], ...]:
    """Return the query paths of a recall as the working tree has them now (repo-relative,
    and whether each is a folder): what a kept answer must have been asked for."""
    from git_aide.rank.selection import query_paths

    return tuple((q.path, q.is_dir) for q in query_paths(repo.worktree, repo.prefix, paths))


def _question_wide(snap: Snapshot, ft: FullText, query: str, want: int, entries: list[Entry],
                   decode: ScopeFilter, relevance: Relevance, weak: list[Entry]
                   ) -> tuple[list[Entry], Relevance]:
    """Answer a path recall with a question: return the candidates, with the project-wide
    memories the question finds among all of them (found by blob id, so only those are
    decoded), and the relevance of them all (and of the `mentions` candidates). The same
    answer as decoding every project-wide memory."""
    from git_aide.app import search as sr

    wide = snap.blobs_where(lambda c: c is None)
    found = None
    if wide is not None:
        allowed = wide | {e.blob for e in entries if e.compiled is not None} \
            | {e.blob for e in weak}
        found = sr.relevance_in(ft, snap, query, want, allowed=allowed,
                                skip=lambda c: c is not None)
    if found is None or not found[0]:
        # No view, or no word matched (fragments are looked for in every candidate).
        return snap.entries_where(decode), relevance
    scores, more = found
    have = {e.blob for e in entries}

    def relevance_of(hits: list[Entry]) -> dict[str, float]:
        # As relevance() answers for these hits: their scores, else their fragments.
        return {e.blob: scores[e.blob] for e in hits if e.blob in scores} \
            or sr.fragments(hits, query)

    return entries + [e for e in more if e.blob not in have], relevance_of


#: How many of the whole store's best --query matches a path recall with a question
#: also weighs (relevance to a question crosses layers and scopes).
ELSEWHERE_MATCHES = 10


def _strong_matches(snap: Snapshot, ft: FullText, query: str, relevant: ScopeFilter
                    ) -> list[Entry]:
    """Return the store's best matches for `query` whose scope the path does not reach."""
    from git_aide.app import search as sr

    found = sr.relevance_in(ft, snap, query, ELSEWHERE_MATCHES,
                            skip=lambda c: c is None or (c is not False and relevant(c)),
                            need=ELSEWHERE_MATCHES)
    if found is not None and found[0]:
        scores, every = found[0], sorted(found[1], key=itemgetter(0))
    else:  # no view to name the blobs, or no word matched (fragments: every memory)
        every = snap.entries
        scores = sr.relevance(ft, every, query, ELSEWHERE_MATCHES)
    if not scores:
        return []
    by_blob = {e.blob: e for e in every if e.blob in scores}
    best = sorted(by_blob.values(), key=lambda e: -scores[e.blob])
    return [e for e in best if e.compiled is not None
            and not relevant(e.compiled)][:ELSEWHERE_MATCHES]


def search_hits(repo: Repo, snap: Snapshot, ft: FullText, ask: SearchQuery, *,
                progress: Progress | None = None, semantic: Semantic | None = None,
                memo: AnswerMemo | None = None) -> list[Hit]:
    """Return `search`'s memories: those matching `ask`'s words that pass its filters,
    best first. `semantic`: the model's state (app/semantic.py; None: by words);
    `memo`: what a long-lived process keeps between calls (a command passes none)."""
    from git_aide.app import search as sr

    query, limit, mode = ask.text, ask.limit, ask.mode
    layers, tags, contributor = ask.layers, ask.tags, ask.contributor

    if not query.strip():
        from git_aide.core.errors import UsageError

        raise UsageError("search needs words to look for; an empty query matches nothing")
    memo = memo if memo is not None else AnswerMemo()
    lim = limit if limit is not None else repo.settings.search_limit
    narrowed = bool(layers or tags or contributor)
    if mode != "keyword":
        if semantic is not None and semantic.configured:
            from git_aide.app import hybrid

            keep = filters(layers, tags, contributor).keep if narrowed else None
            return hybrid.search_hybrid(semantic, ft, snap, query, lim, mode, keep, progress, memo)
        if mode == "semantic":
            from git_aide.core.errors import UsageError

            raise UsageError("semantic search needs a model: set aide.semantic.model "
                             "(git aide semantic fetch)")
    hits = sr.search_in(ft, snap, query, lim, memo, progress) if not narrowed else None
    if hits is not None:
        return hits
    entries = None
    if not narrowed and snap.blob_ids() is not None:
        # search_in() found no word of the query in any memory: only fragments can
        # match, and only memories whose files spell them are read.
        entries = sr.fragment_candidates(snap, query)
    return sr.search_entries(ft, snap.entries if entries is None else entries, query,
                             filters(layers, tags, contributor), lim, memo.rank, progress)


def chosen_hits(entries: list[Entry]) -> list[Hit]:
    """Return the memories an agent named by id, as hits in the order named."""
    from git_aide.rank.selection import Hit

    return [Hit(e, e.scope) for e in entries]


def list_hits(snap: Snapshot, ask: ListQuery) -> list[Hit]:
    """Return `list`'s memories: every memory of `snap` that passes `ask`'s filters."""
    return listed(snap.entries, ask)


def listed(entries: list[Entry], ask: ListQuery) -> list[Hit]:
    """Return the `entries` that pass `list`'s filters (ListQuery), as hits in its
    order."""
    from git_aide.core.memory import agent_of, generated_by_matches
    from git_aide.rank import recall as rc

    layers, tags, contributor, scope = ask.layers, ask.tags, ask.contributor, ask.scope
    priority, by, generated_by = ask.priority, ask.by, ask.generated_by

    hits = rc.listing(entries, filters(layers, tags, contributor))
    if priority is not None:
        hits = [h for h in hits if (h.entry.read_record().get("priority") == "always")
                == (priority == "always")]
    if by is not None:
        hits = [h for h in hits if (agent_of(h.entry.read_record()) is None) == (by == "person")]
    if generated_by is not None:
        hits = [h for h in hits if generated_by_matches(h.entry.read_record(), generated_by)]
    if scope is not None and scope.strip():
        from git_aide.core import scope as scopes
        from git_aide.core.errors import UsageError

        problem = scopes.check(scope)
        if problem:
            raise UsageError(f"--scope: {problem}")
        keep = scopes.under(scope)
        hits = [h for h in hits if keep(h.entry.scope)]
    return hits


def memories_doc(snap: Snapshot, hits: list[Hit],
                 items: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Return the recall / search / list `--json` document (`items`: the hits' documents, when
    made already)."""
    if items is None:
        from git_aide.read.record import Records

        # More than the records kept: each is read once, and keeping them is waste.
        once = len(hits) > Records.KEPT_RECORDS
        items = [memory_doc(h, once) for h in hits]
    return {"source": snap.source.as_json(), "memories": items}


def memory_doc(hit: Hit, once: bool = False) -> dict[str, Any]:
    """Return a memory for the JSON output: every field of the file, then where and why it matched
    (and `"store": "user"` for one of the user's own store, whose path is absolute);
    `once`: its record is not kept (Entry.read_record_once)."""
    from git_aide.core.memory import in_user_store

    # A copy of its own.
    doc = hit.entry.read_record_once() if once else hit.entry.read_record()
    doc["path"] = hit.entry.path
    doc["matched_scope"] = hit.matched_scope
    doc["score"] = None if hit.score is None else round(hit.score, 4)
    if in_user_store(hit.entry.path):
        doc["store"] = "user"
    return doc


def show_doc(snap: Snapshot | None, entry: Entry) -> dict[str, Any]:
    """Return the show `--json` document (`snap` None: read from the user store alone)."""
    from git_aide.core.memory import in_user_store

    doc = dict(entry.read_record())
    doc["path"] = entry.path
    if in_user_store(entry.path):
        doc["store"] = "user"
    source = snap.source.as_json() if snap is not None else USER_SOURCE
    return {"source": source, "memory": doc}


#: The source of an answer read from the user store alone (`list --user`, a command run
#: outside any repository).
USER_SOURCE = {"kind": "user", "rev": None, "commit": None}


def remember_doc(w: Written) -> dict[str, Any]:
    """Return the remember `--json` document (`merged`: the near duplicate it updated instead,
    how alike the two were and by what; a write to the user store says so, and whether
    it was committed there)."""
    doc: dict[str, Any] = {"uuid": w.uuid, "path": w.path, "created": w.created,
                           "staged": w.staged, **_user_write(w.committed),
                           "warnings": w.warnings}
    if w.merged is not None:
        doc["merged"] = {"into": w.uuid, "by": w.merged.by,
                         "similarity": round(w.merged.similarity, 3)}
    return doc


def update_doc(w: Written) -> dict[str, Any]:
    """Return the update `--json` document."""
    return {"uuid": w.uuid, "path": w.path, "staged": w.staged, **_user_write(w.committed),
            "warnings": w.warnings}


def forget_doc(gone: list[str], staged: bool, committed: bool | None = None
               ) -> dict[str, Any]:
    """Return the forget `--json` document (`committed`: whether the user store's memories
    among them were forgotten in a commit there; None: there were none)."""
    return {"forgotten": gone, "staged": staged, **_user_write(committed)}


def _user_write(committed: bool | None) -> dict[str, Any]:
    """Return what a write's document adds when it wrote the user store."""
    return {} if committed is None else {"store": "user", "committed": committed}


def warm_view(snap: Snapshot, memo: AnswerMemo,
              index: Callable[[], FullText | None] = lambda: None) -> None:
    """Ask a long-lived process to decode the snapshot's view between calls, and to work
    out ahead what comparing its memories needs (rank/supersede.warm), which could
    supersede which (rank/candidates.py) and the view as columns (app/columns.py, with the
    places of the documents of `index()`, the process's full-text index), once per view,
    into the process's `memo`."""
    from git_aide.rank import supersede

    later = snap.later
    if later is None:  # not read by a long-lived process: nothing is done between calls
        return
    snap.want_warm(partial(supersede.warm, memo=memo.rank),
                   lambda every, first: _ahead(every, first, index, later, memo))


def _ahead(every: list[Entry], first: dict[str, int], index: Callable[[], FullText | None],
           later: Queue, memo: AnswerMemo) -> Iterator[None]:
    """Work out, in steps, what a long-lived process keeps of a whole decoded view
    (`first`: each blob's place in it)."""
    from git_aide.app import columns
    from git_aide.rank import supersede

    yield from supersede.relate(every, memo.rank)
    yield from columns.make(every, first, later, memo)
    ft = index()
    tables = ft.tables() if ft is not None else None
    if tables is not None:
        yield from columns.place(every, tables, memo)
