"""`git aide resolve`: settle the unmerged memories that a stopped merge left behind.

The merge driver only sees files that both sides kept. This settles the rest from the
index stages (1 base, 2 ours, 3 theirs), which are what git recorded whatever the
working tree now holds (text markers from a clone without the driver included):

- both sides kept it (content conflict, add/add): merged by the driver's rules, with a
  line for each field whose value one side lost (as the driver says it);
- one side deleted it (modify/delete): the later event wins, the kept version's
  `updated_at` against the commit date of the commit that deleted it.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

from git_aide.app.store import check_folder, write_lock
from git_aide.core.files import write_atomic
from git_aide.core.merge import MergeConflict, load_side, merge_report, notice, stamp
from git_aide.gitio.repo import Repo
from git_aide.gitio.sides import side_names

#: The refs that name "theirs" while an operation is stopped, in the order tried.
THEIRS_REFS: tuple[str, ...] = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD")
_GITLINK = "160000"
_SYMLINK = "120000"
#: The past tense of each verb, for the report.
_DONE = {"merge": "merged", "keep": "kept", "delete": "deleted"}


@dataclass
class Stages:
    """Hold the index stages of one unmerged path: stage number -> (mode, blob id)."""

    #: Repo-relative path.
    path: str
    #: 1 base, 2 ours, 3 theirs; a missing stage means that side has no file.
    entries: dict[int, tuple[str, str]] = field(default_factory=dict)


@dataclass
class Outcome:
    """Hold what resolve did (or would do), one line a path."""

    #: The report: one line a path, each followed by a line a field one side lost.
    lines: list[str] = field(default_factory=list)
    #: How many paths were settled (or would be, with --dry-run).
    settled: int = 0
    #: How many paths are left unmerged.
    left: int = 0


def unmerged(repo: Repo) -> list[Stages]:
    """Return every unmerged path under the memories folder, with its stages, sorted by path."""
    by_path: dict[str, Stages] = {}
    for mode, oid, stage, path in repo.ls_files("-u"):
        by_path.setdefault(path, Stages(path)).entries[stage] = (mode, oid)
    return [by_path[p] for p in sorted(by_path)]


def theirs_ref(repo: Repo) -> str | None:
    """Return the ref that names "theirs" of the stopped merge, cherry-pick or rebase."""
    for ref in THEIRS_REFS:
        if repo.git("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False
                    ).returncode == 0:
            return ref
    return None


def deletion(repo: Repo, ref: str, path: str) -> tuple[str, str] | None:
    """Return (UTC time in memory form, short id) of the last commit on `ref` that touched path."""
    out = repo.git("log", "-1", "--format=%ct %h", ref, "--", path, check=False)
    fields = out.stdout.decode().split()
    if out.returncode != 0 or len(fields) != 2:
        return None
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(int(fields[0])))
    return stamp, fields[1]


def _has_markers(data: bytes) -> bool:
    """Tell whether `data` holds conflict markers, as git's own merge or the driver write them."""
    lines = data.splitlines()
    return any(x.startswith(b"<<<<<<<") for x in lines) and \
        any(x.startswith(b">>>>>>>") for x in lines)


