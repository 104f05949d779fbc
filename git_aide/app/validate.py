"""`git aide validate`: the checks docs/memory-file.md lists over one source, one problem a line.

Every file under `.aide/memories` of the source is looked at: memory files are
parsed and checked (`memory.check`, `memory.check_path`), scanned for secrets,
conflict markers and size; anything else is a stray file. The per-blob verdicts
depend only on the content, so they are kept in the cache by blob id: a pre-commit
hook on a big repository re-checks only the blobs it has not seen.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from git_aide.cache.folder import Cache
from git_aide.core import controls, memory, secrets
from git_aide.core.errors import UsageError
from git_aide.core.memory import MEMORIES_DIR, PERSONAL_DIR
from git_aide.gitio.repo import Repo
from git_aide.gitio.status import QUIET
from git_aide.read import listing
from git_aide.read.listing import blob_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON


#: The sources `validate` accepts; "all" is the working tree and the index together.
KINDS: tuple[str, ...] = ("worktree", "index", "rev", "all")
#: A line that git's conflict markers (merge, diff3 or zdiff3 style) start.
CONFLICT_RE = re.compile(rb"^(?:<{7}(?: |$)|>{7}(?: |$)|\|{7}(?: |$)|={7}$)", re.M)
#: The cache file holding per-blob verdicts.
CACHE_FILE = "validate"
#: Past this many verdicts the cache file starts afresh, so that it never grows unbounded.
MAX_VERDICTS = 200_000
_CHECK_MODULES = ("core/memory.py", "core/secrets.py", "core/scope.py", "app/validate.py",
                  "core/controls.py")

#: (field, message) pairs that depend only on a blob's content.
Found = tuple[tuple[str | None, str], ...]
#: What the path checks need of a record, and the problems that are only warnings (a file
#: read liberally: docs/memory-file.md): (uuid, layer, shared or None, warnings), or None.
Info = tuple[Any, Any, Any, Found] | None


@dataclass(frozen=True)
class Problem:
    """Hold one thing wrong with one file."""

    #: Repo-relative path of the file.
    path: str
    #: The key at fault, or None for the file as a whole.
    field: str | None
    #: What is wrong, and where it helps, what to do.
    message: str

    def line(self) -> str:
        """Return `path: field: message` (the field left out when there is none)."""
        return f"{self.path}: {self.field}: {self.message}" if self.field else \
            f"{self.path}: {self.message}"

    def as_json(self) -> dict[str, Any]:
        """Return the problem as the `validate --json` document lists it."""
        return {"path": self.path, "field": self.field, "message": self.message}


@dataclass
class Report:
    """Hold the outcome of one validation."""

    #: What was read, in words ("the working tree", "the index", "HEAD").
    what: str
    #: How many files were looked at.
    files: int = 0
    #: Every problem, in path order.
    problems: list[Problem] = field(default_factory=list)
    #: What breaks a rule of the format but leaves the file a live memory (a repeated
    #: tag, times out of order, a field of another type): said, never failing.
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Tell whether nothing is wrong (warnings do not count)."""
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        """Return the `validate --json` document (docs/command-line.md), with `warnings` if any."""
        doc: dict[str, Any] = {"ok": self.ok, "problems": [p.as_json() for p in self.problems]}
        if self.warnings:
            doc["warnings"] = [p.as_json() for p in self.warnings]
        return doc


@dataclass
class _Item:
    """Hold one file of a source: its path, and its blob id and/or content."""

    #: Repo-relative path.
    path: str
    #: The blob id, when the source lists one.
    blob: str | None
    #: The bytes, when they were read already (the working tree).
    data: bytes | None = None


def validate(repo: Repo, kind: str = "worktree", rev: str | None = None) -> Report:
    """Check every file under the memories folder of one source ("all": worktree + index)."""
    if kind not in KINDS:
        raise UsageError(f"unknown source {kind!r}")
    verdicts = _Verdicts(Cache(repo.cache_dir))
    if kind == "all":
        tree = _check(repo, verdicts, "worktree", None)
        staged = _check(repo, verdicts, "index", None)
        seen = set(tree.problems)
        # A problem the working tree shows already is said once; one only the index has
        # is marked, since fixing the file on disk will not fix it until it is staged.
        extra = [Problem(p.path, p.field, f"{p.message} (in the index)")
                 for p in staged.problems if p not in seen]
        report = Report("the working tree and the index", tree.files + staged.files,
                        _sorted(tree.problems + extra),
                        _sorted(tree.warnings + staged.warnings))
    else:
        report = _check(repo, verdicts, kind, rev)
    verdicts.save()
    return report


