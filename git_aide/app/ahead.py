"""What a long-lived process embeds ahead of a call's search by meaning (`Ahead`), on a
worker thread kept off the caller's core while the call searches by words: the
question, weighed against every stored vector. The call then takes what the worker
made, or, when it failed, works it out itself (app/semantic.py).

Linux wakes a thread on the core of the thread that woke it (core/cores.py): without
being kept off it, the worker ran on the caller's core and the call waited for it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any

    import numpy as np

    Embed = Callable[[list[str]], Any]


class Ahead:
    """Hold the worker thread and what it was asked to embed, for one model."""

    def __init__(self, embed: Embed) -> None:
        """`embed`: the model's run, texts in, one unit vector per text out."""
        self._embed = embed
        #: The worker's pool (made on the first ask), its thread's native id (once it
        #: ran), and the core it is kept off (core/cores.keep_off).
        self._pool: ThreadPoolExecutor | None = None
        self._thread: int | None = None
        self._off: int | None = None
        #: The question asked: (its text, the matrix it is weighed against, the future of
        #: (its vector, its cosine to each row of that matrix)).
        self._question: tuple[str, Any, Future[Any]] | None = None

    def question(self, text: str, matrix: np.ndarray | None) -> None:
        """Start embedding a question and weighing it against each row of `matrix` (None:
        no vector stored yet), unless it is the question asked already."""
        if self._question is None or self._question[0] != text:
            self._question = (text, matrix, self._submit(self.weigh, text, matrix))

    def take_question(self, text: str) -> tuple[np.ndarray, Any, Any] | None:
        """Return what was made of this question: (its vector, the matrix it was weighed
        against, the cosines); None when it was not asked or the worker failed."""
        got = self._question
        if got is None or got[0] != text:
            return None
        self._question = None
        try:
            q, sims = got[2].result()
        except Exception:  # noqa: BLE001 -- the caller embeds the text itself and says why
            return None
        return q, got[1], sims

    def weigh(self, text: str, matrix: np.ndarray | None) -> tuple[np.ndarray, Any]:
        """Return the vector of `text` and its cosine to each row of `matrix` (None without)."""
        q = self._embed([text])[0]
        return q, None if matrix is None else matrix @ q

    def _submit(self, fn: Callable[..., Any], *args: object) -> Future[Any]:
        """Run fn(*args) on the worker thread, kept off this thread's core."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="git-aide-ahead",
                                            initializer=self._started)
        else:
            from git_aide.core.cores import keep_off

            self._off = keep_off(self._thread, self._off)
        return self._pool.submit(fn, *args)

    def _started(self) -> None:
        """Note the worker thread's native id (run on it), which keep_off takes."""
        import threading

        self._thread = threading.get_native_id()
