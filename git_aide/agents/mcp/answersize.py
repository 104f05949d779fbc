"""An MCP tool's answer within its budget of characters, counted as a client counts them.

Claude Code and Codex hand the model the structured content as JSON when a result
carries one, Gemini CLI hands it the text: both count. A document within the budget is
given unchanged. One over it keeps the first items of its lists, in order, as many as
fit, and says what it left out: `"truncated": true` and `"more"`, the count of each
list's items left out, the short ids of the first of them and the call that gets them.
A single memory larger than the whole budget is shown with its longest texts cut and
`"clipped": true`. Only the items that may fit are made (fitting).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    from git_aide.core.jsonvalue import JSON, JSONObject

    #: What a list of an answer is made of (hits, say).
    T = TypeVar("T")

#: At most this many ids name the items a list left out (the count says how many).
MORE_IDS = 40
#: Per commit of a log, at most this many ids name the changes left out.
COMMIT_IDS = 10
#: The texts of a record that may be cut when one record alone is over the budget.
CLIPPABLE = ("what", "why", "subject", "dropped_value", "context_label", "reason")


#: The compact encoder, made once: json.dumps with options makes a new one each call,
#: which costs as much as measuring a small item (an answer measures dozens).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def size(doc: JSON) -> int:
    """Count the characters of `doc` as a client serialises it: compact JSON, Unicode kept."""
    return len(_COMPACT.encode(doc))


#: More bases kept than this and they are forgotten (a view's memories, many times over).
MOST_BASES = 50_000


def memory_size(bases: dict[tuple[str, str], int], key: tuple[str, str],
                item: JSONObject) -> int:
    """Return size(item) of a memory's item (answers.memory_doc) made of the file `key`
    (path, blob id): the keys are its record's and the same three, so its size is a
    fixed part and the sizes of the two values that change from answer to answer.
    `bases` keeps the fixed parts by key: the item less its "matched_scope" and "score"
    values is its record's and path's, the same in every answer that holds it (what a
    warm server measures again and again: ServerState.item_sizes)."""
    tail = size(item.get("matched_scope")) + size(item.get("score"))
    base = bases.get(key)
    if base is None:
        if len(bases) >= MOST_BASES:
            bases.clear()
        base = bases[key] = size(item) - tail
    return base + tail


def fitting(things: Sequence[T], make: Callable[[T], JSONObject],
            stub: Callable[[T], JSONObject], budget: int,
            sizes: dict[int, int] | None = None,
            measure: Callable[[T, JSONObject], int] | None = None
            ) -> list[JSONObject]:
    """Return the items of a list that bound() will cut to `budget`: make(x) for the first
    things, until their sizes alone pass the budget, and stub(x) (its "uuid") for the
    rest. Any list holding all the made ones is over the budget, so bound() keeps none
    of the stubs, and names and counts them as it would the made: an answer of 50
    memories of which 10 fit parses and measures 11, not 50. `sizes`: filled with the
    made items' sizes, by id(), for bound() (measured here already); `measure(x, item)`:
    the item's size, when known otherwise than by size(item)."""
    out: list[JSONObject] = []
    total = 0
    for i, x in enumerate(things):
        item = make(x)
        out.append(item)
        n = size(item) if measure is None else measure(x, item)
        total += n
        if sizes is not None:
            sizes[id(item)] = n
        if total > budget:
            out.extend(stub(y) for y in things[i + 1:])
            break
    return out


def _largest(fits: Callable[[int], bool], hi: int) -> int:
    """Return the largest n in [0, hi] for which `fits(n)` (`fits(0)` is true): sizes grow
    with n (an item adds far more than the one id it takes out of `more`)."""
    lo = 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _leading(sizes: Iterable[int], budget: int) -> int:
    """Count how many of the first sizes add up to at most `budget` (the rest not read)."""
    n = 0
    for x in sizes:
        budget -= x
        if budget < 0:
            break
        n += 1
    return n


