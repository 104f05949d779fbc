"""What changed between two listings of the memories folder (path -> blob id).

The ground of `log` and `diff` (history.py): identity is the uuid, which is also the
file's name, so a memory whose path changes (a layer move) is the same memory. Only
the blobs that differ are read and parsed, and the answer for two trees is kept in the
cache under their ids, since two trees always differ the same way.
"""

from __future__ import annotations

from git_aide.core import memory
from git_aide.core.memory import LAYERS, MEMORIES_DIR, PERSONAL_DIR
from git_aide.read import listing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSON
    from git_aide.gitio.repo import Repo

#: Fields left out when two versions are compared: the path says nothing new.
_NOT_FIELDS = frozenset({"path"})
_PERSONAL = PERSONAL_DIR + "/"
#: Layer -> its rank, for ordering output by layer.
LAYER_RANK = {layer: i for i, layer in enumerate(LAYERS)}


def shared_memory_path(path: str) -> bool:
    """Tell whether a repo-relative path can hold a shared (committed) memory."""
    return (path.startswith(MEMORIES_DIR + "/") and not path.startswith(_PERSONAL)
            and listing.is_candidate(path, None))


# -- reading blobs ---------------------------------------------------------------------


def _parse(data: bytes | None, path: str, warnings: list[str] | None
           ) -> dict[str, Any] | None:
    """Read the record at `path`, or None (with a warning) when it is not a live memory there."""
    if data is None:
        return None
    try:
        record = memory.parse(data, path)
    except memory.MemoryFormatError as e:
        if warnings is not None:
            field = f"{e.field}: " if e.field else ""
            warnings.append(f"{path}: {field}{e}; skipped")
        return None
    where = memory.check_path(record, path)
    if where is not None:
        if warnings is not None:
            warnings.append(f"{path}: {where}; skipped")
        return None
    return record


def record_at(data: bytes | None, path: str) -> dict[str, Any] | None:
    """Return the memory `data` holds at `path` as every read takes it, its path included; None
    when it is no live memory there."""
    record = _parse(data, path, None)
    return None if record is None else _doc(record, path)


def fields_changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Return the names of the fields whose values differ, in the file's order."""
    keys = list(after) + [k for k in before if k not in after]
    missing = object()
    return [k for k in keys if k not in _NOT_FIELDS
            and _same(before.get(k, missing), after.get(k, missing)) is False]


def _same(a: JSON, b: JSON) -> bool:
    # 1 == True == 1.0 in Python; in a file they are different values.
    return type(a) is type(b) and a == b


def _doc(record: dict[str, Any], path: str) -> dict[str, Any]:
    doc = dict(record)
    doc["path"] = path
    return doc


def _order(doc: dict[str, Any]) -> tuple[int, str]:
    return LAYER_RANK.get(doc.get("layer", ""), len(LAYERS)), doc["path"]


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-5] if name.endswith(".json") else ""


def _holders(listing_: dict[str, str], changed: dict[str, str]) -> dict[str, list[str]]:
    """Map uuid file name -> its paths in order, for the changed names that several paths hold."""
    wanted = {_stem(p) for p in changed}
    holders: dict[str, list[str]] = {}
    for p in listing_:
        stem = _stem(p)
        if stem in wanted and shared_memory_path(p):
            holders.setdefault(stem, []).append(p)
    return {stem: sorted(ps) for stem, ps in holders.items() if len(ps) > 1}


