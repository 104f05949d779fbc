"""What a command or hook run by the warm server works in (`WarmContexts`): the server's
own context, views, full-text index and model, in place of a process's fresh ones."""

from __future__ import annotations

from git_aide.app.context import Contexts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Context
    from git_aide.app.memo import AnswerMemo
    from git_aide.app.semantic import Semantic
    from git_aide.cache.index import FullText
    from git_aide.gitio.spawn import Prefetch
    from git_aide.read.snapshot import Snapshot
    from git_aide.warm.state import ServerState


class WarmContexts(Contexts):
    """Give a command the server's state (warm/state.py): the context of the call under
    way, the working tree's view as the watch and the kept views make it, the index kept
    open, the model loaded once. The command's code is unchanged: it reads through these
    as through a fresh app/context.Contexts, and gets the same answer."""

    def __init__(self, state: ServerState, prefix: str = "") -> None:
        super().__init__()
        self._state = state
        #: The command's folder relative to the working tree's top (git's
        #: `--show-prefix`), which its relative paths are read from.
        self.prefix = prefix
        #: The repository's own prefix, given back by `restore`.
        self._kept: str | None = None

    def ask_early(self, cached: bool = False, rev: str | None = None) -> Prefetch | None:
        """Ask git nothing ahead: the server knows the repository, and its watch the
        working tree."""
        return None

    def open(self, asked: Prefetch | None = None) -> Context:
        """Return the context of the call under way (the server's repository, its config
        read again when a file of it changed), seen from the command's folder."""
        ctx = self._state.context()
        if not any(c is ctx for c in self.opened):
            self.opened.append(ctx)
        if self._kept is None:
            self._kept = ctx.repo.prefix
        ctx.repo.prefix = self.prefix
        return ctx

    def restore(self) -> None:
        """Give the server's repository its own folder back, once the command ended."""
        if self._kept is not None:
            self._state.repo().prefix = self._kept
            self._kept = None

    def memo(self) -> AnswerMemo:
        """Return the server's memo (word sets, scope filters, the view's columns...)."""
        return self._state.memo

    def serves(self, folder: str) -> bool:
        """Tell whether `folder` lies in the server's working tree (and not in a repository
        nested in it)."""
        from git_aide.warm import address

        return address.within(folder, self._state.repo().git_dir)

    def snapshot(self, ctx: Context, cached: bool = False, rev: str | None = None, *,
                 asked: Prefetch | None = None, early: bool = False) -> Snapshot:
        """Return the memories of the source `--cached` / `--rev` name: the working tree's
        and a revision's through the server's kept views (its warnings unsaid: the
        command says them)."""
        if cached:
            return super().snapshot(ctx, cached, rev)
        return self._state.read(rev, say=False)[2]

    def index(self, ctx: Context) -> FullText:
        """Return the server's full-text index, kept open."""
        return self._state.index(ctx.cache)

    def semantic(self, ctx: Context, threads: int = 1) -> Semantic:
        """Return the server's model and vectors, loaded once."""
        return self._state.semantic(ctx.repo, ctx.cache)
