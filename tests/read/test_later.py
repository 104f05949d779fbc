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

    job = later.Later(steps)
    later.want(job)
    later.make_wanted(pause)
    assert inside == [True, True, True] and job.done and not later.WANTED


def test_a_job_whose_step_fails_is_not_asked_for_again() -> None:
    made: list[int] = []

    def steps() -> Iterator[None]:
        made.append(1)
        yield
        raise OSError("the blob is gone")

    broken = later.Later(steps)
    fine = later.Later(lambda: iter([None]))
    later.want(fine)
    later.want(broken)
    later.make_wanted(contextmanager(lambda: iter([None])))
    assert fine.done and not broken.done and not later.WANTED
    later.want(broken)  # a later call asks again: it is not started again
    assert not later.WANTED
    later.make_wanted(contextmanager(lambda: iter([None])))
    assert made == [1]
