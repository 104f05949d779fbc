"""The cyclic collector paused around bulk work (core/collector.py): on again after it,
what is alive frozen only for a process that ends with the work."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from git_aide.core import collector


@pytest.fixture(autouse=True)
def collecting() -> Iterator[None]:
    """The collector on and nothing frozen, before and after each test."""
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    gc.enable()


def test_a_long_lived_process_gets_the_collector_back_with_nothing_frozen() -> None:
    with collector.paused():
        assert not gc.isenabled()
        made = [[] for _ in range(100)]
    assert gc.isenabled() and gc.get_freeze_count() == 0 and made


def test_a_process_that_ends_freezes_what_is_alive() -> None:
    with collector.paused(ending=True):
        made = [[] for _ in range(100)]
    assert gc.isenabled() and gc.get_freeze_count() >= 100 and made


def test_a_pause_inside_a_pause_leaves_the_collector_off() -> None:
    with collector.paused():
        with collector.paused(ending=True):
            pass
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_the_collector_comes_back_when_the_work_fails() -> None:
    with pytest.raises(ValueError), collector.paused():
        raise ValueError("the work failed")
    assert gc.isenabled()
