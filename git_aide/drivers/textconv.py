"""`git aide textconv FILE`: a memory as readable lines, for `git diff`, `git log -p`, `git show`.

`init` registers it as the textconv of the `diff=aide` attribute on memory files. Git
starts it once per file it shows, so, like the merge driver, it imports nothing but the
standard library's json and never click, orjson or pygit2. Anything that is not a
memory (not JSON, not an object with a `what`) is printed as it is. Either way its control
characters are escaped (`\\u001b`), as on every other output: git copies a textconv's
output to the terminal untouched, so a file holding ESC could clear the screen or set the
window title of whoever runs `git log -p`.
"""

from __future__ import annotations

import json
import sys

from git_aide.core.controls import escape, escape_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON, JSONObject

#: The header fields, in the order they are printed; the long texts come after them.
_HEAD = ("uuid", "layer", "scope", "context_label", "tags", "priority", "source", "shared",
         "contributor", "generated_by", "derived_from", "created_at", "updated_at")
#: Header fields left out while they are null.
_QUIET_WHEN_NULL = frozenset({"generated_by", "derived_from"})
#: The long texts, printed as paragraphs so that a word diff reads well.
_TEXT = ("what", "why")
#: How the header names a field (the rest are named as in the file).
_LABELS = {"context_label": "label"}
USAGE = "usage: git aide textconv FILE"


def _value(key: str, value: JSON) -> str:
    return escape(_plain(key, value))


def _plain(key: str, value: JSON) -> str:
    if key == "scope" and value in (None, "project"):
        return "project-wide"
    if key == "tags" and isinstance(value, list):
        return ", ".join(str(t) for t in value) if value else "(none)"
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def render(record: JSONObject) -> str:
    """Render a memory record as readable lines: the header fields, then what and why."""
    # Empty provenance fields say nothing in a diff: left out.
    names = [k for k in _HEAD if k == "scope" or (
        k in record and not (k in _QUIET_WHEN_NULL and record[k] is None))]
    names += sorted(k for k in record if k not in _HEAD and k not in _TEXT)
    labels = [escape(_LABELS.get(k, k)) for k in names]
    width = max(len(label) for label in labels)
    lines = [f"{label + ':':<{width + 1}} {_value(k, record.get(k))}"
             for k, label in zip(names, labels, strict=True)]
    for key in _TEXT:
        value = record.get(key)
        lines.append("")
        lines.append(f"{key}:")
        if value is None or value == "":
            lines.append("  (none)")
        else:
            # Escaped before the split: a form feed or a C1 NEL is not a line break.
            text = _value(key, value)
            lines.extend("  " + line if line else "" for line in text.splitlines())
    return "\n".join(lines) + "\n"


def convert(data: bytes) -> bytes:
    """Return the readable form of a memory file's bytes, or the bytes themselves; either way
    with their control characters escaped."""
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return escape_bytes(data)
    if not isinstance(record, dict) or not isinstance(record.get("what"), str):
        return escape_bytes(data)
    try:
        return render(record).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):  # a lone surrogate: show the bytes
        return escape_bytes(data)


def main(argv: list[str]) -> int:
    """Run the textconv: read FILE, write its readable form to stdout."""
    if argv in (["-h"], ["--help"]):
        sys.stderr.write(USAGE + "\n")
        return 0
    if len(argv) != 1:
        sys.stderr.write(f"git-aide: error: {USAGE}\n")
        return 2
    try:
        with open(argv[0], "rb") as f:
            data = f.read()
    except OSError as e:
        sys.stderr.write(f"git-aide: error: {escape(argv[0])}: {e.strerror}\n")
        return 1
    try:
        sys.stdout.buffer.write(convert(data))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0
