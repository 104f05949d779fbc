"""The MCP tools that read memories: aide_recall, aide_search and aide_memories. Their
answers on the working tree are kept and given again while nothing they depend on
changed (warm/state.py); a compact answer leaves out what the agent holds already
(given.py)."""

from __future__ import annotations

import json
import sys

from git_aide.agents.mcp.given import always_wanted, given_to
from git_aide.agents.mcp.toolwork import asks_full, budget, find
from git_aide.warm.kept_answers import call_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from git_aide.agents.mcp.given import Given
    from git_aide.agents.mcp.toolwork import Answer
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo
    from git_aide.rank.recall import Hit
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot
    from git_aide.warm.kept_items import Items
    from git_aide.warm.state import ServerState


def _memories(repo: Repo, snap: Snapshot, hits: list[Hit], full: bool,
              hint: str | Callable[[int], str], bases: dict[tuple[str, str], int],
              empty: str = "No memories.", ranked: bool = True,
              given: Given | None = None, gave: list[str] | None = None,
              shown: Items | None = None) -> Answer:
    """Return the recall / search / list answer for `hits`, within the budget: compact, or
    `full`, the command's --json document. `given`: what the agent holds already (its
    short ids, and what its rules files hold): left out of a compact answer, named in
    its `given`. `gave`: gets the uuids of the memories the answer holds. `bases`: the
    server's sizes of the memories' items, kept between calls (ServerState.item_sizes,
    answersize.memory_size). `shown`: the server's compact items, each made, measured
    and written once (warm/kept_items.py)."""
    from git_aide.agents.mcp.answersize import bound, fitting, memory_size, short, size
    from git_aide.agents.mcp.text import compact, compact_source, memories_text, memory_body
    from git_aide.app import answers

    cap = budget(repo)
    # Only the memories that may fit are made (parsed, shaped and measured).
    sizes: dict[int, int] = {}
    if full:
        items = fitting(hits, answers.memory_doc, lambda h: {"uuid": h.entry.uuid}, cap,
                        sizes, lambda h, item: memory_size(bases, (h.entry.path, h.entry.blob),
                                                           item))
        doc = answers.memories_doc(snap, hits, items)
    else:
        held: list[str] = []
        if given is not None:
            ids, _opened, reads = given
            loaded = reads()  # read only when the answer is worked out, not when kept
            fresh = []
            for h in hits:
                if h.entry.uuid[:8] in ids or (
                        loaded is not None and loaded.has(h.entry.read_record())):
                    held.append(h.entry.uuid[:8])
                else:
                    fresh.append(h)
            hits = fresh
        if shown is None:
            items = fitting(hits, compact, lambda h: {"id": short(h.entry.uuid)}, cap, sizes)
        else:
            def make(h: Hit) -> JSONObject:
                newer = getattr(h, "superseded", None)
                return shown.item((h.entry.path, h.entry.blob,
                                   None if newer is None else newer.entry.uuid),
                                  lambda: compact(h))

            items = fitting(hits, make, lambda h: {"id": short(h.entry.uuid)}, cap, sizes,
                            lambda _h, item: shown.size(item, size))
        doc = {**compact_source(snap.source.as_json()), "memories": items}
        if held:
            doc["given"] = held[:GIVEN_NAMED]
    doc = bound(doc, ("memories",), cap, hint, sizes)
    if gave is not None:  # bound() keeps the first memories
        gave.extend(h.entry.uuid for h in hits[:len(doc["memories"])])
    body = memory_body if shown is None else \
        (lambda m, ranked: shown.line(m, ranked, memory_body))
    text = memories_text(doc, empty=empty if not doc.get("given") else
                         "Nothing new.", budget=cap, ranked=ranked, body=body)
    if doc.get("given"):
        text += ("\nAlready in your context: " + ", ".join(f"`{i}`" for i in doc["given"]))
    return doc, text


