"""The git-aide block inside a rules file: found outside code fences, replaced, appended
or taken out, with what a person wrote around it kept byte for byte (line ends too)."""

from __future__ import annotations

import re

from git_aide.agents.rules.markdown import BEGIN, END
from git_aide.core.errors import AideError


def spliced(path: str, old: str | None, text: str, needed: bool) -> bytes | None:
    """Return the file with its block replaced (or appended); None: leave the file alone."""
    if old is None:
        return text.encode() if needed else None
    nl = "\r\n" if "\r\n" in old else "\n"
    lines = old.splitlines(keepends=True)
    begin = _find_begin(lines)
    if begin is None:
        if not needed:
            return None
        sep = "" if not old or old.endswith(nl * 2) else nl if old.endswith(nl) else nl * 2
        return (old + sep + text.replace("\n", nl)).encode()
    end = next((j for j in range(begin + 1, len(lines))
                if lines[j].rstrip("\r\n").rstrip() == END), None)
    if end is None:
        raise AideError(f"{path}: the line {BEGIN} has no {END} after it; fix the file by "
                        "hand, then export again")
    if _find_begin(lines[end + 1:]) is not None:
        raise AideError(f"{path} holds more than one git-aide block; keep one (delete the "
                        "others), then export again")
    before, after = lines[:begin], lines[end + 1:]
    if not needed:
        # Nothing left for the agent to read here: the block goes, with the blank line
        # export put before it, and the file is what its author wrote.
        if before and not before[-1].strip() and not after:
            before = before[:-1]
        if not before and not after:
            return b""
        return "".join(before + after).encode()
    new = text.replace("\n", nl)
    if not lines[end].endswith("\n"):
        new = new[: -len(nl)]
    return ("".join(before) + new + "".join(after)).encode()


def _find_begin(lines: list[str]) -> int | None:
    """Return the line of the begin marker, outside code fences (a file may show it as an
    example)."""
    fence = ""
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"^(`{3,}|~{3,})", s)
        if fence:
            if m and s.startswith(fence) and not s.strip(fence[0]):
                fence = ""
        elif m:
            fence = m.group(1)
        elif s == BEGIN:
            return i
    return None


def block_of(text: str) -> str | None:
    """Return the git-aide block of a rules file's text, marker lines included, with "\n"
    line ends; None when it has none, or no end marker."""
    lines = text.splitlines(keepends=True)
    begin = _find_begin(lines)
    if begin is None:
        return None
    end = next((j for j in range(begin + 1, len(lines))
                if lines[j].rstrip("\r\n").rstrip() == END), None)
    if end is None:
        return None
    return "".join(x.rstrip("\r\n") + "\n" for x in lines[begin:end + 1])


def with_block_of(path: str, old: bytes, new: bytes) -> bytes:
    """Return `old` (another version of rules file `path`: the index's, say) with the
    block of `new` in place of its own: what a person wrote around it kept."""
    text = old.decode("utf-8")
    block = block_of(new.decode("utf-8"))
    return spliced(path, text, block or "", block is not None) or old
