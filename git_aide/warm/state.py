"""The warm state of the MCP server (`ServerState`), and what its answers depend on, so that
it need not ask git or work an answer out again.

A reading tool's answer on the working tree depends on: the memory files (the index and
the files that differ from it; warm/watch.py's generation changes whenever the kernel
reports anything under the memories folder, or git is asked again: warm/changes.py),
the user's own store (its files' stat: app/userstore.signature), the git config (the
aide.* and user.* settings), the full-text index on disk and the model's files (for a
search or a question: the folder aide.semantic.model names may come to hold another
model), and the call's arguments (with its paths as the tree has them now: a path may
have become a folder). While none of these changed, the server gives an identical
call's answer again (kept_answers.py), and does not spawn git to read its config
(gitconfig.py: the stat of the files it comes from vouches for it).
"""

from __future__ import annotations

import sys
import threading
import time

from git_aide.warm.gitconfig import ConfigFiles
from git_aide.warm.kept_answers import Answers
from git_aide.warm.kept_items import Items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from git_aide.core.jsonvalue import JSONObject

    #: A reading tool's answer as kept: (its document, its text, what it counted, the
    #: warnings it said).
    KeptAnswer = tuple[JSONObject, str, tuple[str, list[str]] | None, list[str]]
    from typing import Any

    from git_aide.app.context import Context
    from git_aide.app.semantic import Semantic
    from git_aide.cache.folder import Cache, StatTables
    from git_aide.cache.index import FullText
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Prefetch
    from git_aide.read.snapshot import Snapshot

#: Seconds without a call after which the documents a call would have added to the
#: full-text index are written (cache/pending.py): an agent's calls come in bursts.
IDLE_SECONDS = 1.0
#: How long the thread working between calls (read/later.py) sleeps before each step.
PAUSE_SECONDS = 0.0005