#: The most ids a compact answer names of the memories the agent holds already.
GIVEN_NAMED = 20


def _kept(mem: ServerState, name: str, a: JSONObject, work: Callable[[], Answer],
          full_text: bool = False, more: tuple[object, ...] = ()) -> Answer:
    """Return `work()`'s answer on the working tree, or the one an identical call got while
    nothing it depends on changed since (warm/state.py); a revision's is worked out.
    `full_text`: the answer depends on the full-text index; `more`: on these too."""
    from git_aide.app.context import index_state

    if a.get("rev") is not None:
        return work()
    state = mem.state(full_text)
    key = call_key(name, a, more)
    kept = mem.answers.get(state, key)
    if kept is not None:
        doc, text, counted, said = kept
        for line in said:
            sys.stderr.write(f"git-aide: warning: {line}\n")
        mem.counted = None if counted is None else (counted[0], list(counted[1]))
        return doc, text
    saves = mem.index(mem.context().cache).saves if full_text else 0
    doc, text = work()
    # A search adds the documents the index lacked: the answer is kept for the state of
    # the index it left, stat again when it wrote the index or may have embedded memories
    # (a model named: state[-2]). (A memory file changed meanwhile is an event the next
    # call's state reads: that state is another, and this answer is not given for it.)
    if state is not None and full_text and (
            state[-2] is not None or mem.index(mem.context().cache).saves != saves):
        state = mem.answers.enter((*state[:-1], index_state(mem.context().cache)))
    mem.answers.put(state, key, (doc, text, mem.counted, list(mem.said)))
    return doc, text


def aide_recall(mem: ServerState, a: JSONObject) -> Answer:
    """Return the memories relevant to paths (as `recall --json`), or those `ids` names."""
    from git_aide.app import answers

    query = a["query"]
    asks = bool(query and query.strip()) and not a["ids"]
    more = () if a["ids"] or a["rev"] else answers.query_key(mem.repo(), a["paths"] or [])
    always = not a["ids"] and always_wanted(mem)
    given = given_to(mem, a, a["paths"] or [])
    return _kept(mem, "aide_recall", a, lambda: _recall(mem, a, always, given), asks,
                 (*more, always, given and given[:2]))


def _recall(mem: ServerState, a: JSONObject, always: bool = False,
            given: Given | None = None) -> Answer:
    """Work out aide_recall's answer."""
    from git_aide.app import answers
    from git_aide.app.queries import RecallQuery

    # Without the folder's watch, the answer is worked out while git compares the tree.
    early = not a["ids"] and a["rev"] is None
    repo, cache, snap = mem.read(a["rev"], early=early)
    if a["ids"]:
        chosen: dict[str, Entry] = {}
        for ident in a["ids"]:
            e = find(snap, ident)
            chosen.setdefault(e.uuid, e)
        hits = answers.chosen_hits(list(chosen.values()))
    else:
        query = a["query"]
        ft = mem.index(cache) if query and query.strip() else None
        ask = RecallQuery(a["paths"] or [], question=query, layers=a["layers"] or (),
                          tags=a["tags"] or (), contributor=a["contributor"],
                          limit=a["limit"], always=always)
        hits = answers.recall_hits(repo, cache, snap, ask, index=ft,
                                   semantic=mem.semantic(repo, cache) if ft else None,
                                   memo=mem.memo, count=False)
        if early:
            mem.say(snap)  # settled by now
        if always and a["rev"] is None:
            mem.always_given = True
    full = asks_full(a)
    # By ids, the answer is whole records unless told: a compact answer's rest is asked
    # compact.
    at = (f', "rev": {json.dumps(a["rev"])}' if a["rev"] else "") + \
        ("" if full else ', "detail": "compact"')
    gave: list[str] = []
    answer = _memories(repo, snap, hits, full,
                       'aide_recall {"ids": [these ids]' + at + "} returns them",
                       mem.item_sizes, given=given, gave=gave, shown=mem.compact_items)
    mem.counted = ("recall", gave)
    return answer


