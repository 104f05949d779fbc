"""remember, update, forget: validate, write atomically, stage (docs/memory-file.md).

Every write holds the repository's write lock (`<git common dir>/aide.lock`, outside
the cache, which may be removed at any moment) from the moment it reads the memories
until its change is written and staged, so that concurrent writers queue instead of
overwriting each other: every writer that exits 0 has its change in the file, a memory
reported forgotten stays forgotten, and a uuid is never in two files. The lock is an OS
lock (flock), which the kernel releases when its holder dies, so a killed writer never
leaves it stuck.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from git_aide.app import scopecheck
from git_aide.cache.folder import Cache
from git_aide.core import files, jsontext, memory
from git_aide.core import scope as scopes
from git_aide.core.errors import AideError, UsageError
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR
from git_aide.gitio import folders, staging
from git_aide.gitio.repo import Repo
from git_aide.read.listing import blob_id
from git_aide.read.load import load
from git_aide.read.record import Entry

if TYPE_CHECKING:
    from git_aide.app.duplicate import NearDuplicate
    from git_aide.app.semantic import Semantic

#: What a personal folder's own .gitignore says: ignore everything here, itself included.
PERSONAL_IGNORE = "# git-aide: personal memories are private and never committed\n*\n"


@dataclass
class Written:
    """Hold the outcome of a write, as the JSON output reports it."""

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
    #: The near duplicate a remember merged into (app/duplicate.py), when it did.
    merged: NearDuplicate | None = None
    #: A write to the user's own store (app/userstore.py): whether it was committed
    #: there; None for a write to the repository.
    committed: bool | None = None


def find(entries: list[Entry], ident: str | int) -> Entry:
    """Find the memory named by a uuid, a unique prefix of at least 4 characters, or the
    integer `id` an aide-memory file carries (core/ids.py): the one resolver of the
    commands (show, update, forget) and the MCP tools."""
    from git_aide.core import ids

    def number(n: int) -> str | None:
        return next((e.uuid for e in entries if e.read_record().get("id") == n), None)

    uuid = ids.resolve(ident if isinstance(ident, int) else str(ident).strip(),
                       (e.uuid for e in entries), number)
    return next(e for e in entries if e.uuid == uuid)


def check_text(what: str | None = None, why: str | None = None, label: str | None = None,
               tags: list[str] | None = None) -> None:
    """Refuse empty text and empty tags, and text no file can hold.

    The rest (size, control characters, secrets, scope) is `check_record`'s.
    """
    if what is not None and not what.strip():
        raise AideError("the memory is empty: give it some text")
    for tag in tags or []:
        if not tag.strip():
            raise AideError("a tag is empty")
    for text in (what, why, label, *(tags or [])):
        if text is not None and not jsontext.encodable(text):
            raise AideError("the text is not valid UTF-8; not remembered")


def check_pasted(what: str | None, force: bool = False, forcible: bool = True) -> None:
    """Refuse text that is pasted output the code or git already holds (a stack trace,
    a diff, `git log`, a listing of files: core/pasted.py), unless `force`; the message
    names --force when the command has it (`forcible`)."""
    from git_aide.core import pasted

    kind = None if what is None or force else pasted.find(what)
    if kind:
        anyway = ", or keep it anyway with --force" if forcible else ""
        raise AideError(f"this looks like {kind}, which the code or git can show again: "
                        f"remember what it taught you instead{anyway}")


def check_record(record: dict[str, Any]) -> None:
    """Refuse a record that `validate` would refuse, with validate's own message."""
    from git_aide.app.validate import write_problems

    problems = write_problems(record)
    if problems:
        fld, message = problems[0]
        raise AideError(f"{fld}: {message}" if fld else message)


def clean_scope(scope: str | None, *, empty_clears: bool = False) -> str | None:
    """Return a scope as stored: backslashes as '/', "project" as project-wide.

    An empty scope is an error, except where `update --scope ''` clears it.
    """
    if scope is None or scope == "project" or (empty_clears and scope == ""):
        return None
    message = scopes.check_new(scope)
    if message:
        raise AideError(message)
    return scopes.normalize(scope)


