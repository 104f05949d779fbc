"""The three-way merge of one memory record: pure, no files, no git.

The merge is a pure function of the three contents and is symmetric: swapping OURS and
THEIRS (as a rebase does) gives the same bytes. The git merge driver around it (reading
the files, the conflict markers written over OURS, the notices) is drivers/merge.py;
what a person calls each side is gitio/sides.py. The driver starts once per conflicting
file, so this module imports only `memory`, `controls` and the standard library, and not
even orjson unless a record holds a float.

Rules (docs/teams.md): a field changed on one side takes
that side; a field changed on both takes the side with the newer `updated_at`; `tags`
merge as sets; the result's `updated_at` is the later of the two. An empty or unparsable
base means "no base": equal fields are kept, differing fields go to the newer side, tags
are united.

A field both sides changed to different values keeps only the newer side's value, as
designed; the driver then says so (`dropped`, `notice`).
"""

from __future__ import annotations

import json

from git_aide.core import controls, memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeGuard

    from git_aide.core.jsonvalue import JSON, JSONObject

#: Conflict marker length when git does not pass one (%L).
DEFAULT_MARKER_SIZE = 7


class _Absent:
    """Give ABSENT and NO_BASE a type of their own, so that they are never taken for JSON."""

    #: The name shown by repr.
    name: str

    def __init__(self, name: str) -> None:
        """Make a marker called `name`."""
        self.name = name

    def __repr__(self) -> str:
        """Name the marker in failing test output."""
        return self.name


#: A key that a side does not have (deleted, or never added).
ABSENT = _Absent("ABSENT")
#: Stands for "no common ancestor" in field comparisons.
NO_BASE = _Absent("NO_BASE")


class MergeConflict(Exception):
    """Report that the three versions cannot be merged automatically; the message says why."""


def load_side(data: bytes, side: str) -> JSONObject:
    """Parse one side as a JSON object with the defaults filled in; MergeConflict if not."""
    # Read as every reader of memories reads (memory.load_json): the standard parser,
    # which keeps integers beyond 64 bits exact, as a merge must.
    try:
        raw = memory.load_json(data)
    except memory.MemoryFormatError:
        raise MergeConflict(f"{side} is not valid JSON") from None
    if not isinstance(raw, dict):
        raise MergeConflict(f"{side} is not a JSON object")
    return memory.fill_defaults(raw)


def _enc(value: JSON | _Absent) -> str:
    """Return a value's exact JSON text: equality without Python's 1 == 1.0 == True."""
    if isinstance(value, _Absent):
        return "\0" + repr(value)
    return json.dumps(value)


def stamp(record: JSONObject) -> str:
    """Return `updated_at` when it is well formed, else "" (older than any real time)."""
    value = record.get("updated_at")
    return value if isinstance(value, str) and memory.TIME_RE.match(value) else ""


def order(ours: JSONObject, theirs: JSONObject) -> tuple[JSONObject, JSONObject]:
    """Return (newer, older) by `updated_at`; a tie goes to the larger canonical bytes."""
    # The tie-break looks only at content, never at which side is which: that is what
    # makes a rebase (which swaps the sides) give the same bytes as a merge.
    key_ours = (stamp(ours), memory.canonical(ours))
    key_theirs = (stamp(theirs), memory.canonical(theirs))
    return (ours, theirs) if key_ours >= key_theirs else (theirs, ours)


def _str_list(value: JSON | _Absent) -> TypeGuard[list[str]]:
    """Tell whether a value is a list of strings (what `tags` must be for the set merge)."""
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def merge_tags(base: list[str], newer: list[str], older: list[str]) -> list[str]:
    """Merge tags as sets: base tags neither side removed, then additions (newer side first)."""
    kept = [t for t in base if t in newer and t in older]
    out = dict.fromkeys(kept)
    for tag in (*newer, *older):
        if tag not in base:
            out.setdefault(tag)
    return list(out)


def merge_field(key: str, base: JSON | _Absent, newer: JSON | _Absent,
                older: JSON | _Absent) -> JSON | _Absent:
    """Merge one field: changed on one side takes that side, on both the newer side."""
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


def merge_records(base: JSONObject | None, ours: JSONObject,
                  theirs: JSONObject) -> JSONObject:
    """Merge two records field by field against their ancestor (None: no base)."""
    newer, older = order(ours, theirs)
    keys = set(ours) | set(theirs) | set(base or ())
    result: JSONObject = {}
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


class Dropped:
    """Hold a field both sides changed to different values: the merge kept one and lost one."""

    __slots__ = ("uuid", "scope", "field", "kept", "value", "tie")

    def __init__(self, uuid: str, scope: str, field: str, kept: str, value: JSON | _Absent,
                 tie: bool) -> None:
        #: The memory's uuid.
        self.uuid = uuid
        #: The merged memory's scope ("" when project-wide).
        self.scope = scope
        #: The field's name.
        self.field = field
        #: The side whose value was kept, as git names it to the driver: "ours" (%A) or
        #: "theirs" (%B).
        self.kept = kept
        #: The value dropped (ABSENT when the dropped side had no such key).
        self.value = value
        #: Whether both sides had the same `updated_at` (then the content decided).
        self.tie = tie

    @property
    def lost(self) -> str:
        """Return the side whose value was dropped."""
        return "theirs" if self.kept == "ours" else "ours"

    def __repr__(self) -> str:
        """Show the dropped field in failing test output."""
        return f"Dropped({self.field!r}, kept={self.kept!r}, value={self.value!r})"