class ServerState:
    """Hold the warm state of one server process: the repository and its full-text index;
    and the context of the call under way (app/context.py), whose notices `call` says.

    Calls run one at a time, under `lock`, in the SDK's worker threads.
    """

    def __init__(self) -> None:
        import os

        from git_aide.app.memo import AnswerMemo
        from git_aide.read.load import Held
        from git_aide.warm.changes import Changes

        # numpy's BLAS runs a product on every core, and its threads spin a while after
        # it: on a busy machine a semantic search's one product (10,000 vectors by the
        # question's) took 12-16 ms instead of 0.3-1, and the model's run beside the
        # spinning threads twice as long. One thread gives the same numbers (each of the
        # product's sums is one thread's); set before numpy loads (nothing on the way
        # here imports it), unless the user chose.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

        self._repo: Repo | None = None
        self._index: FullText | None = None
        #: The index's stat when it was last read (index()).
        self._index_seen: tuple[object, ...] | None = None
        #: The context of the call under way: its repository and a cache handle.
        self._ctx: Context | None = None
        #: What the reads keep between calls: the views read lately, decoded (a
        #: state's entries never change), and the work asked for between calls
        #: (read/load.py's Held).
        self.held = Held()
        #: Which memory files may differ from the index: the watch of their folders, made
        #: between calls, or git status (warm/changes.py).
        self.changes = Changes(self.held.later)
        #: What answering keeps between calls: word sets, supersession candidates,
        #: mentions, scope filters, the last view's columns (app/memo.py).
        self.memo = AnswerMemo()
        #: The working tree's stat tables read by the calls' cache handles
        #: (cache/folder.Cache.stat_tables), read again only when their file changes.
        self.stat_tables: StatTables = {}
        #: The size of each memory's item in a full answer less its "matched_scope" and
        #: "score" values, by (path, blob id) (agents/mcp/answersize.memory_size).
        self.item_sizes: dict[tuple[str, str], int] = {}
        #: The sessions folder's stat and the records started since the server (given.py).
        self.sessions_seen: tuple[object, list[JSONObject]] | None = None
        #: Each memory's compact item, its size and its line of text, made once
        #: (warm/kept_items.py).
        self.compact_items = Items()
        #: Semantic search's model and vectors, once a call needed them.
        self._semantic: Semantic | None = None
        #: Held by each call: one at a time.
        self.lock = threading.Lock()
        #: The stat of the config's files when it was read (warm/gitconfig.py).
        self._config = ConfigFiles()
        #: The reading tools' answers while nothing they depend on changed.
        self.answers: Answers[KeptAnswer] = Answers()
        #: The full-text index's stat when the call under way first asked (index_state).
        self._index_state: tuple[tuple[object, ...], tuple[object, ...]] | None = None
        #: What the call under way answered, for the per-machine counts (app/stats.py):
        #: (its kind, the memories it gave); None for a call that is not counted.
        self.counted: tuple[str, list[str]] | None = None
        #: When the server started (session records written since are this session's).
        self.born = time.time()
        #: Whether this connection's agent was given the always-on memories (by a recall
        #: answer, or by a session-start hook since the server started).
        self.always_given = False
        #: The warnings the call under way said of its snapshot.
        self.said: list[str] = []
        #: Answers given and not counted yet: (cache, kind, the memories given, when).
        self.uncounted: list[tuple[Cache, str, list[str], float]] = []
        #: Calls ended so far: the idle work waits for a quiet spell (idle()).
        self.calls = 0
        #: The timer of the idle work (later()), once started.
        self._timer: threading.Timer | None = None
        #: The thread doing the work asked for between calls, once started (work_later).
        self._later: threading.Thread | None = None
        #: Whether that thread is at work and will look for more before it ends.
        self._working = False
        #: The client's name and version from its `initialize` (handshake.client_of):
        #: the tool that the memories it writes are marked with; None when it said none.
        self.client: str | None = None

    def generated_by(self) -> dict[str, Any]:
        """Return the author the memories this connection's agent writes record."""
        from git_aide.core.memory import by_agent

        return by_agent(self.client)

    def context(self) -> Context:
        """Return the context of the call under way: the repository around the server's
        directory, its config read again when a file it comes from changed
        (warm/gitconfig.py), and a cache handle of its own, so that packs other processes
        wrote count."""
        if self._ctx is None:
            from git_aide.app.context import context_of
            from git_aide.gitio.repo import open_repo

            if self._repo is None:
                self._repo = open_repo(self.changes.asked)
                self._config.read(self._repo)
            elif not self._config.unchanged(self._repo):
                self._config.read(self._repo)
            self._ctx = context_of(self._repo, self.stat_tables)
        return self._ctx

    def repo(self) -> Repo:
        """Return the repository of the call under way."""
        return self.context().repo

    def cache(self, repo: Repo) -> Cache:
        """Return the cache handle of the call under way."""
        return self.context().cache

    def index(self, cache: Cache) -> FullText:
        """Return the full-text index, kept open; what it holds is read again when the index's
        stat (app/context.index_state: its folder, stamp and id table) changed: another
        process added to it or rebuilt it. Every document added renames a new id table
        into place (a new inode), so an unchanged stat is an unchanged index."""
        from git_aide.app import search as sr

        # Its own stat only: a memory embedded (a hand edit searched by meaning) changes
        # the vectors', and the index need not be read again for it.
        now = self.index_state()[0]
        if self._index is None:
            self._index = sr.open_index(cache)
            self._index.deferring = True
            self._index.numbers()
        elif now != self._index_seen:
            self._index.refresh()
        self._index_seen = now
        return self.context().noticed(self._index)

    def index_state(self) -> tuple[tuple[object, ...], tuple[object, ...]]:
        """Return the full-text index's stat and the vectors' (app/context.index_state) as
        the call under way first saw them: what its answer is kept for, and what its
        reads were of."""
        if self._index_state is None:
            from git_aide.app.context import index_state

            self._index_state = index_state(self.context().cache)
        return self._index_state

    def semantic(self, repo: Repo, cache: Cache) -> Semantic:
        """Return the model's state, kept between calls (loaded once); made anew when
        aide.semantic.model names another model, the folder it names holds other files
        than those loaded (a re-pointed link, a replaced folder), or the last one could
        not be loaded (it may have been fetched since)."""
        from git_aide.app.semantic import Semantic
        from git_aide.embedding.catalog import MODEL_KEY

        sem = self._semantic
        if sem is None or sem.error is not None or sem.value != repo.config(MODEL_KEY) \
                or sem.changed():
            sem = self._semantic = Semantic(repo, cache, ahead=True)
        return self.context().noticed(sem)

    def foresee(self, question: object) -> None:
        """Start embedding a search's words on the model's worker thread as the call
        arrives, before its answer is looked up (Semantic.foresee): only with the model
        loaded by an earlier call, and only for a text not asked lately."""
        if self._semantic is not None and isinstance(question, str):
            self._semantic.foresee(question)

    def done(self) -> list[str]:
        """End the call under way: the notices its context gathered. What it answered
        is counted once the server is idle (`idle`)."""
        ctx = self._end()
        self.calls += 1
        if self._index is not None:
            self._index.begin()
        if self.counted is not None and ctx is not None:
            kind, uuids = self.counted
            self.uncounted.append((ctx.cache, kind, uuids, time.time()))
        self.counted = None
        return ctx.take_notices() if ctx is not None else []

    def end_call(self, wrote: bool) -> None:
        """End a call (a tool's, or a command's through the socket) under `lock`: its
        notices said, the kept answers forgotten if it `wrote`, the work after it asked."""
        from git_aide.app.boundary import notice_line

        if wrote:
            self.answers.clear()  # nothing kept is vouched for now
        line = notice_line(self.done())
        if line is not None:
            sys.stderr.write(line + "\n")
        if self.uncounted or self.pending():
            self.later()
        if not wrote and self.work_wanted():
            self.work_later()

    def _end(self) -> Context | None:
        """Forget what the work under way asked (its context, git's answers, the
        index's stat, its warnings) and return its context."""
        ctx, self._ctx = self._ctx, None
        self.changes.forget()
        self._index_state = None
        self.said = []
        return ctx

    def pending(self) -> bool:
        """Tell whether documents wait to be written into the full-text index."""
        return self._index is not None and bool(self._index.pending.docs)

    def later(self) -> None:
        """Do the idle work (idle()) once IDLE_SECONDS pass without a call, on a thread
        of its own that never keeps the process up; one such thread at a time."""
        if self._timer is None or not self._timer.is_alive():
            self._arm()

    def _arm(self) -> None:
        self._timer = threading.Timer(IDLE_SECONDS, self._quiet, (self.calls,))
        self._timer.daemon = True
        self._timer.start()

    def _quiet(self, calls: int) -> None:
        if calls == self.calls:
            self.idle(calls)
        else:  # calls came since: another quiet spell is waited for
            self._arm()

    def work_later(self) -> None:
        """Do the work calls asked for between calls (read/later.py) on a daemon thread, in
        small steps, each waiting while a call is under way and holding the lock (beside
        the calls it would slow each twice or more), without the cyclic garbage
        collector (idle.collected_after). Called under `lock`, at a call's end."""
        from git_aide.warm.idle import collected_after

        if self._working:
            return
        later = self.held.later

        def pause() -> threading.Lock:
            time.sleep(PAUSE_SECONDS)  # a call waiting for the lock takes it first
            return self.lock

        def work() -> None:
            with collected_after(self.lock):
                while True:
                    later.make_wanted(pause)
                    with self.lock:
                        # Decided under the lock: a call asking for work sees it, or starts one.
                        if not later.wanted:
                            self._working = False
                            return

        self._working = True
        self._later = threading.Thread(target=work, name="aide-later", daemon=True)
        self._later.start()

    def work_wanted(self) -> bool:
        """Tell whether work was asked for between calls (read/later.py; work_later)."""
        return bool(self.held.later.wanted)

    def worked(self, timeout: float) -> bool:
        """Wait for the work between calls (at most `timeout` s): whether it is done."""
        thread = self._later
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def idle(self, calls: int) -> None:
        """Do the idle work (warm/idle.py: the counts, the pending documents), if no call
        came since the `calls`-th ended (the next one's end asks again)."""
        from git_aide.warm.idle import idle_work

        with self.lock:
            if calls == self.calls:
                todo, self.uncounted = self.uncounted, []
                if idle_work(todo, self._index):
                    self._arm()  # another process is writing the index: again later

    def prepare(self, asked: Prefetch | None = None,
                rehearse: Callable[[], Iterator[None]] | None = None) -> None:
        """Read what a first call needs while the server waits for it: the working tree's
        view, kept, with the work between calls started: the watch of its memory folders
        made first (a call until then asks git), then what a first recall needs, then
        `rehearse`'s steps, the full-text index opened and the view decoded. What fails
        is left for the first call to say. `asked`: git's questions started with it."""
        from git_aide.read.later import Later, first_recall

        with self.lock:
            self.changes.asked = asked
            try:
                _repo, cache, snap = self.read(say=False)
            except Exception:  # noqa: BLE001 -- the first call meets it again, and says it
                return
            finally:
                self.changes.asked = None  # answered then, or not to be taken by a call
                self.end_quietly()
            self.held.later.want(Later(lambda: self._open_index(cache)))
            if rehearse is not None:
                self.held.later.want(Later(rehearse))
            # Newest first: the watch, the groups, the contents and their vocabulary.
            self.held.later.want(Later(lambda: first_recall(snap, True)), first=True)
            self.held.later.want(Later(lambda: first_recall(snap, False)), first=True)
            if self.changes.making is not None:
                self.held.later.want(self.changes.making, first=True)
            if self.work_wanted():
                self.work_later()

    def _open_index(self, cache: Cache) -> Iterator[None]:
        """Open the full-text index, then load the model and its vectors when one is
        configured (for a first search by meaning): steps between calls (prepare())."""
        from git_aide.embedding.catalog import MODEL_KEY

        yield  # after the steps asked for before it
        for step in ("index", "model"):
            if self._ctx is None:
                try:
                    repo = self.repo()
                    if step == "index" and self._index is None:
                        self.index(cache)
                    elif step == "model" and repo.config(MODEL_KEY):
                        sem = self.semantic(repo, cache)
                        if sem.ready(say=False):
                            sem.vectors.load()
                except Exception:  # noqa: BLE001,S110 -- the first call meets it, and says why
                    pass
                finally:
                    self.end_quietly()
            yield

    def end_quietly(self) -> None:
        """End work done outside a call: its notices to the log, as a call's are; no
        call counted."""
        from git_aide.app.boundary import notice_line

        ctx = self._end()
        line = notice_line(ctx.take_notices()) if ctx is not None else None
        if line is not None:
            sys.stderr.write(line + "\n")

    def read(self, rev: str | None = None, *, say: bool = True, early: bool = False
             ) -> tuple[Repo, Cache, Snapshot]:
        """Return (repo, cache, snapshot) of the working tree, or of `rev`, as it is now.
        `early`: when git must say which files differ (no watch yet), leave the overlay
        pending for an answer worked out meanwhile (read/worktree.speculate); the caller
        then says its warnings once settled (`say`)."""
        from git_aide.gitio.repo import check_revision
        from git_aide.gitio.spawn import Prefetch, resolve_query, spawn

        changed: list[str] | None = None
        if rev is None:
            repo = self.repo()
            changed, asked = self.changes.take(repo)
        else:
            check_revision(rev)
            # Start git's question before anything else, as the command line does.
            asked = Prefetch(resolve=spawn("cat-file", "--batch-check", input=resolve_query(rev)))
            repo = self.repo()
        ctx = self.context()
        cache = ctx.cache
        snap = ctx.snapshot(False, rev, asked=asked, held=self.held, changed=changed,
                             users=True, early=early and rev is None)
        if rev is None:
            from git_aide.app import answers

            answers.warm_view(snap, self.memo, lambda: self._index)
        if snap.pending is None:
            self.say(snap, say)
        return repo, cache, snap

    def say(self, snap: Snapshot, say: bool = True) -> None:
        """Keep the snapshot's warnings as the call's, and say them (`say`)."""
        self.said = list(snap.warnings)
        for line in snap.warnings if say else ():
            sys.stderr.write(f"git-aide: warning: {line}\n")

    def state(self, full_text: bool) -> tuple[object, ...] | None:
        """Return what the working tree's answers depend on now (warm/state.py), or None when
        the watch cannot vouch for the memory files; `full_text`: the full-text index
        on disk too. Asks the watch once per call (read() takes its answer)."""
        repo = self.repo()
        self.changes.ask(repo)
        watched = self.changes.generation()
        if watched is None or self._config.sig is None:
            return None
        from git_aide.app.userstore import signature

        users = signature()  # the user's own store (laid over every answer's memories)
        if users is None:
            return None
        state: tuple[object, ...] = (self._config.sig, *watched, users)
        if full_text:
            # The model's files too: a search by meaning depends on which model runs.
            from git_aide.app.semantic import model_signature
            from git_aide.embedding.catalog import MODEL_KEY

            state += (model_signature(repo.config(MODEL_KEY)), self.index_state())
        return state
