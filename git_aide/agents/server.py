"""`git aide mcp`: the MCP server on stdio (DESIGN section 13), on the official SDK.

The tools keep aide-memory's names and parameters, and call the same functions as the
commands (answers.py, store.py): each tool's structured content is the document the
matching command prints with `--json`, its text a short markdown rendering. The process
stays up between calls, so its imports, its repository handle and its full-text index
stay warm; every call still lists its source afresh (the index, a tree, and the memory
files that differ from the index: from git status, or from the kernel's events once git
has answered, agents/watch.py), so a memory edited by hand between two calls is seen.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from git_aide import __version__, answers
from git_aide.agents.text import diff_text, log_text, memories_text
from git_aide.cache import Cache, stat_sig
from git_aide.errors import AideError
from git_aide.listing import changed_paths
from git_aide.recall import Hit
from git_aide.repo import Repo, check_revision, open_repo
from git_aide.sources import Entry, Snapshot
from git_aide.sources import load as load_source
from git_aide.spawn import CONFIG, STATUS, resolve_query, spawn

Layer = Literal["area_context", "technical", "preferences", "guidelines"]
Ident = Annotated[str | int, Field(description="A uuid, a unique uuid prefix of 4+ "
                                               "characters, or an aide-memory integer id")]
Rev = Annotated[str | None, Field(description="Read at this commit-ish (a branch, tag, "
                                              "sha, HEAD~3) instead of the working tree")]

INSTRUCTIONS = """\
This repository's memory (git-aide): decisions, facts, preferences and team rules,
stored as files in .aide/memories/ and versioned with the code.
Before you change a file, call aide_recall with its path. When you learn something the
code does not show (a decision, a constraint, a gotcha), call aide_remember with a scope
glob where it applies. Layers: area_context (one code area, needs a scope), technical,
preferences, guidelines. rev reads any commit; aide_diff shows what a branch changed."""


class Memory:
    """The warm state of one server process: the repository and its full-text index.

    Calls run one at a time (the SDK runs plain functions in worker threads).
    """

    def __init__(self) -> None:
        self._repo: Repo | None = None
        self._index: Any = None
        #: The views read lately, decoded: a state's entries never change (sources.load).
        self._warm: dict[Any, Any] = {}
        #: The memories folder under inotify, when it can be (None: git status each call).
        self._watch: Any = None
        self.lock = threading.Lock()

    def repo(self) -> Repo:
        """The repository around the server's directory, its config read afresh."""
        if self._repo is None:
            self._repo = open_repo()
        else:
            self._repo.reread_config(spawn(*CONFIG))
        return self._repo

    def cache(self, repo: Repo) -> Cache:
        """A cache handle for one call: new, so that packs other processes wrote count."""
        return Cache(repo.cache_dir)

    def index(self, cache: Cache) -> Any:
        """The full-text index, kept open; what it holds is read again each call."""
        from git_aide import search as sr

        if self._index is None:
            self._index = sr.open_index(cache)
        else:
            self._index.refresh()
        return self._index

    def read(self, rev: str | None = None) -> tuple[Repo, Cache, Snapshot]:
        """(repo, cache, snapshot) of the working tree, or of `rev`, as it is now."""
        changed: list[str] | None = None
        if rev is None:
            repo = self.repo()
            changed, asked = self._changes(repo)
        else:
            check_revision(rev)
            # Start git's question before anything else, as the command line does.
            asked = {"resolve": spawn("cat-file", "--batch-check", input=resolve_query(rev))}
            repo = self.repo()
        cache = self.cache(repo)
        kind = "worktree" if rev is None else "rev"
        snap = load_source(repo, cache, kind, rev, asked=asked,  # type: ignore[arg-type]
                           warm=self._warm, changed=changed)
        for line in snap.warnings:
            sys.stderr.write(f"git-aide: warning: {line}\n")
        return repo, cache, snap

    def _changes(self, repo: Repo) -> tuple[list[str] | None, dict[str, Any]]:
        """The memory files that may differ from the index, from the folder's watch
        (agents/watch.py); or, when git must say, its status started."""
        from git_aide.agents.watch import Watch

        top = repo.require_worktree("reading the working tree")
        wanted = repo.config_bool("aide.mcp.watch", True)
        if self._watch is not None and (not wanted or self._watch.top != top):
            self._watch.close()
            self._watch = None
        if wanted and self._watch is None:
            self._watch = Watch(top)
        watch = self._watch
        if watch is None:
            return None, {"status": spawn(*STATUS)}
        changed = watch.changed(repo.index_file)
        if changed is not None:
            return changed, {}
        watching = watch.prepare()
        sig = stat_sig(repo.index_file)
        status = spawn(*STATUS)
        if not watching:
            return None, {"status": status}
        paths = changed_paths(top, status)
        watch.baseline(repo.index_file, sig, paths)
        return paths, {}


