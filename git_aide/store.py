"""remember, update, forget: validate, write atomically, stage (DESIGN section 6)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any

from git_aide import memory, secrets
from git_aide import scope as scopes
from git_aide.cache import Cache
from git_aide.errors import AideError, UsageError
from git_aide.memory import PERSONAL_DIR
from git_aide.repo import Repo
from git_aide.sources import Entry, load

#: What a personal folder's own .gitignore says: ignore everything here, itself included.
PERSONAL_IGNORE = "# git-aide: personal memories are private and never committed\n*\n"


@dataclass
class Written:
    """The outcome of a write, as the JSON output reports it."""

    #: The memory's uuid.
    uuid: str
    #: Its repo-relative path.
    path: str
    #: Whether the change is in the index.
    staged: bool
    #: False when an identical memory already existed (remember only).
    created: bool = True
    #: Things the user should know that did not stop the write.
    warnings: list[str] = field(default_factory=list)
    #: The record as written.
    record: dict[str, Any] | None = None


def find(entries: list[Entry], ident: str) -> Entry:
    """The memory named by a uuid or a unique prefix of at least 4 characters."""
    key = ident.strip().lower()
    if len(key) < 4:
        raise AideError(f"id {ident!r} is too short: give at least 4 characters of the uuid")
    exact = [e for e in entries if e.uuid == key]
    if exact:
        return exact[0]
    hits = [e for e in entries if e.uuid.startswith(key)]
    if not hits:
        raise AideError(f"no memory with id {ident!r}")
    if len(hits) > 1:
        names = ", ".join(sorted(e.uuid for e in hits))
        raise AideError(f"id {ident!r} is ambiguous: it matches {names}")
    return hits[0]


def check_text(what: str | None = None, why: str | None = None, label: str | None = None,
               tags: list[str] | None = None) -> None:
    """Refuse empty or oversized text and anything that looks like a secret."""
    if what is not None:
        if not what.strip():
            raise AideError("the memory is empty: give it some text")
        if len(what) > memory.MAX_WHAT:
            raise AideError(f"the memory is {len(what)} characters; at most {memory.MAX_WHAT}")
    for tag in tags or []:
        if not tag.strip():
            raise AideError("a tag is empty")
    for text in (what, why, label, *(tags or [])):
        if text is not None and not memory.encodable(text):
            raise AideError("the text is not valid UTF-8; not remembered")
    for name, text in (("text", what), ("why", why), ("label", label)):
        kind = secrets.find(text) if text else None
        if kind:
            raise AideError(f"the {name} looks like a secret ({kind}); not remembered")
    for tag in tags or []:
        kind = secrets.find(tag)
        if kind:
            raise AideError(f"a tag looks like a secret ({kind}); not remembered")


def clean_scope(scope: str | None, *, empty_clears: bool = False) -> str | None:
    """A scope as stored: backslashes as '/', "project" as project-wide.

    An empty scope is an error, except where `update --scope ''` clears it.
    """
    if scope is None or scope == "project" or (empty_clears and scope == ""):
        return None
    message = scopes.check(scope)
    if message:
        raise AideError(message)
    return scopes.normalize(scope)


def remember(repo: Repo, cache: Cache, what: str, *, why: str | None = None,
             layer: str | None = None, scope: str | None = None, tags: list[str] | None = None,
             label: str | None = None, personal: bool = False, priority: str = "normal",
             source: str = "conversation", stage: bool = True) -> Written:
    """Store a new memory, or return the existing one with the same text, layer and scope."""
    top = repo.require_worktree("remember")
    if personal and layer not in (None, "preferences"):
        raise UsageError(f"--personal is a private preference; it cannot go in layer {layer}")
    layer = "preferences" if personal else (layer or "technical")
    if layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    check_text(what, why, label, tags)
    stored_scope = clean_scope(scope)
    if layer == "area_context" and stored_scope is None:
        raise AideError("an area_context memory needs a scope (--scope GLOB)")
    shared = not personal
    entries = load(repo, cache).entries
    for e in entries:
        r = e.record
        if (r["layer"] == layer and r["scope"] == stored_scope and r["shared"] == shared
                and r["what"].strip() == what.strip()):
            return Written(r["uuid"], e.path, staged=False, created=False, record=r)
    near = _near_duplicates(repo, entries, what, layer, stored_scope, shared)
    contributor = repo.config("user.name") or repo.config("user.email") or "unknown"
    record = memory.new(
        what, layer=layer, contributor=contributor, why=why or None, scope=stored_scope,
        context_label=label or None, tags=tags, source=source, shared=shared,
        priority=priority,
    )
    path = memory.relpath(record)
    if personal:
        _protect_personal(top)
    write_file(os.path.join(top, path), memory.canonical(record))
    result = Written(record["uuid"], path, staged=False, record=record, warnings=near)
    if stage and not personal:
        _stage(repo, cache, result, add=[path], remove=[])
    return result


def _near_duplicates(repo: Repo, entries: list[Entry], what: str, layer: str,
                     scope: str | None, shared: bool) -> list[str]:
    """Warnings naming the memories of the layer that say nearly the same thing."""
    from git_aide import audit, duplicates

    compiled = None if scope is None else scopes.compile_scope(scope)
    threshold = audit.Settings.from_repo(repo).duplicate_threshold
    return [f"a near duplicate of {uuid} ({round(sim * 100)}% the same words) is in "
            f"{layer}; remembered anyway (`git aide audit` lists duplicates)"
            for uuid, sim in duplicates.near_duplicates(entries, what, layer, compiled, shared,
                                                   threshold)]


def update(repo: Repo, cache: Cache, ident: str, *, what: str | None = None,
           why: str | None = None, scope: str | None = None, add_tags: list[str] | None = None,
           remove_tags: list[str] | None = None, label: str | None = None,
           layer: str | None = None, stage: bool = True) -> Written:
    """Change fields of a memory in the working tree; a new layer moves its file."""
    top = repo.require_worktree("update")
    entry = find(load(repo, cache).entries, ident)
    old = entry.record
    record = dict(old)
    if what is not None:
        record["what"] = what
    if why is not None:
        record["why"] = why or None
    if label is not None:
        record["context_label"] = label or None
    if scope is not None:
        record["scope"] = clean_scope(scope, empty_clears=True)
    if layer is not None:
        if layer not in memory.LAYERS:
            raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
        record["layer"] = layer
        if layer != "preferences":
            record["shared"] = True
    tags = list(record["tags"])
    for t in add_tags or []:
        if t not in tags:
            tags.append(t)
    record["tags"] = [t for t in tags if t not in set(remove_tags or [])]
    check_text(what, why, label, add_tags)
    if record["layer"] == "area_context" and record["scope"] is None:
        raise AideError("an area_context memory needs a scope (--scope GLOB)")
    path = memory.relpath(record)
    if record == old:
        return Written(record["uuid"], path, staged=False, record=old)
    record["updated_at"] = max(memory.now(), old["created_at"])
    problems = memory.check(memory.repair(record))  # a file read liberally is written strictly
    if problems:
        fld, message = problems[0]
        raise AideError(f"{fld}: {message}" if fld else message)
    write_file(os.path.join(top, path), memory.canonical(record))
    if path != entry.path:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(top, entry.path))
    result = Written(record["uuid"], path, staged=False, record=record)
    if stage:
        add = [] if memory.is_personal(record) else [path]
        remove = [entry.path] if path != entry.path and not memory.is_personal(old) else []
        _stage(repo, cache, result, add=add, remove=remove)
    return result


def forget(repo: Repo, cache: Cache, idents: list[str], *, stage: bool = True
           ) -> tuple[list[str], bool, list[str]]:
    """Delete memories (and stage the removals): (uuids, staged, warnings)."""
    top = repo.require_worktree("forget")
    entries = load(repo, cache).entries
    chosen: dict[str, Entry] = {}
    for ident in idents:
        e = find(entries, ident)
        chosen[e.uuid] = e
    shared = [e.path for e in chosen.values() if not e.path.startswith(PERSONAL_DIR + "/")]
    for e in chosen.values():
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(top, e.path))
    result = Written("", "", staged=False)
    if stage and shared:
        _stage(repo, cache, result, add=[], remove=shared)
    return list(chosen), result.staged, result.warnings


def _stage(repo: Repo, cache: Cache, result: Written, add: list[str], remove: list[str]
           ) -> None:
    # Our own writers queue on the cache lock instead of racing for index.lock.
    with cache.lock("stage"):
        ok = repo.stage(add=add, remove=remove)
    result.staged = ok
    if not ok:
        result.warnings.append(
            "the index is locked by another git process: the memory was written but not "
            f"staged; run `git add {' '.join(add + remove)}` when it is free")


def _protect_personal(top: str) -> None:
    """Make sure personal memories cannot be committed, even before `git aide init`."""
    folder = os.path.join(top, PERSONAL_DIR)
    os.makedirs(folder, exist_ok=True)
    ignore = os.path.join(folder, ".gitignore")
    if not os.path.exists(ignore):
        write_file(ignore, PERSONAL_IGNORE.encode())


def write_file(path: str, data: bytes) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed."""
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