def _current(top: str, path: str) -> bytes | None:
    """Read the working-tree file now, or return None."""
    try:
        with open(os.path.join(top, path), "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


class _Left(Exception):
    """Leave a path unmerged; the message says why."""


def _merge(repo: Repo, top: str, st: Stages, blobs: dict[str, bytes]
           ) -> tuple[str, str, bytes, list[str]]:
    """Merge the three stages with the driver, when both sides kept the file."""
    base = blobs[st.entries[1][1]] if 1 in st.entries else b""
    ours, theirs = blobs[st.entries[2][1]], blobs[st.entries[3][1]]
    try:
        merged, lost = merge_report(base, ours, theirs)
    except MergeConflict as e:
        raise _Left(f"cannot merge: {e}") from None
    now = _current(top, st.path)
    # Never overwrite a resolution someone already typed into the file.
    if now is not None and now != merged and now not in (base, ours, theirs) \
            and not _has_markers(now):
        raise _Left("edited by hand since the merge stopped; check it, then `git add` it")
    names = side_names(repo.git_dir, environ={})
    # The stages are blobs git already holds: each prints a dropped side whole.
    recover = {"ours": f"git show {st.entries[2][1]}", "theirs": f"git show {st.entries[3][1]}"}
    return "merge", "", merged, [f"  {notice(d, names, recover[d.lost])}" for d in lost]


def _modify_delete(repo: Repo, st: Stages, blobs: dict[str, bytes],
                   ref: str | None) -> tuple[str, str, bytes | None, list[str]]:
    """Settle a file one side deleted: keep it only if it was updated after the deletion."""
    kept_stage = 2 if 2 in st.entries else 3
    deleter = "HEAD" if kept_stage == 3 else ref
    if deleter is None:
        raise _Left("deleted on their side, and no MERGE_HEAD, CHERRY_PICK_HEAD or "
                    "REBASE_HEAD says when")
    kept = blobs[st.entries[kept_stage][1]]
    try:
        updated = stamp(load_side(kept, "the kept version"))
    except MergeConflict as e:
        raise _Left(str(e)) from None
    if not updated:
        raise _Left("the kept version has no valid updated_at")
    found = deletion(repo, deleter, st.path)
    if found is None:
        raise _Left(f"cannot find the commit on {deleter} that deleted it")
    deleted_at, commit = found
    side = "ours" if kept_stage == 2 else "theirs"
    # A tie keeps the memory: the deletion time has only whole seconds, and keeping
    # loses nothing that a second `forget` cannot undo.
    if updated >= deleted_at:
        return "keep", (f"{side} updated it at {updated}, after its deletion in {commit} "
                        f"at {deleted_at}"), kept, []
    return "delete", (f"deleted in {commit} at {deleted_at}, after its update at {updated}"
                      ), None, []


def resolve(repo: Repo, dry_run: bool = False) -> Outcome:
    """Settle every unmerged memory it can; stage what it settles unless dry_run."""
    top = repo.require_worktree("resolve")
    paths = unmerged(repo)
    outcome = Outcome()
    if not paths:
        outcome.lines.append("no unmerged memories; nothing to resolve")
        return outcome
    blobs = repo.read_blobs(
        list(dict.fromkeys(oid for st in paths for _mode, oid in st.entries.values())))
    ref = theirs_ref(repo)
    if dry_run:
        _settle_all(repo, top, paths, blobs, ref, outcome, dry_run)
        return outcome
    # Refused before anything is written: a link out of the working tree stops it all.
    for st in paths:
        check_folder(top, st.path)
    with write_lock(repo):
        _settle_all(repo, top, paths, blobs, ref, outcome, dry_run)
    return outcome


def _settle_all(repo: Repo, top: str, paths: list[Stages], blobs: dict[str, bytes],
                ref: str | None, outcome: Outcome, dry_run: bool) -> None:
    """Settle each path in turn, adding a line a path to `outcome`."""
    for st in paths:
        try:
            verb, detail, data, notes = _settle(repo, top, st, blobs, ref)
        except _Left as e:
            outcome.left += 1
            outcome.lines.append(f"left {st.path}: {e}")
            continue
        if not dry_run and not _apply(repo, top, st.path, data):
            outcome.left += 1
            outcome.lines.append(f"left {st.path}: written, but the index is locked; "
                                 f"run `git add {st.path}`")
            continue
        outcome.settled += 1
        shown = f"would {verb}" if dry_run else _DONE[verb]
        outcome.lines.append(f"{shown} {st.path}" + (f": {detail}" if detail else ""))
        outcome.lines.extend(notes)


def _settle(repo: Repo, top: str, st: Stages, blobs: dict[str, bytes],
            ref: str | None) -> tuple[str, str, bytes | None, list[str]]:
    """Settle one path: return (verb, detail, new content or None to delete, a line a field
    one side lost); raise _Left when it cannot."""
    modes = {mode for mode, _oid in st.entries.values()}
    if modes & {_GITLINK, _SYMLINK}:
        raise _Left("not a regular file")
    if any(oid not in blobs for _mode, oid in st.entries.values()):
        raise _Left("a stage's blob is missing from the object database")
    have = set(st.entries)
    if {2, 3} <= have:
        return _merge(repo, top, st, blobs)
    if have in ({1, 2}, {1, 3}):
        return _modify_delete(repo, st, blobs, ref)
    raise _Left(f"unusual conflict (stages {sorted(have)}, a rename?); settle it by hand")


def _apply(repo: Repo, top: str, path: str, data: bytes | None) -> bool:
    """Write or delete the working-tree file and stage it; False if the index stayed locked."""
    full = os.path.join(top, path)
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(full)
        return repo.stage(add=[], remove=[path])
    if _current(top, path) != data:
        write_atomic(full, data)
    return repo.stage(add=[path], remove=[])