def _check(repo: Repo, verdicts: _Verdicts, kind: str, rev: str | None) -> Report:
    """Validate one source (not "all")."""
    unlisted: list[tuple[str, str]] = []
    items = [_Item(*f) for f in listing.every_file(repo, kind, rev, unlisted)]
    problems = [Problem(path, None, message) for path, message in unlisted]
    report = Report(rev if kind == "rev" and rev is not None
                    else "the index" if kind == "index" else "the working tree")
    committed = kind != "worktree"
    warned: list[Problem] = []
    candidates: list[_Item] = []
    for item in items:
        name = item.path.rsplit("/", 1)[-1]
        if committed and item.path.startswith(PERSONAL_DIR + "/") and name not in QUIET:
            problems.append(Problem(item.path, None, _personal_message(item.path, kind)))
            if not name.endswith(".json"):
                continue
        if name in QUIET:
            continue
        if not name.endswith(".json") or name.startswith("."):
            problems.append(Problem(item.path, None, "not a memory file: only <uuid>.json "
                                    "files belong under " + MEMORIES_DIR))
            continue
        candidates.append(item)
    report.files = len(candidates)
    wanted = [i.blob for i in candidates if i.data is None and i.blob and i.blob not in verdicts]
    blobs = repo.read_blobs(list(dict.fromkeys(wanted))) if wanted else {}
    owners: dict[str, list[str]] = {}
    for item in candidates:
        blob = item.blob or blob_id(item.data or b"")
        got = verdicts.get(blob)
        if got is None:
            data = item.data if item.data is not None else blobs.get(blob)
            if data is None:
                problems.append(Problem(item.path, None, "blob missing from the object database"))
                continue
            got = inspect(data)
            verdicts.put(blob, got)
        found, info = got
        problems.extend(Problem(item.path, f, m) for f, m in found)
        problems.extend(_path_problems(item.path, info, kind))
        if info:
            warned.extend(Problem(item.path, f, m) for f, m in info[3])
        uuid = info[0] if info else None
        if isinstance(uuid, str) and memory.UUID_RE.match(uuid):
            owners.setdefault(uuid, []).append(item.path)
    for paths in owners.values():
        for path in paths if len(paths) > 1 else ():
            others = ", ".join(p for p in paths if p != path)
            problems.append(Problem(path, "uuid", f"uuid also used by {others}"))
    report.problems = _sorted(problems)
    report.warnings = _sorted(warned)
    return report


def _sorted(problems: list[Problem]) -> list[Problem]:
    """Return the problems without repeats, by path, then field, then message."""
    return sorted(dict.fromkeys(problems), key=lambda p: (p.path, p.field or "", p.message))


def _personal_message(path: str, kind: str) -> str:
    """Return what to say about a personal memory found in the index or a commit."""
    if kind == "rev":
        return "a personal memory is committed here; personal memories are private"
    return f"a personal memory is staged; personal memories are private: git rm --cached {path}"


def _path_problems(path: str, info: Info, kind: str) -> Iterator[Problem]:
    """Run the checks that need the path as well as the content, yielding the problems."""
    if info is None:
        return
    uuid, layer, shared, _warned = info
    if not (isinstance(uuid, str) and memory.UUID_RE.match(uuid) and layer in memory.LAYERS):
        return
    if not isinstance(shared, bool):  # a missing `shared` is taken from the folder
        shared = not path.startswith(PERSONAL_DIR + "/")
    record = {"uuid": uuid, "layer": layer, "shared": shared}
    where = memory.check_path(record, path)
    if where:
        yield Problem(path, "uuid" if where.startswith("file name") else "layer", where)
    if kind != "worktree" and memory.is_personal(record) \
            and not path.startswith(PERSONAL_DIR + "/"):
        yield Problem(path, "shared", _personal_message(path, kind))


