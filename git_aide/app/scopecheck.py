"""A scope that names no file of the working tree: the warning `remember` and `update`
give, with the nearest scope that does name files (a typo, a folder renamed, a scope
written from a subfolder), so that a memory is not silently scoped to nothing.

A scope for code still to come is allowed (it is only a warning), and each scope is
warned about once per cache handle: an import or `audit --fix` that writes many
memories runs one `git ls-files`.
"""

from __future__ import annotations

from git_aide.core import scope as scopes
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.audit import Paths
    from git_aide.cache.folder import Cache
    from git_aide.gitio.repo import Repo


class _Listed:
    """Hold the working tree's paths as one cache handle (one command, or one MCP call) saw
    them, and the scopes it warned about: an import or `audit --fix` that writes many
    memories runs one `git ls-files` and says each warning once."""

    def __init__(self, paths: Paths) -> None:
        #: The working tree's code paths.
        self.paths = paths
        #: The scopes already warned about.
        self.warned: set[str] = set()


def scope_warnings(repo: Repo, cache: Cache, top: str, scope: str | None) -> list[str]:
    """Return a warning when a new scope matches no file of the working tree, naming the scope
    it was probably meant to be; none for a project-wide memory.

    Only a warning: a scope may name code that is still to be written. The listing is
    what `audit` calls a memory `orphaned` by, so that the two never disagree.
    """
    if scope is None:
        return []
    from git_aide.app import audit

    listed = cache.scope_listing
    if not isinstance(listed, _Listed):
        try:
            listed = cache.scope_listing = _Listed(audit.worktree_paths(repo, top))
        except AideError:
            return []  # a warning that cannot be worked out must not stop the write
    if scope in listed.warned:
        return []
    paths = listed.paths
    c = scopes.compile_scope(scope)
    if paths.matches_any(c) or paths.names_directory(c):
        return []
    listed.warned.add(scope)
    line = f"scope {scope!r} matches no file in the working tree"
    here = _from_here(paths, repo.prefix, scope)
    if here is not None:
        return [f"{line}; did you mean {here!r}? (a scope is relative to the top of the "
                "repository, not to the current folder)"]
    guess, nearest = _nearest(paths, scope)
    if guess is not None:
        return [f"{line}; did you mean {guess!r}?"]
    if nearest:
        return [f"{line}; the nearest existing folder is {nearest + '/'!r}"]
    return [line]


def _from_here(paths: Paths, prefix: str, scope: str) -> str | None:
    """Return the scope read from the current folder (`auth/**` in `src` -> `src/auth/**`), when
    that matches a file: git reads paths from there, a scope reads from the top."""
    base = scopes.escape_path(prefix) if prefix else None
    if not base or not scopes.anchored(scope):
        return None  # `*.py` matches at any depth already
    guess = f"{base}/{scopes.normalize(scope)}"  # before braces: in every alternative
    if scopes.check_new(guess):
        return None
    c = scopes.compile_scope(guess)
    return guess if paths.matches_any(c) or paths.names_directory(c) else None


def _nearest(paths: Paths, scope: str) -> tuple[str | None, str]:
    """Return (the scope with its misspelt leading folder names replaced by the closest
    existing ones, when that matches a file, else None; the deepest existing folder its
    leading names reach, "" for the top)."""
    import difflib

    children: dict[str, dict[str, bool]] = {}

    def names_in(place: str) -> dict[str, bool]:
        """Return the names directly in a folder ("" the top), each with whether it is a folder."""
        got = children.get(place)
        if got is None:
            got = children[place] = {}
            cut = len(place) + 1 if place else 0
            for p in paths.under(place):
                name, sep, _rest = p[cut:].partition("/")
                got[name] = got.get(name, False) or bool(sep)
        return got

    s = scopes.normalize(scope)
    alts = scopes.expand_braces(s)
    moves: list[tuple[str, str] | None] = []  # per alternative: (as written, as it is)
    nearest = ""
    for alt in alts:
        segs = alt.split("/")
        was: list[str] = []
        now: list[str] = []
        changed = 0
        for k, seg in enumerate(segs):
            name = scopes.literal(seg) if seg not in ("", "**") else None
            if name is None:
                break  # the glob part, kept as written
            here = names_in("/".join(now))
            # A segment with more after it is a folder; the last one may name a file.
            if name in here and (here[name] or k == len(segs) - 1):
                found: str | None = name
            else:
                # Only folder names are guessed: a file's name says too little.
                folders_here = [n for n, is_dir in here.items() if is_dir]
                found = next(iter(difflib.get_close_matches(name, folders_here, n=1,
                                                            cutoff=0.6)), None)
            if found is None:
                nearest = max(nearest, "/".join(now), key=len)
                break
            was.append(name)
            now.append(found)
            if found != name:
                changed = len(now)
        moves.append(("/".join(was[:changed]), "/".join(now[:changed])) if changed else None)
    if not any(moves):
        return None, nearest
    first = moves[0]
    guess: str | None = None
    if first is not None and all(m == first for m in moves):
        # Every alternative starts with the same misspelt folder, before any brace:
        # rewritten once, the braces kept as written.
        guess = _replace_prefix(s, *first)
    if guess is None:
        fixed = [alt if m is None else _replace_prefix(alt, *m)
                 for alt, m in zip(alts, moves, strict=True)]
        kept = [f for f in fixed if f is not None]
        guess = scopes.join_alternatives(kept) if len(kept) == len(fixed) else None
    if guess is None or scopes.check_new(guess):
        return None, nearest
    c = scopes.compile_scope(guess)
    if paths.matches_any(c) or paths.names_directory(c):
        return guess, nearest
    return None, nearest


def _replace_prefix(scope: str, old: str, new: str) -> str | None:
    """Return `scope` starting with the existing path `new` instead of `old` (which it spells
    literally, maybe with brackets), the new path's glob characters in brackets."""
    at = scopes.literal_prefix(scope, old)
    base = scopes.escape_path(new)
    if at is None or base is None:
        return None
    # `literal_prefix` points past the '/' after `old`; keep that '/' (`src/auth/`).
    return base + (scope[at - 1:] if at and scope[at - 1] == "/" else scope[at:])
