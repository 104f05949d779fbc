"""What answering works out and keeps between calls, owned by whoever answers: a command
makes none (each use case makes a fresh one for its one answer); a long-lived process
(the MCP server, warm/state.py) makes one and passes it to every call."""

from __future__ import annotations

from git_aide.rank.memo import RankMemo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.answers import ScopeFilter
    from git_aide.app.columns import Columns


class AnswerMemo:
    """Hold what ranking keeps (RankMemo), the scope filters of recent recalls and the
    last view's columns."""

    __slots__ = ("rank", "filters", "columns")

    def __init__(self) -> None:
        #: Word sets, supersession candidates, mentions (rank/memo.py).
        self.rank = RankMemo()
        #: The scope filters of the query paths asked about lately, each with how many
        #: recalls it served, by (query paths, least depth) (answers._scope_filter): a
        #: long-lived process asks about the same files again, over the same scopes,
        #: and need not decide each scope again.
        self.filters: dict[tuple[object, ...], tuple[ScopeFilter, int]] = {}
        #: The last decoded view as columns (app/columns.py), once made.
        self.columns: Columns | None = None