def compare(before: dict[str, str], after: dict[str, str],
            read: Callable[[set[str]], dict[str, bytes]], warnings: list[str] | None = None
            ) -> dict[str, list[Any]]:
    """Return what changed between two listings (path -> blob id): added, forgotten, changed.

    Only the blobs that differ are read (`read`), so the cost follows the change.
    """
    old = {p: b for p, b in before.items() if after.get(p) != b and shared_memory_path(p)}
    new = {p: b for p, b in after.items() if before.get(p) != b and shared_memory_path(p)}
    # A uuid held by several files (a copy left behind) is rare: only then are the
    # unchanged holders read too, to keep the one every read keeps.
    dups = (_holders(before, old), _holders(after, new))
    extra = {listing_[p] for d, listing_ in zip(dups, (before, after), strict=True)
             for ps in d.values() for p in ps}
    data = read(set(old.values()) | set(new.values()) | extra)
    olds: dict[str, tuple[str, dict[str, Any]]] = {}
    news: dict[str, tuple[str, dict[str, Any]]] = {}
    for paths, listing_, held, side, warn in ((old, before, dups[0], olds, None),
                                              (new, after, dups[1], news, warnings)):
        for path, blob in paths.items():
            record = _parse(data.get(blob), path, warn)
            if record is None:
                continue
            keep = next((p for p in held.get(_stem(path), ())
                         if _parse(data.get(listing_[p]), p, None) is not None), path)
            if keep != path:  # as every read does: the first valid path keeps the uuid
                if warn is not None:
                    warn.append(f"{path}: uuid already used by {keep}; skipped")
                continue
            side.setdefault(record["uuid"], (path, record))
    added = [_doc(r, p) for u, (p, r) in news.items() if u not in olds]
    forgotten = [_doc(r, p) for u, (p, r) in olds.items() if u not in news]
    changed: list[dict[str, Any]] = []
    for u, (path, after_rec) in news.items():
        if u not in olds:
            continue
        old_path, before_rec = olds[u]
        changed.append({"uuid": u, "fields": fields_changed(before_rec, after_rec),
                        "before": _doc(before_rec, old_path), "after": _doc(after_rec, path)})
    added.sort(key=_order)
    forgotten.sort(key=_order)
    changed.sort(key=lambda c: _order(c["after"]))
    return {"added": added, "forgotten": forgotten, "changed": changed}


# -- paths -----------------------------------------------------------------------------


def path_filter(repo: Repo, paths: Iterable[str]) -> Callable[[dict[str, Any]], bool] | None:
    """Tell whether a memory (a record) is relevant to one of the paths (docs/ranking.md)."""
    paths = list(paths)
    if not paths:
        return None
    from git_aide.core import scope as scopes
    from git_aide.rank.selection import query_paths, scope_filter

    keep = scope_filter(query_paths(repo.worktree, repo.prefix, paths),
                        repo.settings.recall_min_scope_depth)
    compiled: dict[str, Any] = {}

    def relevant(record: dict[str, Any]) -> bool:
        scope = record.get("scope")
        if not isinstance(scope, str) or scopes.is_project_wide(scope):
            return keep(None)
        c = compiled.get(scope)
        if c is None:
            try:
                c = compiled[scope] = scopes.compile_scope(scope)
            except Exception:  # a scope that does not compile matches nothing
                return False
        return keep(c)

    return relevant


def filter_paths(doc: dict[str, Any], relevant: Callable[[dict[str, Any]], bool]
                  ) -> dict[str, Any]:
    out = dict(doc)
    out["added"] = [m for m in doc["added"] if relevant(m)]
    out["forgotten"] = [m for m in doc["forgotten"] if relevant(m)]
    out["changed"] = [c for c in doc["changed"] if relevant(c["before"]) or relevant(c["after"])]
    return out


def tree_diff(cache: Cache | None, old: str, new: str,
              compute: Callable[[list[str]], dict[str, list[Any]]],
              warnings: list[str] | None) -> dict[str, list[Any]]:
    """Run compare() on two memories trees, keeping the answer in the cache under their ids.

    Two trees always differ the same way, so the answer is never stale: a second
    `diff A B`, or a `log` over commits it walked before, reads no blob at all.
    """
    key = f"{old}-{new}"
    got = cache.read("history", key) if cache is not None else None
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], dict):
        doc, said = got
    else:
        said = []
        doc = compute(said)
        if cache is not None:
            cache.write((doc, said), "history", key)
    if warnings is not None:
        warnings.extend(said)
    return doc
