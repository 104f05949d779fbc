"""Control characters: found in text (refused on write) and escaped on output.

A memory holding ESC, BEL or a C1 code could erase lines or set the window title of
whoever prints it, so writes refuse them (newline and tab are text) and every output
escapes those already in files. The escape, `\\u001b`, is valid inside JSON strings too.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSON

#: C0 controls but tab and newline, DEL, and the C1 controls.
CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: The same in bytes read with `surrogateescape`, plus the bytes 0x80 to 0x9f that are not
#: part of a UTF-8 character (kept as lone surrogates), which a terminal may read as C1.
_RAW_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f]")


def find(text: str) -> str | None:
    """Return the first control character in `text` named as `U+001B`, or None."""
    if text.isascii() and text.isprintable():
        return None
    m = CONTROL_RE.search(text)
    return f"U+{ord(m.group()):04X}" if m else None


def escape(text: str) -> str:
    """Return `text` with each control character written as `\\uXXXX`."""
    if text.isascii() and text.isprintable():
        return text
    return CONTROL_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def escape_bytes(data: bytes) -> bytes:
    """Escape bytes of any encoding: each control character becomes `\\uXXXX`, and each
    byte of the C1 range outside a UTF-8 character `\\xNN`; other bytes stay as they are."""
    if data.isascii() and not CONTROL_RE.search(data.decode("ascii")):
        return data
    text = data.decode("utf-8", "surrogateescape")
    return _RAW_RE.sub(_raw, text).encode("utf-8", "surrogateescape")


def _raw(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code - 0xdc00:02x}" if code >= 0xdc00 else f"\\u{code:04x}"


def escape_tree(obj: JSON) -> JSON:
    """Escape every string in `obj` (JSON-like), for renderers that add their own
    control sequences (colour) and so cannot escape their finished output."""
    if isinstance(obj, str):
        return escape(obj)
    if isinstance(obj, dict):
        return {escape(str(k)): escape_tree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [escape_tree(v) for v in obj]
    return obj
