"""Where in the code a memory is about: its scope's place (the folder the scope names)
and its area (that place cut to its first two folders), for `audit`'s summary and
`map`.

A place is read from the scope's literal leading folders, with no listing of the
code: `src/auth/**`, `src/auth/*.ts` and `src/auth/login.ts` are all about
`src/auth`; `{src/a,src/b}/**` is about `src`; `**/*.go` and a project-wide memory
are about the top folder ("").
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from git_aide.core.scope import Compiled

#: How many leading folders an area keeps (`packages/web` of `packages/web/forms/**`).
AREA_DEPTH = 2


def place(c: Compiled | None, files: Collection[str] = ()) -> str:
    """Return the folder a scope is about: the leading folders its alternatives share ("" is
    the top folder, and a project-wide memory's place); a plain scope naming one of
    `files` (a file, not a folder) gives the file's folder."""
    if c is None:
        return ""
    bases = []
    for base, rx in zip(c.bases, c.regexes, strict=True):
        if not rx and base in files:
            base = base.rpartition("/")[0]
        bases.append(base)
    first = bases[0].split("/") if bases[0] else []
    for other in bases[1:]:
        segs = other.split("/") if other else []
        n = 0
        while n < min(len(first), len(segs)) and first[n] == segs[n]:
            n += 1
        first = first[:n]
    return "/".join(first)


def area(folder: str, depth: int = AREA_DEPTH) -> str:
    """Cut a folder to its first `depth` folders (`packages/web/forms` -> `packages/web`)."""
    return "/".join(folder.split("/")[:depth]) if folder else ""


def shown(folder: str) -> str:
    """Show a folder as a person reads it: `src/auth/`, and `./` for the top folder."""
    return f"{folder}/" if folder else "./"
