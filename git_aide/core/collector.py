"""The cyclic garbage collector paused around work that makes many objects and frees
them by reference counting (or not until the process ends): its passes over them are
pure waste, and one as the work ends walks every object made meanwhile."""

from __future__ import annotations

import gc
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


@contextmanager
def paused(ending: bool = False) -> Iterator[None]:
    """Keep the collector off while the block runs (left off if it was off already).
    `ending`: the process ends soon after (a command's own): what is still alive is
    frozen before the collector runs again, so that its first pass does not walk it
    (0.9 s after a first index of 100,000 memories)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if ending:
                gc.freeze()
            gc.enable()
