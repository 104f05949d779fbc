"""The user's own store (read/user.py; docs/user-store.md): remember, update, forget and
list the memories that follow a person into every repository, which memory an id names
there, and what `doctor` says of it.

The store is a git repository of its own, made on the first `remember --user`; each
write commits there (there is no one else to commit it), under the store's own write
lock, and never touches the repository the command runs in: a user memory is never
staged or committed in a project, never exported into its rules files, and a teammate
never reads it. Nothing here needs a project: the commands work outside one too.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from git_aide.app import store
from git_aide.app.store import Written
from git_aide.core import files, memory
from git_aide.core.errors import AideError, UsageError
from git_aide.core.settings import Settings
from git_aide.gitio import userrepo
from git_aide.read import user

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    from git_aide.app.queries import ListQuery
    from git_aide.gitio.repo import Repo
    from git_aide.rank.selection import Hit
    from git_aide.read.record import Entry

#: The most characters of a memory's text a commit's subject holds.
SUBJECT_CHARS = 60


def signature() -> tuple[object, ...] | None:
    """Return what the store's memories are now (read/user.signature): a long-lived process
    gives an answer again only while it is the same; None when a file changed too
    lately for its stat to vouch for it."""
    return user.signature(user.folder())


def entries(warnings: list[str] | None = None) -> list[Entry]:
    """Return the store's memories, in path order (none before the store is made)."""
    from git_aide.read.record import Reader

    top = user.folder()
    if not os.path.isdir(os.path.join(top, memory.MEMORIES_DIR)):
        return []
    return user.entries(top, Reader(user.cache_of(top), _repo(top)),
                        warnings if warnings is not None else [])


def listing(ask: ListQuery, warnings: list[str] | None = None) -> list[Hit]:
    """Return `list --user`'s memories: the store's that pass `ask`'s filters
    (answers.listed), as `list` orders them."""
    from git_aide.app.answers import listed

    return listed(entries(warnings), ask)


def list_doc(hits: list[Hit]) -> dict[str, Any]:
    """Return the `list --user --json` document: `list`'s, its source the user store."""
    from git_aide.app.answers import USER_SOURCE, memory_doc

    return {"source": dict(USER_SOURCE), "memories": [memory_doc(h) for h in hits]}


def claimed(project: Callable[[], Iterable[str]], idents: Iterable[str]) -> dict[str, str]:
    """Return the ids among `idents` that name a memory of the store rather than one of the
    repository's (`project()`: their uuids, asked only when an id may be the store's),
    each with the store memory's uuid. An id that names both (a prefix of one of each)
    is refused as ambiguous; one that names neither is the repository's to say so."""
    from git_aide.core import ids

    mine = [e.uuid for e in entries()]
    out: dict[str, str] = {}
    for ident in idents:
        key = str(ident).strip().lower()
        if len(key) >= ids.MIN_PREFIX and any(u.startswith(key) for u in mine):
            uuid = ids.resolve(ident, [*project(), *mine])  # ambiguous: an error
            if uuid in mine:
                out[ident] = uuid
    return out


def is_users(entry: Entry) -> bool:
    """Tell whether an entry is a memory of the user store (laid over a working tree's)."""
    return memory.in_user_store(entry.path)


