"""A worker thread is kept off the core of the thread that hands it work (core/cores.py)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from git_aide.core.cores import here, keep_off

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="thread affinity is Linux's")


def _worker() -> tuple[int, threading.Event, threading.Thread]:
    """Start a thread that waits until told; return its native id, the event, the thread."""
    ready, done = threading.Event(), threading.Event()
    ident: list[int] = []

    def run() -> None:
        ident.append(threading.get_native_id())
        ready.set()
        done.wait(30)

    t = threading.Thread(target=run)
    t.start()
    ready.wait(30)
    return ident[0], done, t


def test_the_core_a_thread_runs_on_is_one_it_may_use() -> None:
    assert here() in os.sched_getaffinity(0)


def test_a_worker_may_run_on_every_core_but_the_callers() -> None:
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        pytest.skip("one core")
    tid, done, t = _worker()
    try:
        off = keep_off(tid, None)
        assert off in allowed
        got = os.sched_getaffinity(tid)
        assert off not in got and got == allowed - {off}
        # Asked again from the same core, nothing changes.
        assert keep_off(tid, off) == off or here() != off
    finally:
        done.set()
        t.join()


def test_with_one_core_or_no_thread_nothing_is_changed() -> None:
    tid, done, t = _worker()
    mine = os.sched_getaffinity(0)
    try:
        assert keep_off(None, 3) == 3
        core = here()
        assert core is not None
        os.sched_setaffinity(0, {core})
        assert keep_off(tid, None) is None
        assert os.sched_getaffinity(tid) == mine
    finally:
        os.sched_setaffinity(0, mine)
        done.set()
        t.join()


def test_a_thread_that_is_gone_is_passed_over() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core")
    with open("/proc/sys/kernel/pid_max") as f:
        gone = int(f.read()) + 1  # no thread has an id beyond it
    assert keep_off(gone, None) is None