def remember(repo: Repo, cache: Cache, what: str, *, why: str | None = None,
             layer: str | None = None, scope: str | None = None, tags: list[str] | None = None,
             label: str | None = None, personal: bool = False, priority: str = "normal",
             source: str = "conversation", stage: bool = True,
             contributor: str | None = None,
             generated_by: dict[str, Any] | None = None, force: bool = False,
             merge: bool = False, semantic: Semantic | None = None) -> Written:
    """Store a new memory, or return the existing one with the same text, layer and scope.

    `contributor`: who wrote it (default: git user.name, else user.email);
    `generated_by`: the agent that wrote it (memory.by_agent), None for a person;
    `force`: write text that looks pasted (check_pasted) all the same; `merge`: update a
    near duplicate instead of writing a second memory (app/duplicate.py), when one
    keeps every fact; `semantic`: the model's state a long-lived process keeps.
    """
    from git_aide.app import duplicate

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
    contributor = (contributor or "").strip() or (
        repo.config("user.name") or repo.config("user.email") or "unknown")
    record = memory.new(
        what, layer=layer, contributor=contributor, why=why or None, scope=stored_scope,
        context_label=label or None, tags=tags, source=source, shared=shared,
        priority=priority, generated_by=generated_by,
    )
    check_record(record)  # also a priority, source or contributor given by an agent
    check_pasted(what, force)
    path = memory.relpath(record)
    check_folder(top, path)
    staged = stage and not personal
    check_writable(repo, top, [path], staged, "nothing was remembered")
    # Listed before the lock is taken: other writers need not wait for it.
    unmatched = scopecheck.scope_warnings(repo, cache, top, stored_scope)
    with write_lock(repo):
        entries = load(repo, cache).entries
        for e in entries:
            r = e.read_record()
            if (r["layer"] == layer and r["scope"] == stored_scope and r["shared"] == shared
                    and r["what"].strip() == what.strip()):
                return Written(r["uuid"], e.path, staged=False, created=False,
                               warnings=unmatched, record=r)
        near, into = duplicate.near(repo, cache, entries, record, merge, semantic)
        if into is not None:
            return _merge(repo, cache, top, into, record, stage, unmatched)
        near = unmatched + near
        if personal:
            _protect_personal(top)
        _write(top, path, memory.canonical(record), "nothing was remembered")
        result = Written(record["uuid"], path, staged=False, record=record, warnings=near)
        if staged:
            try:
                _stage(repo, cache, result, add=[path], remove=[])
            except AideError as e:
                # A new file (its uuid is new): removing it loses nothing, and a failed
                # remember leaves no memory behind.
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(top, path))
                raise AideError(f"{e}; nothing was remembered", e.code) from None
    return result


def _merge(repo: Repo, cache: Cache, top: str, into: NearDuplicate, record: dict[str, Any],
           stage: bool, warnings: list[str]) -> Written:
    """Update the near duplicate `into` with the new `record` (duplicate.merged), under the
    write lock already held: the answer names it, `merged`."""
    from git_aide.app import duplicate

    entry, paths, old = _current(repo, cache, top, into.entry.uuid)
    changed = duplicate.merged(old, record)
    result = _rewrite(repo, cache, top, entry, paths, old, changed, stage, warnings)
    result.created = False
    result.merged = into
    return result


def update(repo: Repo, cache: Cache, ident: str, *, what: str | None = None,
           why: str | None = None, scope: str | None = None, add_tags: list[str] | None = None,
           remove_tags: list[str] | None = None, label: str | None = None,
           layer: str | None = None, priority: str | None = None, stage: bool = True,
           generated_by: dict[str, Any] | None | str = "keep", force: bool = False
           ) -> Written:
    """Change fields of a memory in the working tree; a new layer moves its file. New
    text that looks pasted is refused unless `force` (check_pasted).

    `generated_by` is who made this change (memory.by_agent for an agent, None for a
    person): a memory is marked by its last writer; "keep" (a mechanical change, as
    `audit --fix`'s) leaves the mark as it is.

    The memory is read, changed and written under the write lock, from the file on disk:
    a change made by another writer a moment before is kept, and a memory forgotten a
    moment before stays forgotten (this update then fails).
    """
    top = repo.require_worktree("update")
    if layer is not None and layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    if priority is not None and priority not in ("normal", "always"):
        raise UsageError(f"unknown priority {priority!r}; choose normal or always")
    check_text(what, why, label, add_tags)
    check_pasted(what, force)
    new_scope = clean_scope(scope, empty_clears=True) if scope is not None else None
    unmatched = scopecheck.scope_warnings(repo, cache, top, new_scope)
    with write_lock(repo):
        entry, paths, old = _current(repo, cache, top, ident)
        record = revised(old, what=what, why=why, scope=scope, new_scope=new_scope,
                         add_tags=add_tags, remove_tags=remove_tags, label=label,
                         layer=layer, priority=priority)
        if record == old and memory.relpath(record) == paths[0] and len(paths) == 1:
            return Written(record["uuid"], paths[0], staged=False, warnings=unmatched,
                           record=old)
        stamp(record, old, generated_by)
        return _rewrite(repo, cache, top, entry, paths, old, record, stage, unmatched)