def changed_on_both(key: str, base: JSON | _Absent, ours: JSON | _Absent,
                    theirs: JSON | _Absent) -> bool:
    """Tell whether both sides changed one field to different values, so that a merge can keep
    only one of them (NO_BASE: no ancestor, so any difference counts)."""
    enc_ours, enc_theirs = _enc(ours), _enc(theirs)
    if key == "updated_at" or enc_ours == enc_theirs:
        return False
    if base is not NO_BASE and _enc(base) in (enc_ours, enc_theirs):
        return False
    # Tags merge as sets: every tag either side added is kept, so neither side loses one.
    return not (key == "tags" and _str_list(ours) and _str_list(theirs))


def same_value(a: JSON | _Absent, b: JSON | _Absent) -> bool:
    """Compare two JSON values as a file holds them (1, 1.0 and true differ)."""
    return _enc(a) == _enc(b)


def dropped(base: JSONObject | None, ours: JSONObject, theirs: JSONObject,
            merged: JSONObject) -> list[Dropped]:
    """Return the fields of merge_records(base, ours, theirs) whose value one side lost."""
    newer, older = order(ours, theirs)
    kept = "ours" if newer is ours else "theirs"
    tie = stamp(ours) == stamp(theirs)
    uuid = str(merged.get("uuid", ""))
    scope = merged.get("scope")
    out: list[Dropped] = []
    for key in [*newer, *(k for k in older if k not in newer)]:
        b = NO_BASE if base is None else base.get(key, ABSENT)
        if changed_on_both(key, b, newer.get(key, ABSENT), older.get(key, ABSENT)):
            out.append(Dropped(uuid, scope if isinstance(scope, str) else "", key, kept,
                               older.get(key, ABSENT), tie))
    return out


def merge_bytes(base: bytes, ours: bytes, theirs: bytes) -> bytes:
    """Return the canonical bytes of the merged memory; MergeConflict when it cannot merge."""
    return merge_report(base, ours, theirs)[0]


def merge_report(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, list[Dropped]]:
    """Return merge_bytes and the fields whose value one side lost in it."""
    try:
        return _merge_bytes(base, ours, theirs)
    except (TypeError, ValueError) as e:  # e.g. a lone surrogate that UTF-8 cannot hold
        raise MergeConflict(f"cannot be written canonically ({type(e).__name__}: {e})"
                            ) from None


def _merge_bytes(base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, list[Dropped]]:
    """Do merge_report's work without translating stray errors."""
    o = load_side(ours, "ours")
    t = load_side(theirs, "theirs")
    if _enc(o.get("uuid", ABSENT)) != _enc(t.get("uuid", ABSENT)):
        raise MergeConflict("ours and theirs have different uuids")
    b: JSONObject | None = None
    if base.strip():
        try:
            b = load_side(base, "base")
        except MergeConflict:
            b = None  # a virtual ancestor with markers in it: merge as "no base"
        if b is not None and _enc(b.get("uuid", ABSENT)) != _enc(o.get("uuid", ABSENT)):
            b = None
    merged = memory.fill_defaults(merge_records(b, o, t))
    lost = dropped(b, o, t, merged)
    problems = memory.check(merged)
    for field, message in problems:
        # Read liberally, write strictly: what a reader accepts is
        # repaired; only what makes no memory at all, or a time the repair would have to
        # invent (and so differ between runs), is a conflict.
        if memory.is_fatal(field) or (field in ("created_at", "updated_at")
                                      and message != "earlier than created_at"):
            raise MergeConflict(f"the merged memory would be invalid ({field}: {message})")
    if problems:
        merged = memory.repair(memory.parse(memory.canonical(merged)))
    return memory.canonical(merged), lost


def conflict_bytes(base: bytes, ours: bytes, theirs: bytes,
                   marker_size: int = DEFAULT_MARKER_SIZE) -> bytes:
    """Put diff3-style markers around the three whole contents, as git writes them."""
    def block(data: bytes) -> bytes:
        """End the content in a newline, so that the next marker starts a line."""
        return data if not data or data.endswith(b"\n") else data + b"\n"

    return b"".join((
        b"<" * marker_size, b" ours\n", block(ours),
        b"|" * marker_size, b" base\n", block(base),
        b"=" * marker_size, b"\n", block(theirs),
        b">" * marker_size, b" theirs\n",
    ))


#: How wide a dropped value is shown before it is cut (the command prints all of it).
SHOWN_WIDTH = 72


def shown(value: JSON | _Absent, width: int | None = SHOWN_WIDTH) -> str:
    """Show a field's value on one line, as JSON writes it (strings quoted), cut to `width`."""
    if isinstance(value, _Absent):
        return "(no such field)"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    # JSON escapes C0 controls; DEL and C1 would still reach the terminal raw.
    text = controls.escape(text)
    if width is not None and len(text) > width:
        text = text[:width - 4] + ('..."' if text.endswith('"') else "...")
    return text


#: A side of a merge as a person sees it: (word, detail or None).
Label = tuple[str, str | None]


def notice(d: Dropped, names: dict[str, Label], recover: str | None) -> str:
    """Return one line that says which field of which memory lost which side's value, and the
    command that prints the whole dropped version (without one, the whole value)."""
    kept_word, kept_detail = names[d.kept]
    lost_word, lost_detail = names[d.lost]
    why = "same updated_at" if d.tie else "newer"
    kept = f"{kept_word} ({kept_detail}, {why})" if kept_detail else f"{kept_word} ({why})"
    lost = f"{lost_word} ({lost_detail})" if lost_detail else lost_word
    scope = controls.escape(d.scope) if d.scope else "project"
    line = (f"memory {controls.escape(d.uuid[:8])} [{scope}]: both sides changed "
            f"{shown(d.field)}; kept {kept}, dropped {lost}: "
            f"{shown(d.value, SHOWN_WIDTH if recover else None)}")
    return f"{line}; recover it with: {recover}" if recover else line