def short(uuid: JSON) -> str:
    """Return the id an agent may give back: 8 characters of the uuid (a unique prefix)."""
    return str(uuid)[:8]


def item_id(x: JSON) -> str | None:
    """Return the short id of a list's item: a memory (full or compact), a change; None if none."""
    if isinstance(x, dict):
        ident = x.get("uuid") or x.get("id")
        if isinstance(ident, str) and ident:
            return short(ident)
    return None


def _ids(items: list[JSON], most: int) -> list[str]:
    """Return the short ids of the first `most` items."""
    return [i for i in map(item_id, items[:most]) if i is not None]


def clip(item: JSONObject, room: int) -> JSONObject | None:
    """Return `item` with its longest texts cut until it takes at most `room` characters, marked
    `"clipped": true`; None when cutting texts cannot get it there."""
    out: JSONObject = json.loads(json.dumps(item))
    out["clipped"] = True

    def leaves(node: JSON) -> list[tuple[JSONObject, str]]:
        found: list[tuple[JSONObject, str]] = []
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, str) and k in CLIPPABLE:
                    found.append((node, k))
                elif isinstance(v, (dict, list)):
                    found += leaves(v)
        elif isinstance(node, list):
            for v in node:
                found += leaves(v)
        return found

    while (over := size(out) - room) > 0:
        texts = [(len(node[k]), node, k) for node, k in leaves(out)]
        if not texts:
            return None
        length, node, key = max(texts, key=lambda t: t[0])
        if length <= 41:
            # Cut to 40 and the ellipsis, it would be no shorter: what is left to cut
            # is not text (a long list of tags), and cutting again would never end.
            return None
        # Escapes make a character cost more than one in JSON: cut, measure, cut again.
        node[key] = node[key][:max(40, length - over - 1)].rstrip() + "…"
    return out


def bound(doc: JSONObject, keys: tuple[str, ...] | list[str], budget: int,
          hint: str | Callable[[int], str], sizes: dict[int, int] | None = None
          ) -> JSONObject:
    """Return `doc` within `budget`: unchanged when it fits; else the first items of its lists
    `keys` (in that order, as if one list) that fit, with `truncated` and `more`; `hint`
    says how to get the rest (a function of how many items were kept, or a text).
    `sizes`: items' sizes by id(), measured already (fitting()); it gets the sizes
    measured here too, so it must not outlive the items (an id is then reused)."""
    lists = [(k, doc[k]) for k in keys if isinstance(doc.get(k), list)]
    # Each item is measured once: a candidate's size is then its frame's (the document
    # with those lists empty) plus its items' and the commas between them, which is
    # what serialising it whole would count, without serialising every item again for
    # each candidate the search below tries.
    known = {} if sizes is None else sizes

    def measured(x: JSON) -> int:
        n = known.get(id(x))
        if n is None:
            n = known[id(x)] = size(x)
        return n

    listed = {k for k, _v in lists}

    def sized(out: JSONObject) -> int:
        frame = size({k: ([] if k in listed else v) for k, v in out.items()})
        for k in listed:
            kept = out.get(k) or ()
            if kept:
                frame += sum(map(measured, kept)) + len(kept) - 1
        return frame

    # No more items fit than those whose sizes alone are within the budget: a cut of
    # more is known not to fit without measuring it (nor the items after them).
    total = sum(len(v) for _, v in lists)
    most = _leading(map(measured, (x for _k, items in lists for x in items)), budget)
    if most == total and sized(doc) <= budget:
        return doc

    # The items left out of a cut of n are the items after the first n (the lists
    # taken in order): their short ids are worked out once, for every cut tried.
    named = [x for _k, items in lists for x in items]
    named_ids = [item_id(x) for x in named]

    def make(n: int, first: JSONObject | None = None, ids: int = MORE_IDS,
             with_hint: bool = True) -> JSONObject:
        out = dict(doc)
        more: JSONObject = {}
        kept = n
        for k, items in lists:
            take = min(n, len(items))
            n -= take
            out[k] = items[:take]
            if take < len(items):
                more[k] = len(items) - take
        if first is not None:
            k = next(k for k, items in lists if items)
            out[k] = [first, *out[k][1:]]
        out["truncated"] = True
        more["ids"] = [x for x in named_ids[kept:kept + ids] if x is not None]
        if with_hint and hint:
            more["hint"] = hint(min(kept, total)) if callable(hint) else hint
        out["more"] = more
        return out

    if sized(make(0)) > budget:
        # Room for no item and not even the ids: the counts alone, then nothing else.
        for ids, with_hint in ((10, True), (0, True), (0, False)):
            if sized(small := make(0, ids=ids, with_hint=with_hint)) <= budget:
                return small
        return {"truncated": True,
                "more": {k: len(v) for k, v in lists if v}}
    # The frame (the ids and counts left out, the hint) most often takes the room of an
    # item or two: the largest cut that fits is sought down from `most` a few steps
    # first, then halving (sizes grow with n: either finds the same).
    n = most
    for _ in range(3):
        if n <= 0 or sized(make(n)) <= budget:
            break
        n -= 1
    else:
        n = _largest(lambda m: sized(make(m)) <= budget, n)
    if n == 0 and total:
        first = next(items[0] for _, items in lists if items)
        if isinstance(first, dict):
            room = budget - sized(make(1)) + size(first)
            cut = clip(first, room)
            if cut is not None and sized(make(1, cut)) <= budget:
                return make(1, cut)
    return make(n)