def _rewrite(repo: Repo, cache: Cache, top: str, entry: Entry, paths: list[str],
             old: dict[str, Any], record: dict[str, Any], stage: bool, warnings: list[str]
             ) -> Written:
    """Write a memory's changed `record` over its file (`paths`: its files on disk, from
    _current; a new layer moves it) and stage the change, under the write lock."""
    if len(paths) > 1:
        raise AideError(f"memory {entry.uuid} is in {len(paths)} files ({', '.join(paths)}); "
                        "remove all but one (git rm), then update it")
    here = paths[0]
    if record["layer"] == "area_context" and record["scope"] is None:
        raise AideError("an area_context memory needs a scope (--scope GLOB)")
    path = memory.relpath(record)
    check_record(memory.repair(record))  # a file read liberally is written strictly
    check_folder(top, path)
    check_folder(top, here)
    check_writable(repo, top, list(dict.fromkeys([path, here])),
                   stage and not (memory.is_personal(record) and memory.is_personal(old)),
                   "nothing was changed")
    _write(top, path, memory.canonical(record), "nothing was changed")
    if path != here:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(top, here))
    result = Written(record["uuid"], path, staged=False, warnings=warnings, record=record)
    if stage:
        add = [] if memory.is_personal(record) else [path]
        remove = [here] if path != here and not here.startswith(PERSONAL_DIR + "/") else []
        _stage(repo, cache, result, add=add, remove=remove)
    return result


def revised(old: dict[str, Any], *, what: str | None, why: str | None, scope: str | None,
            new_scope: str | None, add_tags: list[str] | None, remove_tags: list[str] | None,
            label: str | None, layer: str | None, priority: str | None) -> dict[str, Any]:
    """Return `old` with update's changes (None: a field left as it is; `new_scope`: `scope` as
    stored); equal to `old` when nothing changes."""
    record = dict(old)
    if what is not None:
        record["what"] = what
    if why is not None:
        record["why"] = why or None
    if label is not None:
        record["context_label"] = label or None
    if scope is not None:
        record["scope"] = new_scope
    if priority is not None:
        record["priority"] = priority
    if layer is not None:
        record["layer"] = layer
        if layer != "preferences":
            record["shared"] = True
    tags = list(dict.fromkeys(record["tags"] if isinstance(record["tags"], list) else []))
    for t in add_tags or []:
        if t not in tags:
            tags.append(t)
    record["tags"] = [t for t in tags if t not in set(remove_tags or [])]
    if record["layer"] == "area_context" and record["scope"] is None:
        raise AideError("an area_context memory needs a scope (--scope GLOB)")
    return record


def stamp(record: dict[str, Any], old: dict[str, Any],
          generated_by: dict[str, Any] | None | str) -> None:
    """Date a changed record and mark its writer (see update)."""
    record["updated_at"] = max(memory.now(), str(old["created_at"]))
    if not isinstance(generated_by, str):
        record["generated_by"] = generated_by


def forget(repo: Repo, cache: Cache, idents: list[str], *, stage: bool = True
           ) -> tuple[list[str], bool, list[str]]:
    """Delete memories (and stage the removals): (uuids, staged, warnings).

    All or nothing: if one of them is gone already, none is deleted.
    """
    top = repo.require_worktree("forget")
    with write_lock(repo):
        chosen: dict[str, list[str]] = {}
        for ident in idents:
            entry, paths, _old = _current(repo, cache, top, ident, parse=False)
            chosen[entry.uuid] = paths
        every = [p for paths in chosen.values() for p in paths]
        for p in every:
            check_folder(top, p)
        shared = [p for p in every if not p.startswith(PERSONAL_DIR + "/")]
        check_writable(repo, top, every, stage and bool(shared), "nothing was forgotten")
        for p in every:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(top, p))
        result = Written("", "", staged=False)
        if stage and shared:
            _stage(repo, cache, result, add=[], remove=shared)
    return list(chosen), result.staged, result.warnings


def _current(repo: Repo, cache: Cache, top: str, ident: str, *, parse: bool = True
             ) -> tuple[Entry | Any, list[str], dict[str, Any]]:
    """Return (entry, its files on disk now, its record read from disk) for a memory id, read
    under the write lock; an error when the memory is gone."""
    entries = load(repo, cache).entries
    key = ident.strip().lower()
    try:
        entry = find(entries, ident)
    except AideError:
        if memory.UUID_RE.match(key):
            _gone(top, ident)
        raise
    paths = [p for p in dict.fromkeys([entry.path, *_homes(entry.uuid)])
             if _is_file(os.path.join(top, p))]
    if not paths:
        _gone(top, ident)
    if not parse:
        return entry, paths, {}
    here = paths[0]
    try:
        with open(os.path.join(top, here), "rb") as f:
            data = f.read()
    except OSError as e:
        raise AideError(f"{here} cannot be read ({e.strerror})") from None
    if here == entry.path and blob_id(data) == entry.blob:
        return entry, paths, entry.read_record()
    try:
        return entry, paths, memory.parse(data, here)
    except memory.MemoryFormatError as e:
        raise AideError(f"{here}: {e.field + ': ' if e.field else ''}{e}") from None


