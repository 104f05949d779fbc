"""Scope globs: validity, brace expansion, relevance to a query path, depth.

A scope is a gitignore-style glob relative to the repository root. It is compiled once
into a `Compiled` tuple of plain regex sources that the cache keeps; the hot path then
needs only `re`. The regexes are written here (with gitignore's meaning, as pathspec
reads it) so that they cannot backtrack: each run of a glob between two stars, and each
run of segments between two `**`, is matched at its leftmost place and kept there (an
atomic lookahead), which is always right for a glob and makes a match linear in the
path. A scope's brace alternatives are counted before they are built (at most 64).

A bracket expression is one character, as in gitignore: `[*]`, `[?]`, `[[]`, `[{]` and
`[,]` are how a scope names a path holding those characters (a backslash cannot escape,
it reads as `/`), and a glob that names one path (`src/a[*]/**`) is that plain path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from git_aide.core.glob import (
    MAX_ALTERNATIVES,
    class_end,
    count_alternatives,
    expand_braces,
    first_group,
    glob_regex,
    literal_glob,
    literal_segment,
)

#: The longest scope accepted.
MAX_SCOPE = 500
#: Characters a path shows in a scope as a one-character bracket expression: the glob
#: characters, and the braces and comma that would start or split alternatives.
_SPECIAL = frozenset("*?[{},")


class Compiled:
    """Hold what relevance needs to know about one scope, kept in the cache by scope text."""

    __slots__ = ("depth", "bases", "regexes")

    def __init__(self, depth: int, bases: tuple[str, ...], regexes: tuple[str, ...]) -> None:
        #: Scope depth: its segments, not counting `**` and a trailing `/**` or `/*`.
        self.depth = depth
        #: For each brace alternative: its literal leading directory, "" for the root.
        self.bases = bases
        #: For each alternative: a regex source matching paths under it, or "" when the
        #: alternative is a plain path (then `bases` alone decides).
        self.regexes = regexes

    def as_tuple(self) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        """Return the plain tuple the cache stores."""
        return (self.depth, self.bases, self.regexes)


def normalize(scope: str) -> str:
    """Read backslashes as '/'."""
    return scope.replace("\\", "/")


def is_project_wide(scope: str | None) -> bool:
    """Tell whether a scope is project-wide: null or the string "project"."""
    return scope is None or scope == "project"


@lru_cache(maxsize=4096)  # many memories share a scope; a search may show thousands
def check(scope: str) -> str | None:
    """Say why a scope is invalid, or None when it is fine."""
    if not scope.strip():
        return "scope is empty"
    if len(scope) > MAX_SCOPE:
        return f"scope is longer than {MAX_SCOPE} characters"
    if "\0" in scope:
        return "scope contains a NUL character"
    s = normalize(scope)
    if s.startswith("/") or re.match(r"^[A-Za-z]:", s):
        return f"scope {scope!r} is absolute; give it relative to the repository root"
    if count_alternatives(s) > MAX_ALTERNATIVES:
        return (f"scope {_short(scope)!r} expands to more than {MAX_ALTERNATIVES} "
                "alternatives; write fewer braces")
    for alt in expand_braces(s):
        if ".." in alt.split("/"):
            return f"scope {scope!r} climbs out of the repository"
    return None


def check_new(scope: str) -> str | None:
    """Say why a scope a writing command was given is refused, or None when it is fine.

    `check`, and then what a reader would misread: a `[` no `]` closes (git matches
    nothing, git-aide would read a literal `[`), a brace that does not pair, an empty
    alternative or path segment, a `.` segment. Scopes already stored are held to
    `check` only, so that a memory written before stays readable.
    """
    message = check(scope)
    if message:
        return message
    s = normalize(scope)
    shown = _short(scope)
    opened: list[int] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "[":
            end = class_end(s, i)
            if end < 0:
                return (f"scope {shown!r}: the '[' at character {i + 1} is not closed by a "
                        "']' in its segment; write '[[]' for a literal '['")
            i = end  # braces and commas in a bracket expression are characters
        elif ch == "{":
            opened.append(i)
        elif ch == "}":
            if not opened:
                return (f"scope {shown!r}: the '}}' at character {i + 1} closes no '{{'; "
                        "write '[}]' for a literal '}'")
            opened.pop()
        i += 1
    if opened:
        return (f"scope {shown!r}: the '{{' at character {opened[-1] + 1} is not closed by "
                "a '}'; write '[{]' for a literal '{'")
    for alt in expand_braces(s):
        segs = alt.split("/")
        if not alt:
            return (f"scope {shown!r} has an empty alternative, which would make it "
                    "project-wide; remove the extra ','")
        if "" in segs[:-1]:
            where = "" if alt == s else f" (in {alt!r})"
            return (f"scope {shown!r} has an empty path segment{where}; remove the extra "
                    "'/' or the empty alternative")
        if segs[0] == ".":
            fix = ("give 'project' for the whole repository" if not alt.strip("./")
                   else "write it from there, without './'")
            return (f"scope {shown!r} starts with '.': a scope is read from the top of the "
                    f"repository, not from the current folder; {fix}")
        if "." in segs:
            plain = "/".join(seg for seg in segs if seg != ".")
            fix = f"write {plain!r}" if alt == s else "remove it"
            return f"scope {shown!r} has a '.' segment, which matches no path; {fix}"
    return None


def _short(scope: str) -> str:
    return scope if len(scope) <= 60 else scope[:57] + "..."


def _strip_tail(s: str) -> str:
    for tail in ("/**", "/*", "/"):
        if s.endswith(tail):
            return s[: -len(tail)]
    return s


def depth(scope: str) -> int:
    """Count the segments, `**` ones aside, after dropping a trailing `/**`, `/*` or `/`."""
    s = _strip_tail(normalize(scope).lstrip("/"))
    return sum(1 for seg in s.split("/") if seg and seg != "**")


def compile_scope(scope: str) -> Compiled:
    """Compile a valid scope: per alternative, its literal base and a linear regex."""
    bases: list[str] = []
    regexes: list[str] = []
    for alt in expand_braces(normalize(scope)):
        alt = alt.lstrip("/")
        plain = literal_glob(_strip_tail(alt))
        if plain is not None:
            # A plain path (`src/auth/**`, `src/rules`, `docs`, `src/a[*]`) names one
            # place from the root; a prefix test is exact and needs no regex.
            bases.append(plain)
            regexes.append("")
            continue
        bases.append(_literal_dir(alt))
        regexes.append(glob_regex(alt))
    return Compiled(depth(scope), tuple(bases), tuple(regexes))


def literal(scope: str) -> str | None:
    """Return the one path a scope names (`src/a[*]` names `src/a*`), or None when it is a glob
    or has alternatives."""
    s = normalize(scope)
    return None if first_group(s) is not None else literal_glob(s)


def literal_prefix(scope: str, place: str) -> int | None:
    """Return where in `scope` the rest begins when it starts with the path `place` spelt
    literally, as whole segments (`src/a[*]/**` and `src/a*` -> 8), else None."""
    if not place:
        return 0
    s = normalize(scope)
    group = first_group(s)
    stop = len(s) if group is None else group[0]  # alternatives start where braces do
    want = place.split("/")
    at = 0
    for name in want:
        end = s.find("/", at)
        end = len(s) if end < 0 else end
        if end > stop or literal_segment(s[at:end]) != name:
            return None
        at = end + 1
    return min(at, len(s))


def escape_path(path: str) -> str | None:
    """Make a scope naming exactly the repo-relative `path` (`src/a*` -> `src/a[*]`), its
    glob, brace and comma characters in brackets; None when no scope can name it (a
    backslash reads as `/`)."""
    if "\\" in path:
        return None
    if not (_SPECIAL & set(path)):
        return path
    return "".join(f"[{ch}]" if ch in _SPECIAL else ch for ch in path)


def join_alternatives(alternatives: list[str]) -> str:
    """Join globs without braces as one scope `{a,b}`, the commas they hold put in
    brackets so that they stay characters."""
    parts = []
    for alt in alternatives:
        out: list[str] = []
        i = 0
        while i < len(alt):
            end = class_end(alt, i) if alt[i] == "[" else -1
            if end > 0:
                out.append(alt[i : end + 1])
                i = end + 1
                continue
            out.append("[,]" if alt[i] == "," else alt[i])
            i += 1
        parts.append("".join(out))
    return "{" + ",".join(dict.fromkeys(parts)) + "}" if len(parts) > 1 else parts[0]


def anchored(scope: str) -> bool:
    """Tell whether every alternative of a scope starts from the top folder: not a lone
    glob segment (`*.py`, `a[!b]`), which gitignore matches at any depth, nor `**/...`."""
    for alt in expand_braces(normalize(scope)):
        segs = [seg for seg in alt.split("/") if seg]
        if not segs or segs[0] == "**" or (
                len(segs) == 1 and literal_segment(segs[0]) is None):
            return False
    return True


def _literal_dir(alt: str) -> str:
    """Return the longest leading run of segments that name one folder each, as a directory."""
    segs = alt.split("/")
    out: list[str] = []
    for seg in segs[:-1]:
        name = literal_segment(seg)
        if name is None:
            break
        out.append(name)
    else:
        if "/" not in alt:  # `*.py`, `docs`: gitignore matches a bare name at any depth
            return ""
    return "/".join(out)


@lru_cache(maxsize=4096)
def _rx(source: str) -> re.Pattern[str]:
    return re.compile(source)


def ahead(scopes: Iterable[Compiled | None], step: int = 16) -> Iterator[None]:
    """Compile the patterns of `scopes` as a recall would the first time it weighs them
    (about 0.1 ms each), `step` scopes a step: a long-lived process does it between its
    calls, so that its first recall of a folder compiles none."""
    for i, c in enumerate(scopes, 1):
        if c is not None:
            for source in c.regexes:
                if source:
                    _rx(source)
        if i % step == 0:
            yield


def relevant(c: Compiled, path: str, is_dir: bool) -> bool:
    """Tell whether a scope applies to a repo-relative query path ("" is the root)."""
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


# -- how specifically a scope targets a query path (the directory rule)


def _segments_reach(pat: tuple[str, ...], segs: tuple[str, ...]) -> bool:
    """Tell whether a path starting with `segs` can be matched by the segment globs `pat`
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
    """Return (literal base, glob segments, plain?, names files by pattern?) per alternative."""
    out = []
    for alt in expand_braces(normalize(scope)):
        alt = alt.lstrip("/").rstrip("/") if alt.strip("/") else alt
        plain = literal_glob(_strip_tail(alt))
        if plain is not None:
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
    """Return whether a scope can match some path at or under the
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


#: Distances from this up are a directory's ancestors (ranked after what lies inside).
ANCESTOR = 10


def distance(scope: str, path: str, is_dir: bool) -> float:
    """Measure how far a relevant scope is from the query path: 0 is the most specific.

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


