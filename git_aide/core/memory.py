"""The MemoryFile record (aide-memory's format): parse, check, and write canonical bytes.

A record is a plain dict holding every known key (defaults filled in) plus any unknown
keys exactly as they were read. This module is ground level: it imports nothing of
git-aide but `scope` and `jsontext`, and nothing heavy: the merge driver starts from it.
"""

from __future__ import annotations

import json
import re
import time

from git_aide import MEMORIES_DIR as _MEMORIES_DIR
from git_aide.core import scope as scopes

# Read by every reader of memories as memory.load_json and memory.MemoryFormatError.
from git_aide.core.jsontext import MemoryFormatError as MemoryFormatError
from git_aide.core.jsontext import holds_float, load_known
from git_aide.core.jsontext import load_json as load_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

#: The layers, in ranking order.
LAYERS: tuple[str, ...] = ("area_context", "technical", "preferences", "guidelines")
#: The values `source` may take.
SOURCES: tuple[str, ...] = ("conversation", "import", "agent_discovery", "elevated", "hook")
#: The values `priority` may take.
PRIORITIES: tuple[str, ...] = ("normal", "always")
#: The known keys, in the order a file is written.
KNOWN_KEYS: tuple[str, ...] = (
    "uuid", "layer", "what", "why", "scope", "context_label", "contributor", "tags",
    "source", "shared", "priority", "generated_by", "derived_from", "created_at",
    "updated_at",
)
#: Where memories live, relative to the repository root.
MEMORIES_DIR = _MEMORIES_DIR
#: The folder of private preferences, never staged.
PERSONAL_DIR = MEMORIES_DIR + "/preferences/personal"
#: The longest `what`, in code points.
MAX_WHAT = 4000
#: The largest memory file that validation accepts.
MAX_FILE_BYTES = 16 * 1024

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z")
TIME_RE = re.compile(
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"\.[0-9]{3}Z\Z")

_DEFAULTS: JSONObject = {
    "why": None, "scope": None, "context_label": None, "tags": [], "source": "conversation",
    "shared": True, "priority": "normal", "generated_by": None, "derived_from": None,
}
#: How many known keys there are.
_KNOWN = len(KNOWN_KEYS)
_REQUIRED = ("uuid", "layer", "what", "contributor", "created_at", "updated_at")
_NULLABLE_STR = ("why", "scope", "context_label")
#: The keys whose values hold no number in a known memory's record that _typed() passes:
#: the fields it checks, those whose invalid values make no memory, and `shared`, taken
#: from the path unless a boolean (load_known's `checked`).
_CHECKED = frozenset(KNOWN_KEYS) - {"generated_by"}
#: The fields without which a file is no memory at all (and the file as a whole, None):
#: a problem elsewhere leaves it a live memory (read liberally: docs/memory-file.md).
FATAL_FIELDS: frozenset[str | None] = frozenset({None, "uuid", "layer", "what", "scope"})


