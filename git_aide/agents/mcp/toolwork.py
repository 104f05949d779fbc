"""What the MCP tools' work shares: the answer a tool gives (its structured content and
its text), the budget of characters it fits in, and the memory an id names."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    #: What a tool's work gives: its structured content and its text.
    Answer = tuple[JSONObject, str]


def find(snap: Snapshot, ident: str | int) -> Entry:
    """Return the memory an id names: a uuid or unique prefix, or aide-memory's integer `id`
    (app/store.py's find, as the commands)."""
    from git_aide.app.store import find as find_entry

    return find_entry(snap.entries, ident)


def budget(repo: Repo) -> int:
    """Return the characters one answer may hold (git config aide.mcp.maxChars)."""
    return repo.settings.mcp_max_chars


def asks_full(a: JSONObject) -> bool:
    """Tell whether a read tool's call asks for whole records: `detail: "full"`, or, left
    out, an aide_recall by ids (the memories an agent names, to see them whole)."""
    detail = a.get("detail")
    return detail == "full" if detail is not None else bool(a.get("ids"))
