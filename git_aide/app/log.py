"""`git aide log`: the commits that changed memories, and what each changed (docs/review.md).

git is asked for the commits (`git log`), the id of each one's memories tree
(`cat-file --batch-check`) and, only for commits whose tree differs from their first
parent's, the changed paths (`diff-tree --stdin`): a commit that did not touch the
memories costs no blob read. A merge commit is also checked for a memory whose same
field both sides changed, of which the merge kept one side's value (`conflicts`): from
its parents and their merge base alone, so that every clone marks the same merges,
driver or not. Only merges whose parents' memories trees differ are checked, only the
memories both sides changed are read, and the answer is kept in the cache under the
merge's id.
"""

from __future__ import annotations

from git_aide.app.changes import (
    compare,
    filter_paths,
    path_filter,
    record_at,
    shared_memory_path,
)
from git_aide.core.errors import AideError
from git_aide.core.memory import MEMORIES_DIR
from git_aide.core.merge import ABSENT, NO_BASE, changed_on_both, same_value
from git_aide.gitio.repo import EMPTY_TREE, check_revision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo


class _Commit:
    """Hold one commit of the walk."""

    __slots__ = ("sha", "parent", "parents", "author", "email", "date", "subject")

    def __init__(self, sha: str, parents: list[str], author: str, email: str, date: str,
                 subject: str) -> None:
        self.sha = sha
        #: The first parent (what a merge is compared with), or None for a root commit.
        self.parent = parents[0] if parents else None
        #: Every parent, first first: more than one makes a merge.
        self.parents = parents
        self.author = author
        self.email = email
        self.date = date
        self.subject = subject


#: Fields of `git log --format`, split by 0x1f; commits end with NUL (-z).
_LOG_FORMAT = "%H %P%x1f%an%x1f%ae%x1f%aI%x1f%s"


def _walk(repo: Repo, revs: list[str], all_refs: bool) -> list[_Commit]:
    """Return the commits `git log REVS` walks, newest first (merges with their first parent)."""
    for rev in revs:
        check_revision(rev)
    implicit = not revs and not all_refs
    if implicit:
        revs = ["HEAD"]
    args = ["-c", "log.showSignature=false", "log", "-z", f"--format={_LOG_FORMAT}"]
    if all_refs:
        args.append("--all")
    proc = repo.git(*args, *revs, "--", check=False)
    if proc.returncode != 0 and implicit and repo.unborn():
        return []  # no commit yet: nothing to walk
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        reason = lines[-1].removeprefix("fatal: ") if lines else f"exit {proc.returncode}"
        raise AideError(f"{' '.join(revs) or '--all'}: {reason}")
    commits: list[_Commit] = []
    for item in proc.stdout.decode(errors="replace").split("\0"):
        if not item:
            continue
        ids, author, email, date, subject = (item.split("\x1f") + [""] * 5)[:5]
        shas = ids.split()
        commits.append(_Commit(shas[0], shas[1:], author, email, date, subject))
    return commits


def _memory_trees(repo: Repo, commits: Iterable[str]) -> dict[str, str]:
    """Map commit -> id of its memories tree (the empty tree when it has none)."""
    wanted = list(dict.fromkeys(commits))
    ids = _object_ids(repo, [f"{c}:{MEMORIES_DIR}" for c in wanted], "tree")
    return {c: ids.get(f"{c}:{MEMORIES_DIR}", EMPTY_TREE) for c in wanted}


def _tree_changes(repo: Repo, pairs: list[tuple[str, str]]
                  ) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
    """Map (old tree, new tree) -> [(path, old blob, new blob)] of the memory files that differ."""
    if not pairs:
        return {}
    unique = list(dict.fromkeys(pairs))
    query = "".join(f"{a} {b}\n" for a, b in unique).encode()
    out = repo.git("-c", "core.quotePath=false", "diff-tree", "--stdin", "-r", "--raw",
                   "--no-renames", "--no-abbrev", input=query).stdout.decode(
        errors="surrogateescape")
    result: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    current: list[tuple[str, str, str]] = []
    zero = "0" * 40
    for line in out.splitlines():
        if not line.startswith(":"):
            a, _, b = line.partition(" ")
            current = result.setdefault((a, b), [])
            continue
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if len(parts) < 5 or path.startswith('"'):
            continue  # a name git had to quote is no memory's name
        full = f"{MEMORIES_DIR}/{path}"
        if not shared_memory_path(full) or "120000" in (parts[0][1:], parts[1]):
            continue
        old = "" if parts[2] == zero else parts[2]
        new = "" if parts[3] == zero else parts[3]
        current.append((full, old, new))
    return result