def rehearse(mem: ServerState) -> Iterator[None]:
    """Work out between calls, and drop, a first recall's answer of the working tree's top
    folder: what any first recall would otherwise work out for itself is then kept (the
    always-on memories found, parsed, their items made and measured; the newest
    project-wide memories' records and words; the scopes' filters). Nothing is counted,
    kept as an answer, or marked given. Steps of ServerState.prepare."""
    from git_aide.app import answers
    from git_aide.app.queries import RecallQuery

    yield  # after the steps asked for before it
    try:
        repo, cache, snap = mem.read(say=False)
        hits = answers.recall_hits(repo, cache, snap, RecallQuery(["."], always=True),
                                   memo=mem.memo, count=False)
        _memories(repo, snap, hits, False, "", mem.item_sizes, shown=mem.compact_items)
    except Exception:  # noqa: BLE001,S110 -- work done ahead: the first call meets it
        pass
    finally:
        mem.end_quietly()


def aide_search(mem: ServerState, a: JSONObject) -> Answer:
    """Search the memories' text, best first, from `offset` on (as `search --json`)."""
    if a.get("rev") is None and a.get("mode") != "keyword":
        mem.foresee(a["keyword"])
    given = given_to(mem, a, [])
    return _kept(mem, "aide_search", a, lambda: _search(mem, a, given), True,
                 (given and given[:2],))


def _search(mem: ServerState, a: JSONObject, given: Given | None = None) -> Answer:
    """Work out aide_search's answer."""
    from git_aide.app import answers
    from git_aide.app.queries import SearchQuery
    from git_aide.app.semantic import MODES

    repo, cache, snap = mem.read(a["rev"])
    ft = mem.index(cache)
    skip = a["offset"]
    limit = a["limit"] if a["limit"] is not None else repo.settings.search_limit
    # aide-memory's prompts may send another word: read liberally, as "auto".
    mode = str(a.get("mode")) if a.get("mode") in MODES else "auto"
    ask = SearchQuery(a["keyword"], layers=[a["layer"]] if a["layer"] else [],
                      tags=a["tags"] or (), contributor=a["contributor"],
                      limit=limit + skip, mode=mode)
    hits = answers.search_hits(repo, snap, ft, ask, semantic=mem.semantic(repo, cache),
                               memo=mem.memo)[skip:]
    gave: list[str] = []
    answer = _memories(repo, snap, hits, asks_full(a),
                       lambda n: f'call aide_search again with "offset": {skip + n}',
                       mem.item_sizes, empty=f"Nothing matches {a['keyword']!r}.",
                       given=given, gave=gave, shown=mem.compact_items)
    mem.counted = ("search", gave)
    return answer


def aide_memories(mem: ServerState, a: JSONObject) -> Answer:
    """List every memory that passes the filters, from `offset` on (as `list --json`)."""
    return _kept(mem, "aide_memories", a, lambda: _listed(mem, a))


def _listed(mem: ServerState, a: JSONObject) -> Answer:
    """Work out aide_memories' answer."""
    from git_aide.app import answers
    from git_aide.app.queries import ListQuery

    repo, _cache, snap = mem.read(a["rev"])
    hits = answers.list_hits(snap, ListQuery(
        layers=[a["layer"]] if a["layer"] else [], tags=a["tags"] or (),
        contributor=a["contributor"], scope=a["scope"], priority=a["priority"],
        by=a["by"], generated_by=a["generated_by"]))
    skip = a["offset"]
    gave: list[str] = []
    answer = _memories(repo, snap, hits[skip:skip + a["limit"]], asks_full(a),
                       lambda n: f'call aide_memories again with "offset": {skip + n}',
                       mem.item_sizes, ranked=False, gave=gave, shown=mem.compact_items)
    mem.counted = ("list", gave)
    return answer