# -- which memories lie at or under a place (list --scope, aide_memories' scope) -----------


def under(place: str) -> Callable[[str | None], bool]:
    """Make the test `list --scope PLACE` (and the MCP tool aide_memories' `scope`) puts to
    a memory's scope: kept when it is PLACE itself, or when one of its alternatives
    names a path or folder at or under a place PLACE names (`src/auth` and `src/auth/**`
    keep `src/auth/**`, `src/auth/login.py` and `src/auth/*.ts`, not `src/**`; a glob
    keeps what lies under what it matches: `src/*/api` keeps `src/web/api/**`). A glob
    scope is placed at its literal folders (`src/**/*.py` lies in `src`). `project`
    keeps the project-wide memories only. PLACE must be valid (`check`)."""
    wanted = normalize(place).strip()
    if is_project_wide(wanted):
        return is_project_wide
    same = wanted.rstrip("/")
    tests: list[tuple[str, re.Pattern[str] | None]] = []
    for alt in expand_braces(wanted):
        alt = _strip_tail(alt.lstrip("/"))
        plain = literal_glob(alt)
        tests.append((plain, None) if plain is not None
                     else (_literal_dir(alt), _rx(glob_regex(alt))))

    def at_or_under(path: str) -> bool:
        for base, rx in tests:
            if (not base or path == base or path.startswith(base + "/")) and (
                    rx is None or rx.match(path)):
                return True
        return False

    def keep(scope: str | None) -> bool:
        if is_project_wide(scope):
            return False
        assert scope is not None
        if normalize(scope).rstrip("/") == same:
            return True
        return any(base and at_or_under(base) for base, _pat, _plain, _narrow
                   in _alternatives(scope))

    return keep
