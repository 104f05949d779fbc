"""Scope globs: validity, brace expansion, relevance to a query path, depth.

A scope is a gitignore-style glob relative to the repository root. Matching uses
pathspec's gitignore patterns, but pathspec is slow to import, so a scope is compiled
once into a `Compiled` tuple of plain regex sources that the cache keeps; the hot path
then needs only `re`.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: The longest scope accepted.
MAX_SCOPE = 500
_GLOB_CHARS = frozenset("*?[")


class Compiled:
    """What relevance needs to know about one scope, kept in the cache by scope text."""

    __slots__ = ("depth", "bases", "regexes")

    def __init__(self, depth: int, bases: tuple[str, ...], regexes: tuple[str, ...]) -> None:
        #: Scope depth (section 3).
        self.depth = depth
        #: For each brace alternative: its literal leading directory, "" for the root.
        self.bases = bases
        #: For each alternative: a regex source matching paths under it, or "" when the
        #: alternative is a plain path (then `bases` alone decides).
        self.regexes = regexes

    def as_tuple(self) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        """The plain tuple the cache stores."""
        return (self.depth, self.bases, self.regexes)


def normalize(scope: str) -> str:
    """Backslashes read as '/'."""
    return scope.replace("\\", "/")


def is_project_wide(scope: str | None) -> bool:
    """Null and the string "project" mean project-wide."""
    return scope is None or scope == "project"


def check(scope: str) -> str | None:
    """Why a scope is invalid, or None when it is fine."""
    if not scope.strip():
        return "scope is empty"
    if len(scope) > MAX_SCOPE:
        return f"scope is longer than {MAX_SCOPE} characters"
    if "\0" in scope:
        return "scope contains a NUL character"
    s = normalize(scope)
    if s.startswith("/") or re.match(r"^[A-Za-z]:", s):
        return f"scope {scope!r} is absolute; give it relative to the repository root"
    for alt in expand_braces(s):
        if ".." in alt.split("/"):
            return f"scope {scope!r} climbs out of the repository"
    return None


def expand_braces(pattern: str) -> list[str]:
    """`src/*.{ts,tsx}` -> [`src/*.ts`, `src/*.tsx`]; nested braces too; no comma, no split."""
    depth = 0
    start = -1
    for i, ch in enumerate(pattern):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                body = pattern[start + 1 : i]
                parts = _split_top(body)
                if len(parts) > 1:
                    head, tail = pattern[:start], pattern[i + 1 :]
                    out: list[str] = []
                    for part in parts:
                        out.extend(expand_braces(head + part + tail))
                    return list(dict.fromkeys(out))
    return [pattern]


def _split_top(body: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in body:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += ch == "{"
        depth -= ch == "}" and depth > 0
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def _strip_tail(s: str) -> str:
    for tail in ("/**", "/*", "/"):
        if s.endswith(tail):
            return s[: -len(tail)]
    return s


def depth(scope: str) -> int:
    """Segments after dropping a trailing `/**`, `/*` or `/`, not counting `**` segments."""
    s = _strip_tail(normalize(scope).lstrip("/"))
    return sum(1 for seg in s.split("/") if seg and seg != "**")


def compile_scope(scope: str) -> Compiled:
    """Compile a valid scope with pathspec's gitignore patterns (slow import: cache this)."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    bases: list[str] = []
    regexes: list[str] = []
    for alt in expand_braces(normalize(scope)):
        alt = alt.lstrip("/")
        plain = _strip_tail(alt)
        base = _literal_dir(alt)
        if not (_GLOB_CHARS & set(plain)):
            # A plain path (`src/auth/**`, `src/rules`, `docs`) names one place from the
            # root; a prefix test is exact and needs no regex.
            bases.append(plain)
            regexes.append("")
            continue
        bases.append(base)
        pattern = GitIgnoreSpecPattern(alt)
        regexes.append(pattern.regex.pattern if pattern.regex is not None else "(?!)")
    return Compiled(depth(scope), tuple(bases), tuple(regexes))


def _literal_dir(alt: str) -> str:
    """The longest leading run of segments with no glob character, as a directory."""
    segs = alt.split("/")
    out: list[str] = []
    for seg in segs[:-1]:
        if _GLOB_CHARS & set(seg):
            break
        out.append(seg)
    else:
        if "/" not in alt:  # `*.py`, `docs`: gitignore matches a bare name at any depth
            return ""
    return "/".join(out)


@lru_cache(maxsize=4096)
def _rx(source: str) -> re.Pattern[str]:
    return re.compile(source)


