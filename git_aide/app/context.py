"""What every use case works in: the repository, its cache, and the notices they raise.

The command line, the hooks and the MCP server each make a `Context` (`open_context`)
and hand it to the use cases; the notices a damaged cache raises are collected on it,
and each front end says them its own way when its work is done (the CLI and the hooks
on stderr, the server in its log), so that no notice is lost between the two.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol, TypeVar

    from git_aide.app.memo import AnswerMemo
    from git_aide.app.semantic import Semantic
    from git_aide.cache.folder import Cache, StatTables
    from git_aide.cache.index import FullText
    from git_aide.core.settings import Settings
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Prefetch
    from git_aide.read.load import Held
    from git_aide.read.record import Records
    from git_aide.read.snapshot import Snapshot

    class Noticing(Protocol):
        """Note what the user should hear about (a damaged cache file that was rebuilt):
        a Cache, a full-text index, a Repo."""

        notices: list[str]

    N = TypeVar("N", bound=Noticing)


class Context:
    """Hold the repository around the working directory, its cache and their notices."""

    __slots__ = ("repo", "cache", "_noticing", "_index")

    def __init__(self, repo: Repo, cache: Cache) -> None:
        #: The repository (the git boundary).
        self.repo = repo
        #: Its cache folder, `<git common dir>/aide`.
        self.cache = cache
        #: What was made for this context and may note notices (the cache, the index,
        #: the repository: a write that staged memories .gitignore hides).
        self._noticing: list[Noticing] = [cache, repo]
        self._index: FullText | None = None

    @property
    def settings(self) -> Settings:
        """Return the aide.* settings, parsed once from the repository's config."""
        return self.repo.settings

    def noticed(self, obj: N) -> N:
        """Return `obj`, whose notices are this context's from now on."""
        if not any(o is obj for o in self._noticing):
            self._noticing.append(obj)
        return obj

    def new_cache(self) -> Cache:
        """Open a fresh handle on the cache folder (after it was thrown away, say)."""
        from git_aide.cache.folder import Cache

        self.cache = self.noticed(Cache(self.cache.root))
        return self.cache

    def index(self) -> FullText:
        """Return the cache's full-text index, opened once."""
        if self._index is None:
            from git_aide.app import search as sr

            self._index = self.noticed(sr.open_index(self.cache))
        return self._index

    def snapshot(self, cached: bool = False, rev: str | None = None, *,
                 asked: Prefetch | None = None, save_view: bool = True,
                 held: Held | None = None, changed: list[str] | None = None,
                 early: bool = False, users: bool = False,
                 records: Records | None = None) -> Snapshot:
        """Return the memories of the source `--cached` / `--rev` name (its warnings are
        the caller's to say); the other keywords are read/load.load's."""
        from git_aide.read.load import load

        kind, rev = source(cached, rev)
        return load(self.repo, self.cache, kind, rev, asked=asked, save_view=save_view,
                    held=held, changed=changed, early=early, users=users, records=records)

    def take_notices(self) -> list[str]:
        """Take the notices noted since the last call, each once, in order."""
        said = list(dict.fromkeys(n for obj in self._noticing for n in obj.notices))
        for obj in self._noticing:
            obj.notices.clear()
        return said


def context_of(repo: Repo, stat_tables: StatTables | None = None) -> Context:
    """Return the context of an open repository, with a cache handle of its own
    (`stat_tables`: what a long-lived process keeps of the stat tables between its
    calls' handles, cache/folder.Cache.stat_tables)."""
    from git_aide.cache.folder import Cache

    return Context(repo, Cache(repo.cache_dir, stat_tables))


def preload() -> None:
    """Import what a first recall or search reads with (a long-lived server does it
    while it waits), so that the first call does not pay for it. Not numpy (the
    full-text index's scoring, cache/arrays.py) nor pygit2: no such call needs them, and
    their imports (about 50 ms each) would delay a first call that comes at once; the
    server imports them between calls."""
    import git_aide.app.queries  # noqa: F401
    import git_aide.app.userstore  # noqa: F401
    import git_aide.rank.recall  # noqa: F401
    import git_aide.read.contents  # noqa: F401
    import git_aide.read.load  # noqa: F401
    import git_aide.read.user  # noqa: F401
    import git_aide.read.vocabulary  # noqa: F401


