"""The three-way merge of one memory record, and the git merge driver around it.

Git starts the driver once per conflicting file, so this module must start fast: it
imports only `memory` and the standard library; never pygit2, click, rich or whoosh, and
not even orjson unless a record holds a float. The merge is a pure function of the three
contents and is symmetric: swapping OURS and THEIRS (as a rebase does) gives the same bytes.

Rules (DESIGN section 7): a field changed on one side takes that side; a field changed
on both takes the side with the newer `updated_at`; `tags` merge as sets; the result's
`updated_at` is the later of the two. An empty or unparsable base means "no base":
equal fields are kept, differing fields go to the newer side, tags are united.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from git_aide import memory

#: Conflict marker length when git does not pass one (%L).
DEFAULT_MARKER_SIZE = 7
#: Usage line printed when the driver is called with too few arguments.
USAGE = "usage: git aide merge-driver BASE OURS THEIRS [MARKER_SIZE] [PATH]"


class _Absent:
    """The type of ABSENT and NO_BASE, so that they are never taken for a JSON value."""

    #: The name shown by repr.
    name: str

    def __init__(self, name: str) -> None:
        """A marker called `name`."""
        self.name = name

    def __repr__(self) -> str:
        """Shown in failing test output."""
        return self.name


#: A key that a side does not have (deleted, or never added).
ABSENT = _Absent("ABSENT")
#: Stands for "no common ancestor" in field comparisons.
NO_BASE = _Absent("NO_BASE")


class MergeConflict(Exception):
    """The three versions cannot be merged automatically; the message says why."""


def load_side(data: bytes, side: str) -> dict[str, Any]:
    """One side parsed as a JSON object with the defaults filled in; MergeConflict if not."""
    # Read as every reader of memories reads (memory.load_json): the standard parser,
    # which keeps integers beyond 64 bits exact, as a merge must.
    try:
        raw = memory.load_json(data)
    except memory.MemoryFormatError:
        raise MergeConflict(f"{side} is not valid JSON") from None
    if not isinstance(raw, dict):
        raise MergeConflict(f"{side} is not a JSON object")
    return memory.fill_defaults(raw)


def _enc(value: Any) -> str:
    """A value's exact JSON text: equality without Python's 1 == 1.0 == True."""
    if isinstance(value, _Absent):
        return "\0" + repr(value)
    return json.dumps(value)


def _has_float(value: Any) -> bool:
    """Whether a float hides anywhere in a JSON value."""
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


def canonical(record: dict[str, Any]) -> bytes:
    """Exactly `memory.canonical(record)`, without importing orjson when it can."""
    ordered = memory.fill_defaults(record)
    if _has_float(ordered):
        return memory.canonical(ordered)  # orjson writes some floats its own way (1e-7)
    # For strings, integers, booleans and null the standard library writes the same
    # bytes as orjson's OPT_INDENT_2 (tests/test_merge.py checks this), and it spares
    # the driver orjson's import time.
    return (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode()


def stamp(record: dict[str, Any]) -> str:
    """`updated_at` when it is well formed, else "" (older than any real time)."""
    value = record.get("updated_at")
    return value if isinstance(value, str) and memory.TIME_RE.match(value) else ""


def order(ours: dict[str, Any], theirs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(newer, older) by `updated_at`; a tie goes to the larger canonical bytes."""
    # The tie-break looks only at content, never at which side is which: that is what
    # makes a rebase (which swaps the sides) give the same bytes as a merge.
    key_ours = (stamp(ours), canonical(ours))
    key_theirs = (stamp(theirs), canonical(theirs))
    return (ours, theirs) if key_ours >= key_theirs else (theirs, ours)


def _str_list(value: Any) -> bool:
    """A list of strings (what `tags` must be for the set merge)."""
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def merge_tags(base: list[str], newer: list[str], older: list[str]) -> list[str]:
    """Set merge: base tags that neither side removed, then additions (newer side first)."""
    kept = [t for t in base if t in newer and t in older]
    out = dict.fromkeys(kept)
    for tag in (*newer, *older):
        if tag not in base:
            out.setdefault(tag)
    return list(out)


def merge_field(key: str, base: Any, newer: Any, older: Any) -> Any:
    """One field: changed on one side takes that side, on both the newer side."""
    enc_newer, enc_older = _enc(newer), _enc(older)
    if enc_newer == enc_older:
        return newer
    if base is not NO_BASE:
        enc_base = _enc(base)
        if enc_newer == enc_base:
            return older
        if enc_older == enc_base:
            return newer
    if key == "tags" and _str_list(newer) and _str_list(older):
        return merge_tags(base if _str_list(base) else [], newer, older)
    return newer