def remember(what: str, *, why: str | None = None, layer: str | None = None,
             scope: str | None = None, tags: list[str] | None = None,
             label: str | None = None, priority: str = "normal",
             source: str = "conversation", contributor: str | None = None,
             generated_by: dict[str, Any] | None = None, force: bool = False) -> Written:
    """Store a memory in the user store (preferences unless another layer is named) and
    commit it there; or return the one already there with the same text, layer and
    scope. Its scope is a glob of any repository: it is not checked against a tree. Text
    that looks pasted is refused unless `force` (store.check_pasted)."""
    layer = layer or "preferences"
    if layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    store.check_text(what, why, label, tags)
    stored_scope = store.clean_scope(scope)
    if layer == "area_context" and stored_scope is None:
        raise AideError("an area_context memory needs a scope (--scope GLOB)")
    top = user.folder()
    config = userrepo.config(top)
    contributor = (contributor or "").strip() or (
        config.get("user.name") or config.get("user.email") or "unknown")
    record = memory.new(
        what, layer=layer, contributor=contributor, why=why or None, scope=stored_scope,
        context_label=label or None, tags=tags, source=source, shared=True,
        priority=priority, generated_by=generated_by,
    )
    store.check_record(record)
    store.check_pasted(what, force)
    rel = memory.relpath(record)
    userrepo.init(top)
    settings = Settings(config)
    with _lock(top, settings):
        now = entries()
        for e in now:
            r = e.read_record()
            if r["layer"] == layer and r["scope"] == stored_scope \
                    and r["what"].strip() == what.strip():
                return Written(r["uuid"], e.path, staged=False, created=False, record=r,
                               committed=True)
        warnings = _near(now, what, layer, stored_scope, settings)
        _write(top, rel, memory.canonical(record), "nothing was remembered")
        return _committed(top, [rel], f"remember: {_subject(what)}",
                          Written(record["uuid"], os.path.join(top, rel), staged=False,
                                  record=record, warnings=warnings))


def update(ident: str, *, what: str | None = None, why: str | None = None,
           scope: str | None = None, add_tags: list[str] | None = None,
           remove_tags: list[str] | None = None, label: str | None = None,
           layer: str | None = None, priority: str | None = None,
           generated_by: dict[str, Any] | None | str = "keep", force: bool = False
           ) -> Written:
    """Change a memory of the user store (as store.update changes a repository's) and
    commit the change there."""
    if layer is not None and layer not in memory.LAYERS:
        raise UsageError(f"unknown layer {layer!r}; choose one of {', '.join(memory.LAYERS)}")
    if priority is not None and priority not in ("normal", "always"):
        raise UsageError(f"unknown priority {priority!r}; choose normal or always")
    store.check_text(what, why, label, add_tags)
    store.check_pasted(what, force)
    new_scope = store.clean_scope(scope, empty_clears=True) if scope is not None else None
    top = user.folder()
    with _lock(top, Settings(userrepo.config(top))):
        entry = store.find(entries(), ident)
        here = os.path.relpath(entry.path, top)
        old = _current(entry.path, here)
        record = store.revised(old, what=what, why=why, scope=scope, new_scope=new_scope,
                               add_tags=add_tags, remove_tags=remove_tags, label=label,
                               layer=layer, priority=priority)
        rel = memory.relpath(record)
        if record == old and rel == here:
            return Written(record["uuid"], entry.path, staged=False, record=old,
                           committed=True)
        store.stamp(record, old, generated_by)
        store.check_record(memory.repair(record))  # read liberally, written strictly
        _write(top, rel, memory.canonical(record), "nothing was changed")
        if rel != here:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
        return _committed(top, list(dict.fromkeys([rel, here])),
                          f"update: {_subject(record['what'])}",
                          Written(record["uuid"], os.path.join(top, rel), staged=False,
                                  record=record))


def forget(idents: list[str]) -> tuple[list[str], bool, list[str]]:
    """Delete memories of the user store and commit that there: (uuids, committed,
    warnings). All or nothing: if one of them is gone already, none is deleted."""
    top = user.folder()
    with _lock(top, Settings(userrepo.config(top))):
        now = entries()
        chosen = {e.uuid: e for e in (store.find(now, ident) for ident in idents)}
        for e in chosen.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(e.path)
        paths = [os.path.relpath(e.path, top) for e in chosen.values()]
        subjects = ", ".join(_subject(e.read_what()) for e in chosen.values())
        done = _committed(top, paths, f"forget: {subjects}", Written("", "", staged=False))
    return list(chosen), bool(done.committed), done.warnings