def find(snap: Snapshot, ident: str | int) -> Entry:
    """The memory an id names: a uuid or unique prefix, or aide-memory's integer `id`."""
    from git_aide.store import find as by_uuid

    text = str(ident).strip()
    if isinstance(ident, int) or (text.isdigit() and len(text) < 12):
        number = int(text)
        for e in snap.entries:
            if e.record.get("id") == number:
                return e
        if isinstance(ident, int) or len(text) < 4:
            raise AideError(f"no memory with id {ident!r}")
    return by_uuid(snap.entries, text)


def as_list(value: list[str] | str | None) -> list[str]:
    """A list argument that a model may also send as one string."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def result(doc: dict[str, Any], text: str) -> CallToolResult:
    """A tool result: the command's --json document, and its markdown beside it."""
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=doc)


def build(memory: Memory | None = None) -> MCPServer:
    """The server with every tool registered."""
    mem = memory or Memory()
    server: MCPServer = MCPServer(name="git-aide", version=__version__,
                                  instructions=INSTRUCTIONS, log_level="WARNING")

    def guarded(work: Callable[[], CallToolResult]) -> CallToolResult:
        # One call at a time; any failure is a tool error with one clear line.
        with mem.lock:
            try:
                return work()
            except ToolError:
                raise
            except AideError as e:
                raise ToolError(str(e)) from None
            except Exception as e:  # noqa: BLE001 -- the server outlives any one call
                raise ToolError(f"internal error: {type(e).__name__}: {e}") from None

    @server.tool()
    def aide_recall(
        paths: Annotated[list[str] | str | None, Field(
            description="Files or folders you are about to read or change")] = None,
        query: Annotated[str | None, Field(description="Words to re-rank by")] = None,
        layers: list[Layer] | None = None,
        contributor: str | None = None,
        limit: Annotated[int, Field(ge=0, le=1000)] = 20,
        ids: Annotated[list[str | int] | None, Field(
            description="Fetch these memories by id instead")] = None,
        rev: Rev = None,
    ) -> CallToolResult:
        """What to know before touching these paths: the memories scoped to them, most
        specific first (`git aide recall --json`)."""
        def work() -> CallToolResult:
            repo, cache, snap = mem.read(rev)
            if ids:
                chosen = list({find(snap, i).uuid: find(snap, i) for i in ids}.values())
                hits = [Hit(e, e.scope) for e in chosen]
            else:
                ft = mem.index(cache) if query and query.strip() else None
                hits = answers.recall_hits(repo, cache, snap, as_list(paths), query=query,
                                           layers=layers or (), contributor=contributor,
                                           limit=limit, index=ft)
            doc = answers.memories_doc(snap, hits)
            return result(doc, memories_text(doc))
        return guarded(work)

    @server.tool()
    def aide_search(
        keyword: Annotated[str, Field(description="Words to look for")],
        layer: Layer | None = None,
        limit: Annotated[int, Field(ge=0, le=1000)] = 50,
        mode: Annotated[str | None, Field(
            description="Accepted for aide-memory prompts; git-aide always ranks by BM25 "
                        "with a substring fallback")] = None,
        rev: Rev = None,
    ) -> CallToolResult:
        """Where did we write about X? Full-text search, best first
        (`git aide search --json`)."""
        def work() -> CallToolResult:
            repo, cache, snap = mem.read(rev)
            ft = mem.index(cache)
            hits = answers.search_hits(repo, snap, ft, keyword,
                                       layers=[layer] if layer else [], limit=limit)
            doc = answers.memories_doc(snap, hits)
            return result(doc, memories_text(doc, empty=f"Nothing matches {keyword!r}."))
        return guarded(work)

    @server.tool()
    def aide_memories(
        layer: Layer | None = None,
        scope: Annotated[str | None, Field(
            description="Only memories whose scope starts with this text")] = None,
        contributor: str | None = None,
        limit: Annotated[int, Field(ge=0, le=100000)] = 50,
        rev: Rev = None,
    ) -> CallToolResult:
        """Every memory, by layer then scope, with filters (`git aide list --json`)."""
        def work() -> CallToolResult:
            _repo, _cache, snap = mem.read(rev)
            hits = answers.list_hits(snap, layers=[layer] if layer else [],
                                     contributor=contributor)
            if scope is not None:
                hits = [h for h in hits if (h.entry.scope or "project").startswith(scope)]
            doc = answers.memories_doc(snap, hits[:limit])
            return result(doc, memories_text(doc))
        return guarded(work)

    @server.tool()
    def aide_remember(
        what: Annotated[str, Field(description="The memory itself, one fact or decision")],
        layer: Layer,
        scope: Annotated[str | None, Field(
            description="Where it applies: a glob such as src/auth/** (none: project-wide)"
        )] = None,
        why: str | None = None,
        context_label: str | None = None,
        contributor: str | None = None,
        tags: list[str] | None = None,
        source: Literal["conversation", "import", "agent_discovery", "elevated",
                        "hook"] = "conversation",
        shared: Annotated[bool, Field(
            description="false: a personal preference (layer preferences only), kept out "
                        "of git, never staged")] = True,
        priority: Literal["normal", "always"] | None = None,
    ) -> CallToolResult:
        """Store a memory in .aide/memories and stage it (`git aide remember --json`)."""
        def work() -> CallToolResult:
            from git_aide import store

            if not shared and layer != "preferences":
                # As `remember --personal` with another layer: a private memory that
                # is shared and staged anyway would be committed behind the agent's back.
                raise AideError("shared=false makes a personal preference, which cannot "
                                f"go in layer {layer}: use layer preferences to keep it "
                                "private, or shared=true to share it with the team")
            repo = mem.repo()
            personal = not shared
            w = store.remember(repo, mem.cache(repo), what, why=why, layer=layer, scope=scope,
                               tags=tags or [], label=context_label, personal=personal,
                               priority=priority or "normal", source=source,
                               contributor=contributor)
            doc = answers.remember_doc(w)
            verb = "Remembered" if w.created else "Already remembered as"
            text = f"{verb} `{w.uuid[:8]}` in {w.path}."
            text += "".join(f"\nwarning: {x}" for x in w.warnings)
            return result(doc, text)
        return guarded(work)

    @server.tool()
    def aide_update(
        id: Ident,  # noqa: A002 -- aide-memory's parameter name
        what: str | None = None,
        why: str | None = None,
        scope: Annotated[str | None, Field(
            description="New scope glob ('' or 'project': project-wide)")] = None,
        context_label: str | None = None,
        priority: Literal["normal", "always"] | None = None,
    ) -> CallToolResult:
        """Change a memory and stage the change (`git aide update --json`)."""
        def work() -> CallToolResult:
            from git_aide import store

            if all(x is None for x in (what, why, scope, context_label, priority)):
                raise AideError("nothing to change: give what, why, scope, context_label "
                                "or priority")
            repo, cache, snap = mem.read()
            uuid = find(snap, id).uuid
            w = store.update(repo, cache, uuid, what=what, why=why, scope=scope,
                             label=context_label, priority=priority)
            return result(answers.update_doc(w), f"Updated `{w.uuid[:8]}` in {w.path}.")
        return guarded(work)

    @server.tool()
    def aide_forget(id: Ident) -> CallToolResult:  # noqa: A002 -- aide-memory's name
        """Delete a memory and stage the removal (`git aide forget --json`)."""
        def work() -> CallToolResult:
            from git_aide import store

            repo, cache, snap = mem.read()
            uuid = find(snap, id).uuid
            gone, staged, _warnings = store.forget(repo, cache, [uuid])
            return result(answers.forget_doc(gone, staged),
                          "\n".join(f"Forgot `{u[:8]}`." for u in gone))
        return guarded(work)

    @server.tool()
    def aide_import(
        content: Annotated[str, Field(description="Markdown: each bullet or paragraph "
                                                  "becomes one memory")],
        layer: Layer,
        scope: str | None = None,
        context_label: str | None = None,
    ) -> CallToolResult:
        """Turn rules text (CLAUDE.md, AGENTS.md, notes) into memories
        (`git aide import --json`)."""
        def work() -> CallToolResult:
            from git_aide.agents.rules import import_text

            repo = mem.repo()
            doc = import_text(repo, mem.cache(repo), content, name="import", layer=layer,
                        scope=scope, context_label=context_label)
            text = (f"Imported {len(doc.get('imported', []))} memories, skipped "
                    f"{len(doc.get('skipped', []))}.")
            return result(doc, text)
        return guarded(work)

    @server.tool()
    def aide_diff(
        args: Annotated[list[str] | None, Field(
            description="As `git aide diff`: none (HEAD vs the working tree), REV, REV REV2, "
                        "A..B or A...B (what a branch adds: origin/main...HEAD)")] = None,
        cached: bool = False,
        paths: list[str] | None = None,
    ) -> CallToolResult:
        """Memories added, forgotten and changed between two sources
        (`git aide diff --json`)."""
        def work() -> CallToolResult:
            from git_aide.history import diff_doc

            repo = mem.repo()
            doc = diff_doc(repo, mem.cache(repo), list(args or []), cached=cached,
                           paths=tuple(paths or ()))
            return result(doc, diff_text(doc))
        return guarded(work)

    @server.tool()
    def aide_log(
        revs: Annotated[list[str] | None, Field(
            description="Revisions or ranges as `git log` takes them (default HEAD)")] = None,
        uuid: Annotated[str | None, Field(description="Follow one memory")] = None,
        paths: list[str] | None = None,
        reverse: bool = False,
        limit: Annotated[int | None, Field(ge=1)] = None,
        all: bool = False,  # noqa: A002 -- as `git log --all`
    ) -> CallToolResult:
        """Commits that changed memories, newest first (`git aide log --json`)."""
        def work() -> CallToolResult:
            from git_aide.history import log_doc

            repo = mem.repo()
            # No revisions is `git aide log`'s default (HEAD, or nothing before the
            # first commit), not a literal HEAD that git would refuse there.
            walk = list(revs or [])
            doc = log_doc(repo, mem.cache(repo), walk, uuid=uuid,
                          paths=tuple(paths or ()), reverse=reverse, limit=limit,
                          all_refs=all)
            return result(doc, log_text(doc))
        return guarded(work)

    return server


def main() -> int:
    """Serve on stdio until the client goes away."""
    # Warm the read path now, not on the agent's first call.
    import git_aide.search  # noqa: F401
    import git_aide.store  # noqa: F401

    build().run()
    return 0