def _homes(uuid: str) -> list[str]:
    """Return every path a memory with this uuid could have."""
    return [f"{rel}/{uuid}.json" for rel in folders.FOLDERS
            if rel.startswith(MEMORIES_DIR + "/") and rel != MEMORIES_DIR + "/preferences"]


def _is_file(path: str) -> bool:
    """Tell whether a path is a regular file, not a link to one."""
    return os.path.isfile(path) and not os.path.islink(path)


def _gone(top: str, ident: str) -> NoReturn:
    """Raise the error for a memory not in the working tree: a memory folder that leads out
    of it first (nothing is read through a link, so what is beyond one looks gone)."""
    unsafe = folders.problems(top)
    if unsafe:
        raise AideError(unsafe[0][1])
    raise AideError(f"no memory with id {ident!r}: it is gone from the working tree "
                    "(forgotten?)")


def check_folder(top: str, path: str) -> None:
    """Refuse to write `path` (repo-relative) when its folder leads out of the working tree."""
    message = folders.problem(top, path.rsplit("/", 1)[0])
    if message:
        raise AideError(message)


def check_writable(repo: Repo, top: str, paths: list[str], stage: bool, nothing: str
                   ) -> None:
    """Refuse a write before it starts when a folder of `paths` (repo-relative) cannot be
    written, or (`stage`) git's index cannot be: a memory half written, or written and
    not staged, is worse than none. `nothing`: what the error adds ("nothing was
    remembered")."""
    for path in paths:
        folder = folders.unwritable(top, path.rsplit("/", 1)[0])
        if folder is not None:
            raise AideError(f"cannot write {folder}/: permission denied; {nothing}")
    problem = staging.index_problem(repo) if stage else None
    if problem is not None:
        raise AideError(f"{problem}; {nothing} (staging needs git's index there; "
                        "`--no-stage` leaves the index alone)")


def _write(top: str, path: str, data: bytes, nothing: str) -> None:
    """Write a memory file atomically; an error naming the folder that cannot be written
    (files.write_atomic leaves nothing behind when it fails)."""
    try:
        files.write_atomic(os.path.join(top, path), data)
    except OSError as e:
        where = os.path.dirname(e.filename) if isinstance(e.filename, str) else \
            os.path.join(top, os.path.dirname(path))
        shown = os.path.relpath(where, top) if where.startswith(top + os.sep) else where
        raise AideError(f"cannot write {shown}/: {(e.strerror or str(e)).lower()}; "
                        f"{nothing}") from None


@contextlib.contextmanager
def write_lock(repo: Repo) -> Iterator[None]:
    """Hold the repository's write lock; wait a bounded time for one holder, then fail.

    Without the lock a write could undo another's, so a lock that cannot be taken (the
    git folder is read-only) stops the write with an error instead.
    """
    with lock_at(repo.lock_path, _lock_wait(repo)):
        yield


@contextlib.contextmanager
def lock_at(path: str, wait: float) -> Iterator[None]:
    """Hold the write lock at `path` (write_lock's), waiting at most `wait` seconds for
    one holder."""
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(files.lock(path, wait))
        except files.LockBusy:
            raise AideError(
                f"another git-aide process held the write lock {path} for {wait:g} s; "
                "nothing was written: try again (git config aide.writeLockTimeout sets "
                "the wait)") from None
        except files.LockFailed as e:
            fix = f": make {os.path.dirname(path)} writable" if e.folder else ""
            raise AideError(f"cannot take the write lock {path} ({e.strerror or e}); "
                            f"nothing was written{fix}") from None
        yield


def _lock_wait(repo: Repo) -> float:
    """Return how long to wait for the write lock, in seconds."""
    return repo.settings.write_lock_timeout


def _stage(repo: Repo, cache: Cache, result: Written, add: list[str], remove: list[str]
           ) -> None:
    # Our own writers queue on the cache lock instead of racing for index.lock.
    with cache.lock("stage"):
        ok = repo.stage(add=add, remove=remove)
    result.staged = ok and bool(add or remove)
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
        files.write_atomic(ignore, PERSONAL_IGNORE.encode())
