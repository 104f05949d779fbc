"""What the warm server does once its calls leave it a quiet spell (warm/state.py's idle):
count the answers given, and write the documents the calls left pending into the
full-text index. Best effort: a count lost is no failure, and a document not written is
written by the next process that needs it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.cache.folder import Cache
    from git_aide.cache.index import FullText

    #: An answer given and not counted yet: (cache, kind, the memories given, when).
    Uncounted = tuple[Cache, str, list[str], float]


def idle_work(todo: list[Uncounted], index: FullText | None) -> bool:
    """Add the answers in `todo` to the per-machine counts, in one write per cache (a burst
    of recalls is one line each, appended at once), and write `index`'s pending
    documents; whether another process held the index (to try again later, never
    waiting for it while a call may be waiting)."""
    from git_aide.app.stats import count_all
    from git_aide.core.files import LockBusy

    while todo:
        cache = todo[0][0]
        mine = [(kind, uuids, when) for c, kind, uuids, when in todo if c is cache]
        todo = [t for t in todo if t[0] is not cache]
        try:
            count_all(cache, "mcp", mine)
        except Exception:  # noqa: BLE001,S110 -- the stats are best effort
            pass
    if index is None:
        return False
    try:
        index.write_pending()
    except LockBusy:
        return True
    except Exception:  # noqa: BLE001,S110 -- the index is a cache
        pass
    return False
