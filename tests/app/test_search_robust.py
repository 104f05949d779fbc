"""Work on the full-text index outlives an index taken away under it again and again
(app/search.robust): rebuilt on disk a few times, then kept in memory for the command,
which answers and says so."""

from __future__ import annotations

import shutil
from pathlib import Path

from git_aide.app import search as sr
from git_aide.cache.index import FullText
from git_aide.core import memory


def test_an_index_removed_again_and_again_answers_from_memory(tmp_path: Path) -> None:
    ft = FullText(str(tmp_path))
    record = memory.new("alpha rollouts wait for the canary", layer="technical",
                        contributor="Ada Tester")
    blob = "ab" * 20
    tries: list[bool] = []

    def work() -> dict[str, float]:
        tries.append(ft.in_memory)
        ft.add([(blob, record)])
        if not ft.in_memory:
            # Another process's `rm -rf .git/aide` in the middle of every try on disk
            # (the 40-writer stress test's wiper did it three times running, once): the
            # index this try opened is gone.
            shutil.rmtree(ft.root)
            raise FileNotFoundError(ft.root)
        return ft.search("alpha", {blob}, 5)

    got = sr.robust(ft, work)
    assert blob in got
    assert tries == [False] * sr.ATTEMPTS + [True]
    assert any("index in memory" in n for n in ft.notices)
