"""The memory a new text would duplicate: the near duplicates `remember` warns of, and
the one an agent's `aide_remember` (or `remember --merge`) updates instead of writing a
second memory (issue 41; docs/audit.md).

A near duplicate is a memory of the same layer and sharing, whose scope overlaps the new
one's, and whose words are nearly the same (`aide.audit.duplicateThreshold`, the
similarity `audit` reports), or, with a model, whose meaning is (a cosine of at least
meaning.DUPLICATE_COSINE). One is merged into only when the new text keeps every exact
thing it names (core/words.exact: a name, a number, a flag, an identifier): the newer
text wins, so a memory that names what the new text lacks would lose a fact, and two
memories that differ in a value (`10 connections`, `25 connections`) may be two facts.
Measured on the judged pairs of bench/quality (`python3 bench/quality/merge.py
[--model DIR]`): no two distinct facts are merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from git_aide.core import memory
from git_aide.core import scope as scopes

if TYPE_CHECKING:
    from git_aide.app.semantic import Semantic
    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry


@dataclass(frozen=True)
class NearDuplicate:
    """Hold a memory nearly the same as a new text."""

    #: The memory.
    entry: Entry
    #: How alike: the share of words in common, or the model's cosine.
    similarity: float
    #: "words" or "meaning".
    by: str
    #: The exact tokens of the memory that the new text lacks (core/words.exact_tokens):
    #: merging would lose them.
    lacks: tuple[str, ...]

    def said(self) -> str:
        """Say how alike, as a warning says it."""
        if self.by == "words":
            return f"{round(self.similarity * 100)}% the same words"
        return f"the same meaning, cosine {self.similarity:.2f}"


def by_words(repo: Repo, entries: list[Entry], what: str, layer: str, scope: str | None,
             shared: bool) -> list[NearDuplicate]:
    """Return the memories whose words are nearly those of `what`, most alike first."""
    from git_aide.rank import duplicates

    compiled = None if scope is None else scopes.compile_scope(scope)
    found = duplicates.near_duplicates(entries, what, layer, compiled, shared,
                                       repo.settings.audit_duplicate_threshold)
    at = {e.uuid: e for e in entries}
    return [NearDuplicate(at[uuid], sim, "words", lacking(at[uuid].read_what(), what))
            for uuid, sim in found]


def by_meaning(repo: Repo, cache: Cache, entries: list[Entry], record: dict[str, Any],
               skip: set[str], sem: Semantic | None = None) -> list[NearDuplicate]:
    """Return the memories a configured model finds nearly the same in meaning as `record`
    (not those of `skip`), most alike first; none without a usable model. `sem`: the
    model's state a long-lived process keeps (else it is loaded for this call)."""
    from git_aide.app.hybrid import DUPLICATE_COSINE
    from git_aide.app.semantic import Semantic
    from git_aide.rank.duplicates import is_personal, overlap

    if sem is None:
        sem = Semantic(repo, cache)
    if not sem.configured or not sem.ready(say=False):
        return []
    compiled = None if record["scope"] is None else scopes.compile_scope(record["scope"])
    mine = [e for e in entries if e.layer == record["layer"] and e.uuid not in skip
            and is_personal(e.path) != record["shared"] and overlap(compiled, e.compiled)]
    if not mine:
        return []
    sem.embed_entries(mine)
    text = f"{record['what']} {record['why']}" if record.get("why") else record["what"]
    cos = sem.cosines(text, [e.blob for e in mine])
    found = [NearDuplicate(e, cos[e.blob], "meaning", lacking(e.read_what(), record["what"]))
             for e in mine if cos.get(e.blob, 0.0) >= DUPLICATE_COSINE]
    found.sort(key=lambda n: (-n.similarity, n.entry.uuid))
    return found


def lacking(older: str, newer: str) -> tuple[str, ...]:
    """Return the exact tokens of `older` (its names, numbers, flags, identifiers) whose words
    `newer` does not hold, each once."""
    from git_aide.core.words import exact_tokens
    from git_aide.rank.duplicates import words

    mine = words(newer)
    return tuple(dict.fromkeys(t for t in exact_tokens(older) if not words(t) <= mine))


def near(repo: Repo, cache: Cache, entries: list[Entry], record: dict[str, Any],
         merge: bool, sem: Semantic | None = None) -> tuple[list[str], NearDuplicate | None]:
    """Return (warnings naming the memories that say nearly what `record` says, the one to
    merge into when `merge` and one keeps every fact): by words, and when merging by meaning
    too (with a model; `sem` as by_meaning takes it)."""
    found = by_words(repo, entries, record["what"], record["layer"], record["scope"],
                     record["shared"])
    if merge:
        into = target(found, record["scope"])
        if into is None:
            found += by_meaning(repo, cache, entries, record, {n.entry.uuid for n in found},
                                sem)
            into = target(found, record["scope"])
        if into is not None:
            return [], into
    return [warning(n, record["layer"], merge) for n in found], None


def target(near: list[NearDuplicate], scope: str | None) -> NearDuplicate | None:
    """Return the near duplicate to merge into: the most alike whose every exact word the new
    text keeps, and whose scope and `scope` make one scope."""
    return next((n for n in near if not n.lacks and joins(n.entry.scope, scope)), None)


def joined_scope(a: str | None, b: str | None) -> str | None:
    """Join two scopes into one that covers both: project-wide if either is, else their alternatives
    (`{src/a/**,src/b/**}`)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    alternatives = list(dict.fromkeys(scopes.expand_braces(a) + scopes.expand_braces(b)))
    return scopes.join_alternatives(alternatives)


def joins(a: str | None, b: str | None) -> bool:
    """Tell whether the scope joined of two is one a memory may have (not too many
    alternatives, not too long)."""
    joined = joined_scope(a, b)
    return joined is None or scopes.check_new(joined) is None


def merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Update `old` by `new`: the newer text wins (its what, and its why and label when
    it has them), the tags and scopes are joined, `always` is kept."""
    record = dict(old)
    record["what"] = new["what"]
    for key in ("why", "context_label"):
        if new.get(key):
            record[key] = new[key]
    tags = old["tags"] if isinstance(old.get("tags"), list) else []
    record["tags"] = list(dict.fromkeys([*tags, *new["tags"]]))
    record["scope"] = joined_scope(old["scope"], new["scope"])
    if new["priority"] == "always":
        record["priority"] = "always"
    record["generated_by"] = new.get("generated_by")
    record["updated_at"] = max(memory.now(), str(old["created_at"]))
    return record


def warning(near: NearDuplicate, layer: str, merging: bool) -> str:
    """Return what `remember` says of a near duplicate it wrote beside."""
    said = f"a near duplicate of {near.entry.uuid} ({near.said()}) is in {layer}"
    if not merging:
        return (f"{said}; remembered anyway (--merge updates it instead; `git aide audit` "
                "lists duplicates)")
    why = f"it names {', '.join(near.lacks[:3])}, which this text lacks" if near.lacks \
        else "its scope and this one make too long a scope"
    return f"{said}, but {why}: remembered beside it, not merged (`git aide audit` lists " \
        "duplicates)"