@dataclass
class Status:
    """Hold what `doctor` says of the user store."""

    #: Its folder.
    folder: str
    #: Whether it was made (it has a memories folder).
    exists: bool
    #: Whether it is a git repository of its own.
    repository: bool = False
    #: How many memories it holds.
    memories: int = 0
    #: Its files that are no memory, each with why.
    broken: list[str] | None = None
    #: Its remotes, by name.
    remotes: list[str] | None = None
    #: Its memory files that differ from its last commit.
    uncommitted: list[str] | None = None


def status() -> Status:
    """Return the store's state, for `doctor`."""
    top = user.folder()
    if not os.path.isdir(os.path.join(top, memory.MEMORIES_DIR)):
        return Status(top, exists=False)
    warnings: list[str] = []
    found = entries(warnings)
    repository = userrepo.is_repository(top)
    return Status(top, exists=True, repository=repository, memories=len(found),
                  broken=warnings,
                  remotes=userrepo.remotes(top) if repository else [],
                  uncommitted=(userrepo.uncommitted(top, memory.MEMORIES_DIR)
                               if repository else []))


def _repo(top: str) -> Repo:
    """Open the store as a repository (to read a blob again when its cache lost it)."""
    from git_aide.gitio.repo import Repo

    git_dir = os.path.join(top, ".git")
    return Repo(git_dir=git_dir, common_dir=git_dir, index_file=os.path.join(git_dir, "index"),
                worktree=top, prefix="")


@contextlib.contextmanager
def _lock(top: str, settings: Settings) -> Iterator[None]:
    """Hold the store's write lock (`<store>/.git/aide.lock`, as a repository's)."""
    git_dir = os.path.join(top, ".git")
    if not os.path.isdir(git_dir):
        raise AideError(f"the user store {top} is not a git repository yet: "
                        "`git aide remember --user` makes it")
    with store.lock_at(os.path.join(git_dir, "aide.lock"), settings.write_lock_timeout):
        yield


def _near(now: list[Entry], what: str, layer: str, scope: str | None, settings: Settings
          ) -> list[str]:
    """Return warnings naming the store's memories of the layer that say nearly the same."""
    from git_aide.core import scope as scopes
    from git_aide.rank import duplicates

    compiled = None if scope is None else scopes.compile_scope(scope)
    return [f"a near duplicate of {uuid} ({round(sim * 100)}% the same words) is in your "
            f"user store ({layer}); remembered anyway"
            for uuid, sim in duplicates.near_duplicates(
                now, what, layer, compiled, False, settings.audit_duplicate_threshold)]


def _current(path: str, rel: str) -> dict[str, Any]:
    """Read a memory's record from its file now (under the write lock)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise AideError(f"{path} is gone from the user store (forgotten?)") from None
    except OSError as e:
        raise AideError(f"{path} cannot be read ({e.strerror})") from None
    try:
        return memory.parse(data, rel)
    except memory.MemoryFormatError as e:
        raise AideError(f"{path}: {e.field + ': ' if e.field else ''}{e}") from None


def _write(top: str, rel: str, data: bytes, nothing: str) -> None:
    """Write a memory file of the store atomically (its folders may be links: the
    store is its user's own, a dotfiles checkout, say)."""
    try:
        files.write_atomic(os.path.join(top, rel), data)
    except OSError as e:
        raise AideError(f"cannot write {os.path.dirname(os.path.join(top, rel))}/: "
                        f"{(e.strerror or str(e)).lower()}; {nothing}") from None


def _committed(top: str, paths: list[str], message: str, result: Written) -> Written:
    """Commit `paths` in the store; `result` says whether it was (a memory written and
    not committed is still read: the store's working tree is what counts)."""
    problem = userrepo.commit(top, paths, message)
    result.committed = problem is None
    if problem is not None:
        result.warnings.append(f"written but not committed in the user store ({problem}); "
                               f"commit it there: git -C {top} commit -a")
    return result


def _subject(what: str) -> str:
    """Return a memory's text as a commit's subject: its first line, cut."""
    line = " ".join(what.strip().split("\n", 1)[0].split())
    return line if len(line) <= SUBJECT_CHARS else line[:SUBJECT_CHARS - 1] + "…"