def relevant(c: Compiled, path: str, is_dir: bool) -> bool:
    """Whether a scope applies to a repo-relative query path ("" is the root)."""
    for base, source in zip(c.bases, c.regexes, strict=True):
        # A pattern only matches below its literal leading directory: check that first,
        # so that a recall compiles the regexes of a few scopes, not of every scope.
        under = not base or path == base or path.startswith(base + "/")
        if is_dir:
            # P is the directory S names or lies under it (for a glob: S may match
            # something inside P), or S lies inside P (parent inheritance).
            if not path or under or base.startswith(path + "/"):
                return True
        elif under and (not source or _rx(source).match(path)):
            return True
    return False


# -- how specifically a scope targets a query path (section 3's directory rule, section 4)


def _segments_reach(pat: tuple[str, ...], segs: tuple[str, ...]) -> bool:
    """Whether a path starting with `segs` can be matched by the segment globs `pat`
    (a pattern that matches an ancestor directory matches everything under it)."""
    from fnmatch import fnmatchcase

    # Positions (pattern index, path index) still possible: a set, so that no pattern
    # of `**` makes this more than len(pat) * len(segs) steps.
    states = {(0, 0)}
    seen: set[tuple[int, int]] = set()
    while states:
        i, j = states.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(pat) or j == len(segs):
            # The pattern matched an ancestor of the path, or the path ends with
            # pattern left over: some path below it can take the rest.
            if i == len(pat) or all(p for p in pat[i:]):
                return True
            continue
        if pat[i] == "**":
            states.add((i + 1, j))
            states.add((i, j + 1))
        elif fnmatchcase(segs[j], pat[i]):
            states.add((i + 1, j + 1))
    return False


@lru_cache(maxsize=4096)
def _alternatives(scope: str) -> tuple[tuple[str, tuple[str, ...], bool, bool], ...]:
    """(literal base, glob segments, plain?, names files by pattern?) per alternative."""
    out = []
    for alt in expand_braces(normalize(scope)):
        alt = alt.lstrip("/").rstrip("/") if alt.strip("/") else alt
        plain = _strip_tail(alt)
        if not (_GLOB_CHARS & set(plain)):
            out.append((plain, tuple(plain.split("/")) if plain else (), True, False))
            continue
        segs = alt.split("/")
        if len(segs) == 1:  # `*.py`: gitignore matches a bare name at any depth
            segs = ["**", *segs]
        last = segs[-1]
        out.append((_literal_dir(alt), tuple(segs), False, last not in ("*", "**")))
    return tuple(out)


def _count(path: str) -> int:
    return path.count("/") + 1 if path else 0


def reaches(scope: str, directory: str) -> bool:
    """Section 3's directory rule: whether a scope can match some path at or under the
    (repo-relative) directory. `web/tsconfig*.json` reaches `web` but not `web/tests`;
    `src/**/*.gen.ts` reaches every folder under `src`; `src/a/**` reaches `src`."""
    if not directory:
        return True
    segs = tuple(directory.split("/"))
    for base, pat, plain, _narrow in _alternatives(scope):
        if plain:
            if (not base or directory == base or directory.startswith(base + "/")
                    or base.startswith(directory + "/")):
                return True
        elif _segments_reach(pat, segs):
            return True
    return False


#: Distances from this up are a directory's ancestors (section 4: after what lies inside).
ANCESTOR = 10


def distance(scope: str, path: str, is_dir: bool) -> float:
    """How far a relevant scope is from the query path: 0 is the most specific.

    A file: 0 a scope naming the file, 1 its directory, then one more per level up;
    a pattern naming files (`web/*.json`, `src/**/*.gen.ts`) is a quarter of a level
    closer than the whole folder it starts from. A directory: 0 a scope written for
    the directory itself, then one more per level inside it, then from ANCESTOR on its
    ancestors, one more per level up.
    """
    n = _count(path)
    best = float(ANCESTOR + n + 1 if is_dir else n + 1)
    for base, _pat, plain, narrow in _alternatives(scope):
        b = _count(base)
        under = not base or path == base or path.startswith(base + "/")
        if is_dir:
            if path and base.startswith(path + "/"):
                d = float(min(b - n, ANCESTOR - 1))
            elif under and base == path:
                d = 0.0
            elif under:
                d = float(ANCESTOR + n - b)
            else:
                continue
        else:
            if not under:
                continue
            d = 0.0 if plain and base == path else float(n - b)
            if narrow and d:
                d -= 0.25
        best = min(best, d)
    return best