def now() -> str:
    """Return the current UTC time in the file's timestamp form."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def parse(data: bytes, path: str | None = None, known: bool = False,
          bulk: bool = False) -> JSONObject:
    """Parse one memory file, liberally: MemoryFormatError only when it is no memory at
    all (not JSON, no valid uuid, layer, what or scope); any other field that breaks a
    rule is read as the nearest value of its type. `path` (repo-relative) gives a
    missing `shared` from the folder. `known`: these bytes are known to be a memory
    (a read's verdict on their blob id, which names them): the rules are not checked
    again, and the record is the same; `bulk`: one of thousands read at once
    (load_known)."""
    raw = load_known(data, _CHECKED) if known and bulk else load_json(data)
    if not isinstance(raw, dict):
        raise MemoryFormatError("not a JSON object")
    # Parsed just now, the object is this call's own: not copied when it is canonical.
    record = raw if _canonical(tuple(raw)) else fill_defaults(raw)
    shared = None if "shared" in raw and isinstance(raw["shared"], bool) \
        else not (path or "").startswith(PERSONAL_DIR + "/")
    if known:
        # Not a memory would have been fatal; any other problem is one of type, which
        # _normalize() alone mends (on a record of the right types it changes nothing).
        problems = not _typed(record)
        if problems and bulk:
            # orjson's value of a number here may not be the standard library's
            # (load_known did not look): read as every small read does.
            return parse(data, path, known=True)
    else:
        found = check(record)
        for field, message in found:
            if is_fatal(field):
                raise MemoryFormatError(message, field)
        problems = bool(found)
    if shared is not None:
        record["shared"] = shared
    if problems:
        _normalize(record)
    return record


def _typed(record: JSONObject) -> bool:
    """Tell whether each field _normalize() mends already has its type (it would change
    nothing)."""
    tags, derived, gen = record["tags"], record["derived_from"], record["generated_by"]
    return (type(tags) is list and all(type(t) is str for t in tags)
            and all(record[k] is None or type(record[k]) is str for k in ("why", "context_label"))
            and (derived is None or type(derived) is str or (
                type(derived) is list and all(type(d) is str for d in derived)))
            and all(type(record.get(k)) is str for k in ("contributor", "created_at",
                                                          "updated_at", "source", "priority"))
            and (gen is None or type(gen) is dict))


def is_fatal(field: str | None) -> bool:
    """Tell whether a problem with this field makes a file no memory at all."""
    return field in FATAL_FIELDS


def _text(value: JSON) -> str:
    """Return any JSON value as text (a string stays as it is)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _normalize(record: JSONObject) -> None:
    """Give each known field a value of its type, so that every reader can use it."""
    tags = record.get("tags")
    if isinstance(tags, list):
        record["tags"] = [_text(t) for t in tags]
    else:
        record["tags"] = [] if tags is None else [_text(tags)]
    for key in ("why", "context_label"):
        if record[key] is not None:
            record[key] = _text(record[key])
    derived = record["derived_from"]
    if isinstance(derived, list):
        record["derived_from"] = [_text(d) for d in derived]
    elif derived is not None:
        record["derived_from"] = _text(derived)
    for key in ("contributor", "created_at", "updated_at"):
        record[key] = _text(record[key]) if record.get(key) is not None else ""
    for key in ("source", "priority"):
        record[key] = _text(record[key])
    if record["generated_by"] is not None and not isinstance(record["generated_by"], dict):
        record["generated_by"] = None


def repair(record: JSONObject) -> JSONObject:
    """Make a record read liberally fit to be written (write strictly): tags without
    repeats, known values for `source` and `priority`, times in order."""
    record["tags"] = list(dict.fromkeys(record["tags"]))
    if record["source"] not in SOURCES:
        record["source"] = _DEFAULTS["source"]
    if record["priority"] not in PRIORITIES:
        record["priority"] = _DEFAULTS["priority"]
    if not record["contributor"]:
        record["contributor"] = "unknown"
    if isinstance(record["derived_from"], list) and not all(
            UUID_RE.match(d) for d in record["derived_from"]):
        record["derived_from"] = [d for d in record["derived_from"] if UUID_RE.match(d)]
    stamp = now()
    if not TIME_RE.match(record["updated_at"]):
        record["updated_at"] = stamp
    if not TIME_RE.match(record["created_at"]):
        record["created_at"] = record["updated_at"]
    if record["updated_at"] < record["created_at"]:
        record["updated_at"] = record["created_at"]
    return record


def fill_defaults(raw: JSONObject) -> JSONObject:
    """Return the record with every known key present, in canonical order, unknown keys after."""
    if _canonical(tuple(raw)):
        # Written canonically (every known key, in order; any other after, sorted): the
        # order already is the record's (a copy is a tenth of the loop below).
        return dict(raw)
    record: JSONObject = {}
    for key in KNOWN_KEYS:
        if key in raw:
            record[key] = raw[key]
        elif key in _DEFAULTS:
            value = _DEFAULTS[key]
            record[key] = list(value) if isinstance(value, list) else value
    for key in sorted(k for k in raw if k not in record):
        record[key] = raw[key]
    return record


def _canonical(keys: tuple[str, ...]) -> bool:
    """Tell whether a record's keys are in canonical order: every known key, in order,
    then any other, sorted."""
    return keys[:_KNOWN] == KNOWN_KEYS and (len(keys) <= _KNOWN + 1
                                            or list(keys[_KNOWN:]) == sorted(keys[_KNOWN:]))


def check(record: JSONObject) -> list[tuple[str | None, str]]:
    """List every problem of a record as (field, message); empty when it is valid."""
    problems: list[tuple[str | None, str]] = []
    missing = [key for key in _REQUIRED if key not in record]
    problems.extend((key, "missing") for key in missing)
    if missing:  # check the rest as if the missing keys were null
        record = {**record, **dict.fromkeys(missing)}
    uuid = record["uuid"]
    if not isinstance(uuid, str) or not UUID_RE.match(uuid):
        problems.append(("uuid", "not a lowercase RFC 4122 UUID"))
    if record["layer"] not in LAYERS:
        problems.append(("layer", f"unknown layer {record['layer']!r}"))
    what = record["what"]
    if not isinstance(what, str) or not what.strip():
        problems.append(("what", "empty"))
    elif len(what) > MAX_WHAT:
        problems.append(("what", f"longer than {MAX_WHAT} characters"))
    for key in _NULLABLE_STR:
        if record[key] is not None and not isinstance(record[key], str):
            problems.append((key, "must be a string or null"))
    if not isinstance(record["contributor"], str):
        problems.append(("contributor", "must be a string"))
    tags = record["tags"]
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        problems.append(("tags", "must be a list of strings"))
    elif len(set(tags)) != len(tags):
        problems.append(("tags", "duplicate tag"))
    if record["source"] not in SOURCES:
        problems.append(("source", f"unknown source {record['source']!r}"))
    if not isinstance(record["shared"], bool):
        problems.append(("shared", "must be true or false"))
    if record["priority"] not in PRIORITIES:
        problems.append(("priority", f"unknown priority {record['priority']!r}"))
    gen = record["generated_by"]
    if gen is not None and not isinstance(gen, dict):
        problems.append(("generated_by", "must be an object or null"))
    derived = record["derived_from"]
    if isinstance(derived, str) and not UUID_RE.match(derived):
        problems.append(("derived_from", "not a uuid"))
    elif isinstance(derived, list):
        if not all(isinstance(d, str) and UUID_RE.match(d) for d in derived):
            problems.append(("derived_from", "must be a list of uuids"))
    elif derived is not None:
        problems.append(("derived_from", "must be a uuid, a list of uuids or null"))
    stamps_ok = True
    for key in ("created_at", "updated_at"):
        if not isinstance(record[key], str) or not TIME_RE.match(record[key]):
            problems.append((key, "not a UTC time of the form YYYY-MM-DDTHH:MM:SS.sssZ"))
            stamps_ok = False
    if stamps_ok and record["updated_at"] < record["created_at"]:
        problems.append(("updated_at", "earlier than created_at"))
    if isinstance(record["scope"], str):
        message = scopes.check(record["scope"])
        if message:
            problems.append(("scope", message))
    if record["layer"] == "area_context" and scopes.is_project_wide(record["scope"]):
        problems.append(("scope", "an area_context memory needs a scope"))
    if missing:
        return [p for p in problems if p[0] not in missing or p[1] == "missing"]
    return problems


def check_path(record: JSONObject, path: str) -> str | None:
    """Say why a valid record does not belong at `path` (repo-relative), or None."""
    return misplaced(path, record["uuid"], record["layer"], relpath(record))


def misplaced(path: str, uuid: str, layer: str, want: str) -> str | None:
    """Say why a memory (its uuid, layer and rightful path) does not belong at `path`."""
    if path == want:
        return None
    if path.rsplit("/", 1)[-1] != f"{uuid}.json":
        return "file name is not its uuid"
    return f"belongs at {want} (layer {layer})"


def relpath(record: JSONObject) -> str:
    """Return where a record is stored, relative to the repository root."""
    layer = record["layer"]
    if layer == "preferences":
        folder = "preferences/shared" if record.get("shared", True) else "preferences/personal"
    else:
        folder = layer
    return f"{MEMORIES_DIR}/{folder}/{record['uuid']}.json"


def is_personal(record: JSONObject) -> bool:
    """Tell whether a record is a private preference: gitignored, never staged."""
    return record["layer"] == "preferences" and record.get("shared") is False


def user_store() -> str:
    """Return the user's own store, whose memories follow a person into every repository
    (read/user.py): `$XDG_DATA_HOME/git-aide/user` (an absolute XDG_DATA_HOME only, as
    the XDG specification says), else `~/.local/share/git-aide/user`."""
    import os

    base = os.environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.abspath(os.path.join(base, "git-aide", "user"))


def in_user_store(path: str) -> bool:
    """Tell whether a memory's path is a file of the user's own store (read/user.py lays its
    memories over a working tree's with their absolute paths; a repository's memories
    have paths relative to its top)."""
    return path.startswith("/")


def canonical(record: JSONObject) -> bytes:
    """Return the canonical bytes of a record: the same record always gives the same bytes.

    The form is orjson's (OPT_INDENT_2). For strings, integers, booleans and null the
    standard library writes the same bytes (tests/drivers/test_merge.py checks this) and spares
    orjson's import (~12 ms), which the merge driver, started once per conflicting
    file, must not pay; orjson writes some floats its own way (1e-7), so a record
    holding one is written by orjson itself.
    """
    ordered = fill_defaults(record)
    if holds_float(ordered):
        import orjson

        try:
            return orjson.dumps(ordered, option=orjson.OPT_INDENT_2) + b"\n"
        except TypeError:  # integers beyond 64 bits in an unknown key
            pass
    return (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode()


def new(
    what: str, *, layer: str, contributor: str, why: str | None = None,
    scope: str | None = None, context_label: str | None = None, tags: list[str] | None = None,
    source: str = "conversation", shared: bool = True, priority: str = "normal",
    generated_by: JSONObject | None = None, derived_from: str | None = None,
) -> JSONObject:
    """Make a fresh record with a random uuid, stamped now."""
    import uuid as _uuid

    stamp = now()
    return fill_defaults({
        "uuid": str(_uuid.uuid4()), "layer": layer, "what": what, "why": why, "scope": scope,
        "context_label": context_label, "contributor": contributor,
        "tags": list(dict.fromkeys(tags or [])), "source": source, "shared": shared,
        "priority": priority, "generated_by": generated_by, "derived_from": derived_from,
        "created_at": stamp, "updated_at": stamp,
    })


def by_agent(tool: str | None) -> JSONObject:
    """Return the `generated_by` of a memory an agent wrote (aide-memory's format): the tool
    (its client's name and version, as it said them), no model (a client does not say
    it), and `author_type` "ai"."""
    return {"tool": tool, "model": None, "author_type": "ai"}


def agent_of(record: JSONObject) -> str | None:
    """Name the agent that last wrote a memory, by its tool's name without its version
    ("claude-code"; "an agent" when it did not say); None: a person's memory."""
    gen = record.get("generated_by")
    if not isinstance(gen, dict) or gen.get("author_type") != "ai":
        return None
    tool = gen.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        return "an agent"
    name, _, version = tool.strip().rpartition(" ")
    return name if name and version[:1].isdigit() else tool.strip()


def generated_by_matches(record: JSONObject, tool: str) -> bool:
    """Tell whether an agent `tool` wrote the memory: its tool's name, or name and version,
    case-insensitively."""
    gen = record.get("generated_by")
    agent = agent_of(record)
    if agent is None:
        return False
    want = tool.strip().lower()
    full = gen.get("tool") if isinstance(gen, dict) else None
    return want in (agent.lower(), (full or "").strip().lower())


def folded(text: str | None) -> str:
    """Return a memory's text for a listing: blanks and line breaks folded to one space,
    but inside fenced code (a fence stays a fence, its lines kept, as import keeps it)."""
    if not text:
        return ""
    if "```" not in text and "~~~" not in text:
        return " ".join(text.split())
    out: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.split("\n"):
        s = line.strip()
        if fence:
            out.append(line.rstrip())
            if s.startswith(fence) and not s.strip(fence[0]):
                fence = ""
            continue
        if s[:3] in ("```", "~~~"):
            if prose:
                out.append(" ".join(" ".join(prose).split()))
                prose = []
            fence = s[:len(s) - len(s.lstrip(s[0]))]
            out.append(s)
            continue
        prose.append(line)
    if prose:
        out.append(" ".join(" ".join(prose).split()))
    return "\n".join(x for x in out if x)


#: An imported memory's `why`: the rules file and line it came from (`AGENTS.md:12`).
_WHY_FILE = re.compile(r"^\s*(.+?):(\d+)(?:\D.*)?$", re.S)


def imported_from(record: JSONObject) -> tuple[str, int] | None:
    """Return the (file, line) an imported memory came from, read from its `why`
    (`AGENTS.md:12`); None for a memory that was not imported from a file."""
    if record.get("source") != "import":
        return None
    why = record.get("why")
    m = _WHY_FILE.match(why) if isinstance(why, str) else None
    if m is None:
        return None
    name = m.group(1).strip().replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    return name, int(m.group(2))