def bound_log(doc: JSONObject, budget: int, hint: Callable[[int], str]
              ) -> JSONObject:
    """Return a log document within `budget`: the first commits that fit, then as many of
    their changes and conflicts as fit, in order; a commit whose changes were cut says
    how many and names the first; commits left out are counted, with `hint(shown)`, the
    call that continues."""
    if size(doc) <= budget:
        return doc
    commits: list[JSONObject] = doc.get("commits", [])
    cut_keys = ("changes", "conflicts")

    def units(c: JSONObject) -> int:
        return sum(len(c.get(k) or ()) for k in cut_keys)

    def make(shown: int, keep: int) -> JSONObject:
        out: JSONObject = dict(doc)
        kept = []
        for c in commits[:shown]:
            c2 = dict(c)
            more: JSONObject = {}
            rest: list[JSON] = []
            for k in cut_keys:
                items = c.get(k)
                if not isinstance(items, list):
                    continue
                take = min(keep, len(items))
                keep -= take
                c2[k] = items[:take]
                if take < len(items):
                    more[k] = len(items) - take
                    rest += items[take:]
            if more:
                more["ids"] = _ids(rest, COMMIT_IDS)
                more["hint"] = ("aide_recall {\"ids\": [...], \"rev\": \""
                                + str(c.get("commit", ""))[:12] + "\"} shows them as of "
                                "this commit; aide_log {\"uuid\": ID} follows one")
                c2["more"] = more
            kept.append(c2)
        out["commits"] = kept
        out["truncated"] = True
        if shown < len(commits):
            out["more"] = {"commits": len(commits) - shown, "hint": hint(shown)}
        return out

    shown = _largest(lambda n: size(make(n, 0)) <= budget, len(commits))
    if size(make(shown, 0)) > budget:
        return {"commits": [], "truncated": True,
                "more": {"commits": len(commits), "hint": hint(0)}}
    keep = _largest(lambda n: size(make(shown, n)) <= budget,
                    sum(units(c) for c in commits[:shown]))
    return make(shown, keep)


def cap(text: str, budget: int) -> str:
    """Return `text` within `budget` characters, cut after a whole line when it must be."""
    if len(text) <= budget:
        return text
    note = f"… (cut: an answer holds at most {budget} characters)"
    room = max(0, budget - len(note) - 1)
    head = text[:room]
    if "\n" in head:
        head = head[:head.rindex("\n")]
    return (head + "\n" + note) if head else note[:budget]