def index_state(cache: Cache) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """Return the stat of the full-text index on disk (its folder, stamp and id table), and
    that of the memory vectors: any document added, or the index rebuilt, changes the
    first; a memory embedded, the second."""
    import os

    from git_aide.cache.idtable import TABLE
    from git_aide.core.files import stat_sig

    root = os.path.join(cache.root, "whoosh")
    # Semantic search's vectors (cache/vectors.py) count too: one embedded since changes
    # what a search by meaning finds.
    vectors = os.path.join(os.path.dirname(cache.root), "vectors")
    try:
        kept = sorted(n for n in os.listdir(vectors) if n.endswith(".vec"))
    except OSError:
        kept = []
    return (tuple(stat_sig(p) for p in (root, os.path.join(root, "STAMP"),
                                        os.path.join(root, TABLE))),
            tuple(stat_sig(os.path.join(vectors, n)) for n in kept))


def open_context(asked: Prefetch | None = None) -> Context:
    """Open the context of the repository around the current directory.

    `asked`: git's questions already started (spawn.early)."""
    from git_aide.gitio.repo import open_repo

    return context_of(open_repo(asked))


class Contexts:
    """Open the contexts one command or hook works in, and give what it reads through
    them (a snapshot, the full-text index, the model): each fresh, read for this
    process. A warm server hands a command its own (warm/served.py's `WarmContexts`),
    which answers the same from what it holds; the command's code is the same."""

    def __init__(self) -> None:
        #: The contexts opened so far, whose notices the front end says at its end.
        self.opened: list[Context] = []

    def ask_early(self, cached: bool = False, rev: str | None = None) -> Prefetch | None:
        """Start git's questions about the source a command reads (spawn.early), to run
        while the rest is imported; None when they need not be asked."""
        from git_aide.gitio.spawn import early

        return early(cached, rev)

    def open(self, asked: Prefetch | None = None) -> Context:
        """Open the context of the repository around the current directory (`asked`: git's
        questions already started, spawn.early)."""
        ctx = open_context(asked)
        self.opened.append(ctx)
        return ctx

    def snapshot(self, ctx: Context, cached: bool = False, rev: str | None = None, *,
                 asked: Prefetch | None = None, early: bool = False) -> Snapshot:
        """Return the memories of the source `--cached` / `--rev` name, the user's own store
        laid over them (Context.snapshot; its warnings are the caller's to say)."""
        return ctx.snapshot(cached, rev, asked=asked, early=early, users=True)

    def index(self, ctx: Context) -> FullText:
        """Return the full-text index of `ctx`'s cache."""
        return ctx.index()

    def semantic(self, ctx: Context, threads: int = 1) -> Semantic:
        """Return semantic search's model and vectors for `ctx` (loaded on first need)."""
        from git_aide.app.semantic import Semantic

        return ctx.noticed(Semantic(ctx.repo, ctx.cache, threads=threads))

    def memo(self) -> AnswerMemo | None:
        """Return what answering keeps between calls (app/memo.py): None, a fresh one each
        use case."""
        return None

    def serves(self, folder: str) -> bool:
        """Tell whether a command run in `folder` reads through these contexts (a fresh
        one serves any folder)."""
        return True

    def take_notices(self) -> list[str]:
        """Take the notices of every context opened, each once, in order."""
        return list(dict.fromkeys(n for c in self.opened for n in c.take_notices()))


def source(cached: bool, rev: str | None) -> tuple[str, str | None]:
    """Return (kind, revision) of the source that --cached / --rev name."""
    if cached and rev is not None:
        from git_aide.core.errors import UsageError

        raise UsageError("--cached and --rev cannot be used together")
    if rev is not None:
        return "rev", rev
    return ("index", None) if cached else ("worktree", None)

