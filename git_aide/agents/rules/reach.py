"""Where `import` may read beyond the files named: the links discovery finds, and
`@path` imports (rules.py).

Only files git tracks or would track: a committed `AGENTS.md -> ../private.md`, or an
`@.env` or `@.git/config`, would otherwise bring that file's lines into the memories, where
only the secret check stands between them and the next commit (a host name, a Sentry DSN or
a config without a password pass it). A link or an import out of the working tree, into the
git folder (wherever it is) or to a file git ignores is refused with a warning naming it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from git_aide.agents.setup.native import imports
from git_aide.core.errors import AideError
from git_aide.gitio.ignore import ignored

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.gitio.repo import Repo

#: A name an `@` import would give a file, not a mention of someone (`@jlowin`).
_PATHLIKE = frozenset("/.")
#: Why a file is not read though a rules file leads to it (a link, an `@` import).
OUTSIDE, IN_GIT, IGNORED = ("outside the working tree", "inside the git folder",
                            "ignored by git")


def _refused_place(full: str, root: str, git_dirs: tuple[str, ...]) -> str | None:
    """Say why the file at `full` (a real path) may not be read as a rules file, short of
    asking git whether it ignores it: OUTSIDE, IN_GIT or None."""
    if os.path.commonpath([root, full]) != root:
        return OUTSIDE
    rel = os.path.relpath(full, root)
    if any(part.lower() == ".git" for part in rel.split(os.sep)) or any(
            os.path.commonpath([d, full]) == d for d in git_dirs):
        return IN_GIT
    return None


def _git_dirs(repo: Repo) -> tuple[str, ...]:
    """Return the repository's git folders, as real paths: a linked worktree's own and the common
    one, wherever they are (`--separate-git-dir` puts them anywhere, even in the tree)."""
    return tuple(dict.fromkeys(os.path.realpath(d) for d in (repo.git_dir, repo.common_dir)))


def refuse_links(repo: Repo, top: str, root: str, files: list[str]
                 ) -> tuple[list[str], list[str]]:
    """Drop the discovered rules files (repo-relative) that a link leads out of the working tree,
    into the git folder or to a file git ignores: a clone's `AGENTS.md -> ../private.md` would
    otherwise bring that file's lines into the memories, and the next commit would publish them.
    Return the kept files, and a warning for each refused one."""
    git_dirs = _git_dirs(repo)
    why: dict[str, str] = {}
    ask: dict[str, str] = {}
    real: dict[str, str] = {}
    for f in files:
        full = os.path.realpath(os.path.join(top, f))
        if full == os.path.join(root, *f.split("/")):
            continue  # no link on the way: a file git lists
        real[f] = full
        place = _refused_place(full, root, git_dirs)
        if place is not None:
            why[f] = place
        else:
            ask[f] = os.path.relpath(full, root).replace(os.sep, "/")
    if ask:
        left_out = ignored(repo, ask.values())
        why.update((f, IGNORED) for f, rel in ask.items() if rel in left_out)
    return [f for f in files if f not in why], [
        f"{_pointing(top, f, real[f])}, which is {why[f]}; not read" for f in files if f in why]


def _pointing(top: str, name: str, full: str) -> str:
    """Say `name` and where it points: its link's text (and the real path, when the link
    goes on through other links), or the real path a linked folder gives it."""
    path = os.path.join(top, name)
    try:
        said = os.readlink(path) if os.path.islink(path) else None
    except OSError:
        said = None
    if said is None:
        return f"{name} lies in a linked folder, at {full}"
    direct = os.path.normpath(os.path.join(os.path.dirname(path), said))
    return f"{name} is a link to {said}" + ("" if direct == full else f" ({full})")


@dataclass
class Walk:
    """Walk the files `import` reads: those named, and what they import with `@path`."""

    repo: Repo
    #: The top of the working tree, a real path.
    root: str
    #: The files named (or discovered): an import of one of them reads nothing again.
    given: set[str]
    #: What is said of the files left out.
    warnings: list[str]
    #: A file's text (its real path, the name to show), None when there is none; an
    #: AideError says why it cannot be read.
    read: Callable[[str, str], str | None]
    #: The files read, as (name, kind, text): `kind` gives the layer and scope.
    texts: list[tuple[str, str, str]] = field(default_factory=list)
    #: The real paths read or refused: each file once, whatever the cycles.
    seen: set[str] = field(default_factory=set)
    #: The repository's git folders, on first use.
    git_dirs: tuple[str, ...] | None = None

    def follow(self, text: str, where: str, kind: str, depth: int) -> None:
        """Add the files `text` (the file at `where`) imports with `@path`, relative to
        its folder, `depth` levels deep, each once, and only files git tracks or would
        track: never out of the working tree, into the git folder (`@.git/config`) or to
        an ignored file (`@.env`), which only the secret check would otherwise keep out
        of a commit.

        An imported file is read where its importer is: its rules get the importer's
        layer and scope (`kind`), and `why` names the imported file itself."""
        if depth <= 0 or "@" not in text:
            return
        root = self.root
        name = os.path.relpath(where, root).replace(os.sep, "/")
        refused: dict[str, list[str]] = {}
        candidates: list[tuple[str, str, str]] = []
        for target in imports(text):
            if target.startswith("~") or not _PATHLIKE & set(target):
                continue  # the user's own files, or a mention of someone (@jlowin)
            full = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(where)),
                                                 target))
            if os.path.commonpath([root, full]) != root:
                refused.setdefault(OUTSIDE, []).append(target)
                continue
            if full in self.given or full in self.seen:
                continue  # imported on its own, or already (an import cycle)
            self.seen.add(full)
            if self.git_dirs is None:
                self.git_dirs = _git_dirs(self.repo)
            place = _refused_place(full, root, self.git_dirs)
            if place is not None:
                refused.setdefault(place, []).append(target)
                continue
            candidates.append((target, full, os.path.relpath(full, root).replace(os.sep, "/")))
        left_out = ignored(self.repo, [rel for _t, _f, rel in candidates]) if candidates else set()
        missing: list[str] = []
        follow: list[tuple[str, str, str]] = []
        for target, full, rel in candidates:
            if rel in left_out:
                refused.setdefault(IGNORED, []).append(target)
                continue
            try:
                imported = self.read(full, rel)
            except AideError as e:
                self.warnings.append(f"{name} imports @{target}: {e}; not read")
                continue
            if imported is None:
                missing.append(target)
                continue
            follow.append((full, rel, imported))
        for why, targets in refused.items():
            self.warnings.append(f"{name} imports {_some(targets)}, which "
                                 f"{'is' if len(targets) == 1 else 'are'} {why}; not read")
        if missing:
            self.warnings.append(f"{name} imports {_some(missing)}, which "
                                 f"do{'es' if len(missing) == 1 else ''} not exist")
        for full, rel, imported in follow:
            self.texts.append((rel, kind, imported))
            self.follow(imported, full, kind, depth - 1)


def _some(targets: list[str]) -> str:
    """Return the first few of `targets` as `@` imports, on one line however many: a file can
    name thousands."""
    more = f" and {len(targets) - 3} more" if len(targets) > 3 else ""
    return f"{', '.join('@' + t for t in targets[:3])}{more}"
