"""Globs as regexes that cannot backtrack, and brace expansion, for core/scope.py.

A scope's glob is written as a regex here, with gitignore's meaning (as pathspec reads
it, which the tests check), so that matching is linear in the path: each run of a glob
between two stars, and each run of segments between two `**`, is matched at its
leftmost place and kept there (an atomic lookahead), which is always right for a glob.
Braces are counted before they are expanded, so a hostile scope costs nothing.
"""

from __future__ import annotations

import re

#: The most alternatives a scope may expand to (docs/memory-file.md).
MAX_ALTERNATIVES = 64
#: The characters that make a segment a glob rather than one name.
GLOB_CHARS = frozenset("*?[")


def count_alternatives(pattern: str, cap: int = MAX_ALTERNATIVES + 1) -> int:
    """Count the alternatives `expand_braces` would make (before removing repeats),
    without making them; any count above `cap` is reported as `cap`."""
    group = first_group(pattern)
    if group is None:
        return 1
    _start, parts, tail = group
    total = 0
    for part in parts:
        total = min(cap, total + count_alternatives(part, cap))
    return min(cap, total * count_alternatives(tail, cap))


def first_group(pattern: str) -> tuple[int, list[str], str] | None:
    """Find the first top-level brace group that has a comma: (its start, its parts, what
    follows it); None when there is none (braces without a comma are literal, and so
    are braces and commas in a bracket expression)."""
    depth = 0
    start = -1
    i = -1
    while i + 1 < len(pattern):
        i += 1
        ch = pattern[i]
        if ch == "[":
            i = max(i, class_end(pattern, i))
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                parts = _split_top(pattern[start + 1 : i])
                if len(parts) > 1:
                    return start, parts, pattern[i + 1 :]
    return None


def expand_braces(pattern: str) -> list[str]:
    """Expand braces: `src/*.{ts,tsx}` -> [`src/*.ts`, `src/*.tsx`], nested ones too;
    braces without a comma are not split.

    Only for valid scopes (`check` counts the alternatives first).
    """
    group = first_group(pattern)
    if group is None:
        return [pattern]
    start, parts, tail = group
    head = pattern[:start]
    out: list[str] = []
    for part in parts:
        out.extend(expand_braces(head + part + tail))
    return list(dict.fromkeys(out))


def _split_top(body: str) -> list[str]:
    parts, depth, cur = [], 0, []
    i = -1
    while i + 1 < len(body):
        i += 1
        ch = body[i]
        if ch == "[":
            end = class_end(body, i)
            if end > 0:
                cur.append(body[i : end + 1])
                i = end
                continue
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += ch == "{"
        depth -= ch == "}" and depth > 0
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def glob_regex(glob: str) -> str:
    """Return the regex source (for `re.match`) of one gitignore-style glob without braces:
    it matches a path the glob names and every path under it, and cannot backtrack
    more than once over any part of the path."""
    counter = [0]
    dir_only = glob.endswith("/")
    segs = [seg for seg in glob.split("/") if seg]
    if not segs:
        return "(?!)"
    if len(segs) == 1 and not dir_only and segs[0] in ("*", "**"):
        return "."  # everything
    if len(segs) == 1:
        segs = ["**", *segs]  # a bare name matches at any depth
    tail = "(?:/|$)"
    if dir_only:
        tail = "/"
    elif segs[-1] == "**":
        segs.pop()
        tail = "/"
    # Runs of segments between `**`: the first is anchored at the root, each later one
    # is found at its leftmost place after the previous one.
    runs: list[list[str]] = [[]]
    for seg in segs:
        if seg == "**":
            if runs[-1] or len(runs) == 1:
                runs.append([])
            continue
        runs[-1].append(seg)
    if not runs[-1] and len(runs) > 1:
        runs.pop()  # `a/**/**` and the like: the tail already says "under"
        tail = "/"
    out = ["^"]
    for i, run in enumerate(runs):
        body = "/".join(_segment_regex(seg, counter) for seg in run)
        if i == 0:
            out.append(body)
            continue
        sep = "/" if i > 1 or runs[0] else ""  # a leading `**` needs no slash before it
        out.append(sep + _atomic(f"(?:[^/]+/)*?{body}", counter))
    return "".join(out) + tail