def inspect(data: bytes) -> tuple[Found, Info]:
    """Run the content-only checks of one file: return (problems, what the path checks
    need and the warnings)."""
    found: list[tuple[str | None, str]] = []
    if len(data) > memory.MAX_FILE_BYTES:
        found.append((None, f"file is {len(data)} bytes; at most {memory.MAX_FILE_BYTES}"))
    text = data.decode("utf-8", errors="replace")
    if CONFLICT_RE.search(data):
        found.append((None, "conflict markers: a merge was not finished "
                            "(run git aide resolve, or edit the file)"))
        _scan(None, text, found)
        return tuple(found), None
    try:
        raw = memory.load_json(data)
    except memory.MemoryFormatError as e:
        found.append((None, str(e)))
        _scan(None, text, found)
        return tuple(found), None
    if not isinstance(raw, dict):
        found.append((None, "not a JSON object"))
        _scan(None, text, found)
        return tuple(found), None
    warned: list[tuple[str | None, str]] = []
    for problem in memory.check(memory.fill_defaults(raw)):
        (found if memory.is_fatal(problem[0]) else warned).append(problem)
    for key, value in raw.items():
        _scan(str(key), {key: value}, found)
        _controls(str(key), value, found)
    return tuple(found), (raw.get("uuid"), raw.get("layer"), raw.get("shared"), tuple(warned))


def write_problems(record: dict[str, Any]) -> list[tuple[str | None, str]]:
    """Return what validation would say about `record` written canonically at its own path: the
    writing commands refuse it first, with the same messages."""
    found, info = inspect(memory.canonical(record))
    # Read liberally, write strictly: what is only a warning in a file already there
    # (an unknown priority, a repeated tag) is refused in a new write.
    return [*found, *(info[3] if info else ())]


def _scan(key: str | None, value: JSON, found: list[tuple[str | None, str]]) -> None:
    """Add one secret problem for `key` if `value` (text, or a JSON value) holds one."""
    kind = secrets.find(value) if isinstance(value, str) else secrets.find_json(value)
    if kind:
        found.append((key, f"looks like a secret ({kind}); remove it"))


def _controls(key: str, value: JSON, found: list[tuple[str | None, str]]) -> None:
    """Add one problem for `key` if it, or a string inside `value`, holds a control
    character (other than newline and tab)."""
    for text in (key, *_strings(value)):
        code = controls.find(text)
        if code:
            found.append((key, f"holds a control character ({code}); remove it"))
            return


def _strings(value: JSON) -> Iterator[str]:
    """Return every string inside a JSON value, keys of objects included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)


# -- the verdict cache ---------------------------------------------------------------

class _Verdicts:
    """Keep blob id -> inspect() result in the cache, under a key of the checking code."""

    #: The cache this lives in.
    cache: Cache
    #: The key of the checking code the verdicts were made with.
    key: str
    #: blob id -> (problems, info).
    table: dict[str, tuple[Found, Info]]
    #: Whether anything was added since loading.
    dirty: bool

    def __init__(self, cache: Cache) -> None:
        """Load the verdicts made by this very checking code, if any."""
        self.cache = cache
        self.key = _code_key()
        payload = cache.read(CACHE_FILE)
        ok = isinstance(payload, dict) and payload.get("key") == self.key \
            and isinstance(payload.get("table"), dict)
        self.table = payload["table"] if ok else {}
        self.dirty = False

    def __contains__(self, blob: str) -> bool:
        """Tell whether a blob has a verdict."""
        return self.get(blob) is not None

    def get(self, blob: str) -> tuple[Found, Info] | None:
        """Return the verdict on a blob, if it has been made before (and has the right shape)."""
        got = self.table.get(blob)
        if (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], tuple)
                and (got[1] is None or (isinstance(got[1], tuple) and len(got[1]) == 4))):
            return got
        return None

    def put(self, blob: str, verdict: tuple[Found, Info]) -> None:
        """Keep a verdict (saved by `save`)."""
        if len(self.table) >= MAX_VERDICTS:
            self.table = {}
        self.table[blob] = verdict
        self.dirty = True

    def save(self) -> None:
        """Write the table back when it changed; a failure only leaves the cache cold."""
        if self.dirty:
            with self.cache.lock():
                self.cache.write({"key": self.key, "table": self.table}, CACHE_FILE)


def _code_key() -> str:
    """Return a digest of the checking code, which the cached verdicts are only valid for."""
    # The verdicts are only as good as the code that made them: an upgrade (or an edit
    # in a development checkout) that changes a check must not trust old ones.
    h = hashlib.sha1()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # git_aide/
    for name in _CHECK_MODULES:
        try:
            with open(os.path.join(here, name), "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()