def _uuid_of(path: str) -> str:
    return path.rsplit("/", 1)[-1][:-5]


def resolve_uuid(ident: str, known: Iterable[str]) -> str:
    """Return the one uuid of the history walked that `ident` names (a uuid or a prefix)."""
    from git_aide.core import ids

    return ids.resolve(ident, set(known), where=" in the history walked")


def log_doc(repo: Repo, cache: Cache | None, revs: list[str], *, uuid: str | None = None,
            paths: Iterable[str] = (), reverse: bool = False, limit: int | None = None,
            all_refs: bool = False, warnings: list[str] | None = None) -> dict[str, Any]:
    """Return the `log --json` document: each commit that changed shared memories, newest first.

    `warnings` gets one line per invalid memory file those commits hold (as `diff` says).
    """
    said: dict[tuple[str, str], list[str]] = {}
    commits = _walk(repo, list(revs), all_refs)
    trees = _memory_trees(repo, [c.sha for c in commits]
                          + [p for c in commits for p in c.parents])

    def key(c: _Commit) -> tuple[str, str]:
        return (trees[c.parent] if c.parent else EMPTY_TREE), trees[c.sha]

    def merging(c: _Commit) -> bool:
        # Only a merge whose parents hold different memories can have dropped a side's
        # value; even one that kept its first parent's memories exactly (no change).
        return any(trees[p] != trees[c.parents[0]] for p in c.parents[1:])

    touched = [c for c in commits if key(c)[0] != key(c)[1] or merging(c)]
    docs: dict[tuple[str, str], dict[str, Any]] = {}
    for k in dict.fromkeys(key(c) for c in touched if key(c)[0] != key(c)[1]):
        got = cache.read("history", f"{k[0]}-{k[1]}") if cache is not None else None
        if isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], dict):
            docs[k] = got[0]
            said[k] = [w for w in got[1] if isinstance(w, str)] \
                if isinstance(got[1], list) else []
    rows = _tree_changes(repo, [k for k in dict.fromkeys(key(c) for c in touched)
                                if k not in docs and k[0] != k[1]])
    want = None
    if uuid is not None:
        known = {m["uuid"] for d in docs.values() for m in (*d["added"], *d["forgotten"])}
        known |= {c["uuid"] for d in docs.values() for c in d["changed"]}
        known |= {_uuid_of(p) for rs in rows.values() for p, _o, _n in rs}
        want = resolve_uuid(uuid, known)
    relevant = path_filter(repo, paths)
    out: list[dict[str, Any]] = []
    batch = len(touched) if limit is None else max(limit, 16)
    at = 0
    while at < len(touched) and (limit is None or len(out) < limit):
        chunk = touched[at:at + batch]
        at += batch
        need = [k for k in dict.fromkeys(key(c) for c in chunk)
                if k not in docs and k[0] != k[1]]
        partial = _pair_docs(repo, cache, need, rows, want, said)
        marks = _merge_marks(repo, cache, [c for c in chunk if merging(c)], trees)
        for c in chunk:
            doc = docs.get(key(c)) or partial.get(key(c)) or _UNCHANGED
            if warnings is not None:
                warnings.extend(said.get(key(c), ()))
            entries = _entries(doc, want, relevant)
            conflicts = [m for m in marks.get(c.sha, ())
                         if (want is None or m["uuid"] == want)
                         and (relevant is None or relevant(m["memory"]))]
            if entries or conflicts:
                item = {"commit": c.sha, "author": c.author, "email": c.email,
                        "date": c.date, "subject": c.subject, "changes": entries}
                if conflicts:
                    item["conflicts"] = conflicts
                out.append(item)
                if limit is not None and len(out) >= limit:
                    break
        if want is None:
            docs.update(partial)
    if reverse:
        out.reverse()
    return {"commits": out}


#: The changes of a merge that kept its first parent's memories as they were.
_UNCHANGED: dict[str, list[Any]] = {"added": [], "forgotten": [], "changed": []}


