"""Ids: which memory an id names, for every command, the history and the MCP server.

A memory is named by its uuid, by a unique prefix of it of at least 4 characters, or
(for aide-memory's clients, through the MCP server) by the integer `id` aide-memory gave
it. One resolver, so that every front end accepts the same ids and says the same thing
about an unknown or ambiguous one.
"""

from __future__ import annotations

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: The shortest uuid prefix that names a memory.
MIN_PREFIX = 4


def resolve(ident: str | int, uuids: Iterable[str],
            number: Callable[[int], str | None] | None = None, where: str = "") -> str:
    """Return the one uuid among `uuids` that `ident` names; raise an error saying why if none.

    `number`: the uuid of the memory with aide-memory's integer id, if any, when such
    ids are accepted. A string of fewer than 12 digits is tried as one first; a uuid
    prefix can be all digits too, so one of at least 4 is then tried as a prefix.
    `where`: what was searched, for the error (" in the history walked").
    """
    text = str(ident).strip()
    if number is not None and (isinstance(ident, int) or (text.isdigit() and len(text) < 12)):
        found = number(int(text))
        if found is not None:
            return found
        if isinstance(ident, int) or len(text) < MIN_PREFIX:
            raise AideError(f"no memory with id {ident!r}{where}")
    key = text.lower()
    if len(key) < MIN_PREFIX:
        raise AideError(f"id {ident!r} is too short: give at least {MIN_PREFIX} characters "
                        "of the uuid")
    hits = []
    for uuid in uuids:
        if uuid == key:
            return uuid
        if uuid.startswith(key):
            hits.append(uuid)
    if not hits:
        raise AideError(f"no memory with id {ident!r}{where}")
    if len(hits) > 1:
        raise AideError(f"id {ident!r} is ambiguous: it matches {', '.join(sorted(hits))}")
    return hits[0]