def _atomic(source: str, counter: list[int]) -> str:
    """Wrap `source` so that it matches once, at its first place, and is never retried
    (Python 3.10 has no atomic groups: a lookahead is atomic, and a back-reference then
    takes what it saw)."""
    counter[0] += 1
    n = counter[0]
    return f"(?=(?P<a{n}>{source}))(?P=a{n})"


def _segment_regex(seg: str, counter: list[int]) -> str:
    """Return the regex of one path segment's glob, matched whole and without backtracking."""
    if seg.strip("*") == "":
        return "[^/]+"
    chunks = [_chunk_regex(c) for c in _split_stars(seg)]
    if len(chunks) == 1:
        return chunks[0] + "(?=/|$)"
    first, middle, last = chunks[0], chunks[1:-1], chunks[-1]
    parts = [first]
    # Between stars, the leftmost place of each chunk is as good as any later one.
    parts.extend(_atomic(f"[^/]*?{c}", counter) for c in middle if c)
    parts.append(f"[^/]*{last}(?=/|$)")
    return "".join(parts)


def class_end(glob: str, i: int) -> int:
    """Find where the bracket expression opened at `glob[i]` (a `[`) closes, or -1 when that
    `[` is a literal character (nothing closes it within its segment)."""
    j = i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1
    # The first character of the set may be `]`: `[]]` is the set of `]`.
    end = glob.find("]", j + 1)
    if end < 0 or glob.find("/", i, end) >= 0:
        return -1
    return end


def _split_stars(seg: str) -> list[str]:
    """Cut a segment's glob at its runs of stars (a star in brackets is a character)."""
    chunks: list[str] = []
    start = i = 0
    while i < len(seg):
        ch = seg[i]
        if ch == "[":
            i = max(i, class_end(seg, i)) + 1
        elif ch == "*":
            chunks.append(seg[start:i])
            while i < len(seg) and seg[i] == "*":
                i += 1
            start = i
        else:
            i += 1
    chunks.append(seg[start:])
    return chunks


def _chunk_regex(chunk: str) -> str:
    """Return the regex of a glob without stars: literal characters, `?` and `[...]` classes."""
    out: list[str] = []
    i = 0
    while i < len(chunk):
        ch = chunk[i]
        end = class_end(chunk, i) if ch == "[" else -1
        if ch == "?":
            out.append("[^/]")
        elif end > 0:
            out.append(_class_regex(chunk[i + 1 : end]))
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _class_regex(body: str) -> str:
    """Return a bracket expression's regex: its members escaped (so that `[[]` or `[&&]` is no
    regex set syntax), ranges kept, and, as in git, never a `/`."""
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    parts: list[str] = []
    slash = False
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            lo, hi = body[i], body[i + 2]
            if lo <= hi:  # a reversed range is empty, as in git
                parts.append(f"{re.escape(lo)}-{re.escape(hi)}")
                slash = slash or lo <= "/" <= hi
            i += 3
        else:
            parts.append(re.escape(body[i]))
            i += 1
    if negated:
        return "[^" + "".join(parts) + "/]"
    if not parts:
        return "(?!)"
    return ("(?!/)" if slash else "") + "[" + "".join(parts) + "]"


def literal_segment(seg: str) -> str | None:
    """Return the one name a segment's glob matches, or None when it matches more than one
    (it has a star, a `?` or a bracket expression of more than one character)."""
    if not (GLOB_CHARS & set(seg)):
        return seg
    out: list[str] = []
    i = 0
    while i < len(seg):
        ch = seg[i]
        if ch in "*?":
            return None
        if ch == "[":
            end = class_end(seg, i)
            if end > 0:
                body = seg[i + 1 : end]
                if len(body) != 1 or body in "!^":
                    return None
                ch = body
                i = end
        out.append(ch)
        i += 1
    return "".join(out)


def literal_glob(glob: str) -> str | None:
    """Return the one path a glob without braces names, or None when it names more than one."""
    out: list[str] = []
    for seg in glob.split("/"):
        name = literal_segment(seg)
        if name is None:
            return None
        out.append(name)
    return "/".join(out)