def _pair_docs(repo: Repo, cache: Cache | None, need: list[tuple[str, str]],
               rows: dict[tuple[str, str], list[tuple[str, str, str]]], want: str | None,
               said_by: dict[tuple[str, str], list[str]] | None = None
               ) -> dict[tuple[str, str], dict[str, Any]]:
    """Run compare() on each pair of trees from its changed paths, reading their blobs once.

    Whole answers are kept in the cache (tree_diff); one narrowed to the memory `want`
    reads only that memory's blobs and is not kept.
    """
    if not need:
        return {}
    picked = {k: [r for r in rows[k] if want is None or _uuid_of(r[0]) == want] for k in need}
    data = repo.read_blobs({b for rs in picked.values() for _p, o, n in rs for b in (o, n)})
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for k, rs in picked.items():
        before = {p: o for p, o, _n in rs if o}
        after = {p: n for p, _o, n in rs if n}
        said: list[str] = []
        out[k] = compare(before, after, lambda _b: data, said)
        if said_by is not None:
            said_by[k] = said
        if want is None and cache is not None:
            cache.write((out[k], said), "history", f"{k[0]}-{k[1]}")
    return out


def _entries(doc: dict[str, Any], want: str | None,
             relevant: Callable[[dict[str, Any]], bool] | None) -> list[dict[str, Any]]:
    """Return the changes of one commit as `log --json` lists them."""
    if relevant is not None:
        doc = filter_paths(doc, relevant)
    entries: list[dict[str, Any]] = []
    for m in doc["added"]:
        entries.append({"uuid": m["uuid"], "change": "added", "fields": [], "memory": m})
    for c in doc["changed"]:
        kind = "moved" if c["before"]["path"] != c["after"]["path"] else "changed"
        entries.append({"uuid": c["uuid"], "change": kind, "fields": c["fields"],
                        "memory": c["after"]})
    for m in doc["forgotten"]:
        entries.append({"uuid": m["uuid"], "change": "forgotten", "fields": [], "memory": m})
    return [e for e in entries if want is None or e["uuid"] == want]

# -- merges that kept one side of a field ----------------------------------------------

#: (path, blob id) of one version of a memory file.
_Version = tuple[str, str]


def _blobs_at(repo: Repo, specs: list[str]) -> dict[str, str]:
    """Map `<commit>:<path>` -> the blob id there, for those that name a blob."""
    return _object_ids(repo, specs, "blob")


def _object_ids(repo: Repo, specs: list[str], kind: str) -> dict[str, str]:
    """Map each object name -> its id, for those that name an object of this kind (one
    `cat-file --batch-check` for all)."""
    if not specs:
        return {}
    query = "".join(f"{s}\n" for s in specs).encode()
    out = repo.git("cat-file", "--batch-check", input=query).stdout.decode().splitlines()
    found: dict[str, str] = {}
    for spec, line in zip(specs, out, strict=False):
        parts = line.split()
        if len(parts) == 3 and parts[1] == kind:
            found[spec] = parts[0]
    return found


def _by_uuid(rows: list[tuple[str, str, str]]
             ) -> dict[str, tuple[_Version | None, _Version | None]]:
    """Map uuid -> (version before, version after) of the memories one side changed (a layer
    move is one name deleted in one folder and added in another)."""
    sides: dict[str, list[_Version | None]] = {}
    for path, old, new in rows:
        slot = sides.setdefault(_uuid_of(path), [None, None])
        if old:
            slot[0] = (path, old)
        if new:
            slot[1] = (path, new)
    return {u: (v[0], v[1]) for u, v in sides.items()}


