"""What the warm server does once its calls leave it a quiet spell (warm/state.py's idle):
count the answers given, and write the documents the calls left pending into the
full-text index. Best effort: a count lost is no failure, and a document not written is
written by the next process that needs it. And how its work between calls spares it the
cyclic garbage collector (collected_after)."""

from __future__ import annotations

from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from threading import Lock

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


@contextmanager
def collected_after(lock: Lock) -> Iterator[None]:
    """Keep the cyclic garbage collector off while the work between calls runs, and collect
    once at its end, under `lock` (between calls). That work grows the heap (a view
    decoded, its features, its candidates: most of it kept), and each collection the
    growth set off walked all of it: four at 10,000 memories, 36 to 170 ms each, as
    pauses of a step a call waited for, or inside a call. The calls meanwhile run
    without it too (answers.py's _paused leaves it off)."""
    import gc

    with lock:
        collecting = gc.isenabled()
        gc.disable()
    try:
        yield
    finally:
        with lock:
            if collecting:
                gc.enable()
                gc.collect()
