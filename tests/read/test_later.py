"""The work a long-lived process does between its calls (read/later.py): made step by
step inside what `pause()` gives, and a job whose step fails is dropped for good (the
calls do that work themselves), not started again after every call."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from git_aide.read import later


def test_each_step_is_made_inside_the_pause_and_the_job_is_done() -> None:
    inside: list[bool] = []
    held = [False]

    @contextmanager
    def pause() -> Iterator[None]:
        held[0] = True
        yield
        held[0] = False

    def steps() -> Iterator[None]:
        for _ in range(3):
            inside.append(held[0])
            yield

    queue = later.Queue()
    job = later.Later(steps)
    queue.want(job)
    queue.make_wanted(pause)
    assert inside == [True, True, True] and job.done and not queue.wanted


def test_a_job_whose_step_fails_is_not_asked_for_again() -> None:
    made: list[int] = []

    def steps() -> Iterator[None]:
        made.append(1)
        yield
        raise OSError("the blob is gone")

    queue = later.Queue()
    broken = later.Later(steps)
    fine = later.Later(lambda: iter([None]))
    queue.want(fine)
    queue.want(broken)
    queue.make_wanted(contextmanager(lambda: iter([None])))
    assert fine.done and not broken.done and not queue.wanted
    queue.want(broken)  # a later call asks again: it is not started again
    assert not queue.wanted
    queue.make_wanted(contextmanager(lambda: iter([None])))
    assert made == [1]


def test_each_queue_is_its_own() -> None:
    """Two long-lived processes' queues (two servers in one test process, say) share
    nothing: a job asked of one is not made by the other."""
    one, other = later.Queue(), later.Queue()
    job = later.Later(lambda: iter([None]))
    one.want(job)
    other.make_wanted(contextmanager(lambda: iter([None])))
    assert one.wanted == [job] and not job.done