def _merge_marks(repo: Repo, cache: Cache | None, merges: list[_Commit],
                 trees: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Map merge commit -> its `conflicts`: each field of a memory that both sides of the
    merge changed to different values and of which the merge kept one side's value.

    Worked out from the merge, its parents and their merge base (never from anything
    the merge driver left), so a clone without the driver marks the same merges.
    """
    marks: dict[str, list[dict[str, Any]]] = {}
    todo: list[_Commit] = []
    for c in merges:
        got = cache.read("history", f"merge-{c.sha}") if cache is not None else None
        if isinstance(got, list) and all(isinstance(m, dict) for m in got):
            marks[c.sha] = got
        else:
            todo.append(c)
    if not todo:
        return marks
    sides = [(c, k) for c in todo for k in range(1, len(c.parents))
             if trees[c.parents[k]] != trees[c.parents[0]]]
    bases = repo.merge_bases([(c.parents[0], c.parents[k]) for c, k in sides])
    base_trees = _memory_trees(repo, [b for b in bases.values() if b])
    unsure: set[str] = set()  # no merge base here: answer, but do not keep the answer
    plan: list[tuple[_Commit, int, str, str, str]] = []
    for c, k in sides:
        base = bases[(c.parents[0], c.parents[k])]
        if base is None:
            unsure.add(c.sha)
            continue
        bt, ot, tt = base_trees[base], trees[c.parents[0]], trees[c.parents[k]]
        if bt not in (ot, tt):  # else one side changed no memory at all
            plan.append((c, k, bt, ot, tt))
    rows = _tree_changes(repo, [p for _c, _k, bt, ot, tt in plan for p in ((bt, ot), (bt, tt))])
    both: list[tuple[_Commit, int, str, _Version | None, _Version, _Version]] = []
    for c, k, bt, ot, tt in plan:
        ours, theirs = _by_uuid(rows.get((bt, ot), [])), _by_uuid(rows.get((bt, tt), []))
        for u in sorted(ours.keys() & theirs.keys()):
            (o_before, o_after), (t_before, t_after) = ours[u], theirs[u]
            # A side that deleted it is a modify/delete (resolve settles those), and two
            # equal versions are no conflict.
            if o_after is not None and t_after is not None and o_after[1] != t_after[1]:
                both.append((c, k, u, o_before or t_before, o_after, t_after))
    at = _blobs_at(repo, list(dict.fromkeys(f"{c.sha}:{v[0]}" for c, _k, _u, _b, o, t in both
                                            for v in (o, t))))
    data = repo.read_blobs({v[1] for _c, _k, _u, b, o, t in both for v in (b, o, t) if v}
                      | set(at.values()))
    for c, k, u, b, o, t in both:
        # The merge's own version, wherever a side had put it.
        merged = next(((v[0], at[f"{c.sha}:{v[0]}"]) for v in (o, t)
                       if f"{c.sha}:{v[0]}" in at), None)
        if merged is None:
            continue  # the merge deleted it: nothing was kept
        recs = [None if v is None else record_at(data.get(v[1]), v[0])
                for v in (b, o, t, merged)]
        base_rec, ours_rec, theirs_rec, merged_rec = recs
        if ours_rec is None or theirs_rec is None or merged_rec is None:
            continue  # not a memory on some side: validate says so, not log
        marks.setdefault(c.sha, []).extend(
            _kept_one(c, k, u, base_rec if b is not None else None, ours_rec, theirs_rec,
                      merged_rec))
    for c in todo:
        found = marks.setdefault(c.sha, [])
        if cache is not None and c.sha not in unsure:
            # A commit's parents never change: neither does this answer.
            cache.write(found, "history", f"merge-{c.sha}")
    return marks


def _kept_one(merge: _Commit, k: int, uuid: str, base: dict[str, Any] | None,
              ours: dict[str, Any], theirs: dict[str, Any], merged: dict[str, Any]
              ) -> list[dict[str, Any]]:
    """Return the fields both sides changed of which `merged` holds one side's value exactly.

    "ours" is the first parent (the branch merged into), "theirs" `merge.parents[k]`.
    """
    other = k + 1  # git's ^N counts parents from 1
    found: list[dict[str, Any]] = []
    for key in dict.fromkeys([*ours, *theirs]):
        if key == "path":
            continue
        b = NO_BASE if base is None else base.get(key, ABSENT)
        o, t = ours.get(key, ABSENT), theirs.get(key, ABSENT)
        if not changed_on_both(key, b, o, t):
            continue
        value = merged.get(key, ABSENT)
        if same_value(value, o):
            kept, lost, lost_n, kept_n = "ours", theirs, other, 1
        elif same_value(value, t):
            kept, lost, lost_n, kept_n = "theirs", ours, 1, other
        else:
            continue  # settled by hand, or combined: no side's value was dropped whole
        mark: dict[str, Any] = {
            "uuid": uuid, "field": key, "kept": kept,
            "kept_parent": merge.parents[kept_n - 1],
            "dropped_parent": merge.parents[lost_n - 1],
            "dropped_path": lost["path"],
            "recover": f"git show {merge.sha}^{lost_n}:{lost['path']}",
            "memory": merged,
        }
        if key in lost:
            mark["dropped_value"] = lost[key]
        found.append(mark)
    return found