def merge_records(base: dict[str, Any] | None, ours: dict[str, Any],
                  theirs: dict[str, Any]) -> dict[str, Any]:
    """The field-by-field merge of two records against their ancestor (None: no base)."""
    newer, older = order(ours, theirs)
    keys = set(ours) | set(theirs) | set(base or ())
    result: dict[str, Any] = {}
    for key in keys:
        if key == "updated_at":
            continue
        b = NO_BASE if base is None else base.get(key, ABSENT)
        value = merge_field(key, b, newer.get(key, ABSENT), older.get(key, ABSENT))
        if value is not ABSENT:
            result[key] = value
    # The newer side's stamp is the later of the two by construction.
    if "updated_at" in newer:
        result["updated_at"] = newer["updated_at"]
    return result


def merge_bytes(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """The canonical bytes of the merged memory; MergeConflict when it cannot merge."""
    try:
        return _merge_bytes(base, ours, theirs)
    except (TypeError, ValueError) as e:  # e.g. a lone surrogate that UTF-8 cannot hold
        raise MergeConflict(f"cannot be written canonically ({type(e).__name__}: {e})"
                            ) from None


def _merge_bytes(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """merge_bytes without the translation of stray errors."""
    o = load_side(ours, "ours")
    t = load_side(theirs, "theirs")
    if _enc(o.get("uuid", ABSENT)) != _enc(t.get("uuid", ABSENT)):
        raise MergeConflict("ours and theirs have different uuids")
    b: dict[str, Any] | None = None
    if base.strip():
        try:
            b = load_side(base, "base")
        except MergeConflict:
            b = None  # a virtual ancestor with markers in it: merge as "no base"
        if b is not None and _enc(b.get("uuid", ABSENT)) != _enc(o.get("uuid", ABSENT)):
            b = None
    merged = memory.fill_defaults(merge_records(b, o, t))
    problems = memory.check(merged)
    for field, message in problems:
        # Read liberally, write strictly (DESIGN section 1): what a reader accepts is
        # repaired; only what makes no memory at all, or a time the repair would have to
        # invent (and so differ between runs), is a conflict.
        if memory.is_fatal(field) or (field in ("created_at", "updated_at")
                                      and message != "earlier than created_at"):
            raise MergeConflict(f"the merged memory would be invalid ({field}: {message})")
    if problems:
        merged = memory.repair(memory.parse(canonical(merged)))
    return canonical(merged)


def conflict_bytes(base: bytes, ours: bytes, theirs: bytes,
                   marker_size: int = DEFAULT_MARKER_SIZE) -> bytes:
    """diff3-style markers around the three whole contents, as git writes them."""
    def block(data: bytes) -> bytes:
        """Content ending in a newline, so that the next marker starts a line."""
        return data if not data or data.endswith(b"\n") else data + b"\n"

    return b"".join((
        b"<" * marker_size, b" ours\n", block(ours),
        b"|" * marker_size, b" base\n", block(base),
        b"=" * marker_size, b"\n", block(theirs),
        b">" * marker_size, b" theirs\n",
    ))


def _marker_size(arg: str | None) -> int:
    """%L as git passes it; anything unusable means the default."""
    try:
        size = int(arg) if arg else DEFAULT_MARKER_SIZE
    except ValueError:
        return DEFAULT_MARKER_SIZE
    return size if 1 <= size <= 1000 else DEFAULT_MARKER_SIZE


def _read(path: str) -> bytes:
    """A file's bytes; a missing one (git passes an empty %O for add/add) is empty."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return b""


def _say(line: str) -> None:
    """One line on stderr, which git shows beside its own CONFLICT line."""
    try:
        sys.stderr.write(f"git-aide: merge-driver: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def run_driver(argv: list[str]) -> int:
    """`git aide merge-driver BASE OURS THEIRS [MARKER_SIZE] [PATH]`: 0 merged, 1 conflict."""
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(argv) < 3 or len(argv) > 5:
        _say(USAGE)
        return 2
    base_path, ours_path, theirs_path = argv[0], argv[1], argv[2]
    size = _marker_size(argv[3] if len(argv) > 3 else None)
    name = argv[4] if len(argv) > 4 and argv[4] else ours_path
    # Only %A (ours_path) is ever written: git copies it into the working tree itself.
    base = ours = theirs = b""
    try:
        # One at a time: if one read fails, the markers still hold what was read.
        base = _read(base_path)
        ours = _read(ours_path)
        theirs = _read(theirs_path)
        merged = merge_bytes(base, ours, theirs)
        with open(ours_path, "wb") as f:
            f.write(merged)
        return 0
    except MergeConflict as e:
        reason = str(e)
    except Exception as e:  # never a traceback in git's output, never a silent "resolved"
        reason = f"internal error: {type(e).__name__}: {e}"
    try:
        with open(ours_path, "wb") as f:
            f.write(conflict_bytes(base, ours, theirs, size))
    except OSError as e:
        _say(f"{name}: cannot write the conflict markers: {e}")
        return 1
    _say(f"{name}: cannot merge: {reason}; conflict markers written")
    return 1


def main(argv: list[str] | None = None) -> int:
    """Entry point for the fast path in `__main__`."""
    return run_driver(sys.argv[2:] if argv is None else argv)
