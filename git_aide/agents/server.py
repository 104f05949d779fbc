"""`git aide mcp`: the MCP server on stdio (README, Agents: MCP server and hooks).

The tools keep aide-memory's names and parameters, and call the same functions as the
commands (answers.py, store.py): each tool's structured content is the document the
matching command prints with `--json`, its text a short markdown rendering, both within
a budget of characters (agents/text.py). The process stays up between calls, so its
imports, its repository handle and its full-text index stay warm; every call still
lists its source afresh (the index, a tree, and the memory files that differ from the
index: from git status, or from the kernel's events once git has answered,
agents/watch.py), so a memory edited by hand between two calls is seen.

Start-up: an agent waits for the answer to `initialize` (Gemini CLI gives up after 5 s),
and importing the SDK (pydantic, anyio, starlette, its generated types) takes most of a
second on a quiet machine and several under load. So this module imports neither, and
answers the requests of a connection's start from plain data: `initialize`, `ping` and
`tools/list`. A thread meanwhile imports the SDK and git-aide's read path. The first
message of any other kind (a tool call, or anything this loop does not recognise
exactly) hands the connection to the SDK's low-level server, replaying the client's
`initialize` and its notifications first, so that the SDK's session is in the state the
client believes; the SDK's second answer to `initialize` is dropped (the client has
ours, the same). From then on the protocol is the SDK's alone.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from git_aide import __version__
from git_aide.core.memory import LAYERS, PRIORITIES, SOURCES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    from git_aide.app.context import Context
    from git_aide.cache.folder import Cache
    from git_aide.cache.index import FullText
    from git_aide.gitio.repo import Repo
    from git_aide.gitio.spawn import Early
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    #: What a tool's work gives: its structured content and its text.
    Answer = tuple[dict[str, Any], str]

INSTRUCTIONS = """\
This repository's memory (git-aide): decisions, facts, preferences and team rules,
stored as files in .aide/memories/ and versioned with the code.
Before you change a file, call aide_recall with its path. When you learn something the
code does not show (a decision, a constraint, a gotcha), call aide_remember with a scope
glob where it applies. Layers: area_context (one code area, needs a scope), technical,
preferences, guidelines. rev reads any commit; aide_diff shows what a branch changed.
Answers are kept short: one that is cut says how many items it left out, their ids
(aide_recall takes them as ids) and the call that gets the rest."""

#: The protocol versions a client may ask for in `initialize` and get back as asked: the
#: handshake versions of the SDK git-aide requires (tests/test_mcp_start.py checks them
#: against it). A client asking for another version is answered by the SDK itself.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

#: What the SDK's low-level server announces for a server with tools only.
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}


# -- the tools, as the JSON Schema agents are given ------------------------------------------

def _param(type_: str, description: str | None = None, **more: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": type_}
    if description:
        schema["description"] = description
    schema.update(more)
    return schema


def _texts(description: str, item: dict[str, Any] | None = None) -> dict[str, Any]:
    return _param("array", description, items=item or {"type": "string"})


# Plain schemas only (types, enums, bounds, defaults): no anyOf, $defs or type lists,
# which some agents' model APIs refuse. A parameter left out or null takes its default.
_LAYER = _param("string", "One of the four layers", enum=list(LAYERS))
#: Where a cut answer continues (its `more` names the value to give).
_OFFSET = _param("integer", "Skip the first this many (to continue a cut answer)",
                 minimum=0, maximum=100000, default=0)
_REV = _param("string", "Read at this commit-ish (a branch, tag, sha, HEAD~3) instead of "
                        "the working tree")
_ID = _param("string", "A uuid, a unique uuid prefix of 4+ characters (the short ids "
                       "answers show), or an aide-memory integer id")
_PRIORITY = _param("string", "always: shown at every session start", enum=list(PRIORITIES))
_CONTRIBUTOR = _param("string", "Who wrote the memory (a name, or the agent's)")
# The tool annotations: what a client may assume (no tool reaches beyond the repository).
_READ = {"readOnlyHint": True, "openWorldHint": False}
_WRITE = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
          "openWorldHint": False}
_CHANGE = {**_WRITE, "destructiveHint": True}


def _tool(name: str, title: str, description: str, props: dict[str, dict[str, Any]],
          required: tuple[str, ...] = (), hints: dict[str, bool] | None = None
          ) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return {"name": name, "title": title, "description": description,
            "inputSchema": schema, "annotations": {"title": title, **(hints or _READ)}}


#: Every tool, as `tools/list` gives it (the SDK serves the same list once it runs).
TOOLS: list[dict[str, Any]] = [
    _tool("aide_recall", "Recall memories",
          "What to know before touching these paths: the memories scoped to them, most "
          "specific first (`git aide recall --json`); or the memories `ids` names.", {
              "paths": _texts("Files or folders you are about to read or change"),
              "query": _param("string", "Words to re-rank by"),
              "layers": _texts("Only these layers", {"type": "string",
                                                     "enum": list(LAYERS)}),
              "contributor": _CONTRIBUTOR,
              "limit": _param("integer", "At most this many memories", minimum=0,
                              maximum=1000, default=20),
              "ids": _texts("Fetch these memories by id instead (as answers name them)"),
              "rev": _REV,
          }),
    _tool("aide_search", "Search memories",
          "Where did we write about X? Full-text search, best first "
          "(`git aide search --json`).", {
              "keyword": _param("string", "Words to look for"),
              "layer": _LAYER,
              "limit": _param("integer", "At most this many memories", minimum=0,
                              maximum=1000, default=50),
              "offset": _OFFSET,
              "mode": _param("string", "Accepted for aide-memory prompts; git-aide always "
                                       "ranks by BM25 with a substring fallback"),
              "rev": _REV,
          }, required=("keyword",)),
    _tool("aide_memories", "List memories",
          "Every memory, by layer then scope, with filters (`git aide list --json`).", {
              "layer": _LAYER,
              "scope": _param("string", "Only memories whose scope starts with this text"),
              "contributor": _CONTRIBUTOR,
              "limit": _param("integer", "At most this many memories", minimum=0,
                              maximum=100000, default=50),
              "offset": _OFFSET,
              "rev": _REV,
          }),
    _tool("aide_remember", "Remember",
          "Store a memory in .aide/memories and stage it (`git aide remember --json`).", {
              "what": _param("string", "The memory itself, one fact or decision"),
              "layer": _LAYER,
              "scope": _param("string", "Where it applies: a glob such as src/auth/** "
                                        "(none: project-wide)"),
              "why": _param("string", "The reason, when the code does not show it"),
              "context_label": _param("string", "A short label for the area"),
              "contributor": _CONTRIBUTOR,
              "tags": _texts("Free-form tags"),
              "source": _param("string", "How the memory came about", enum=list(SOURCES),
                               default="conversation"),
              "shared": _param("boolean", "false: a personal preference (layer preferences "
                                          "only), kept out of git, never staged",
                               default=True),
              "priority": _PRIORITY,
          }, required=("what", "layer"), hints=_WRITE),
    _tool("aide_update", "Update a memory",
          "Change a memory and stage the change (`git aide update --json`).", {
              "id": _ID,
              "what": _param("string", "The new text"),
              "why": _param("string", "The new reason"),
              "scope": _param("string", "New scope glob ('' or 'project': project-wide)"),
              "context_label": _param("string", "The new label"),
              "priority": _PRIORITY,
          }, required=("id",), hints=_CHANGE),
    _tool("aide_forget", "Forget a memory",
          "Delete a memory and stage the removal (`git aide forget --json`).",
          {"id": _ID}, required=("id",), hints=_CHANGE),
    _tool("aide_import", "Import rules",
          "Turn rules text (CLAUDE.md, AGENTS.md, notes) into memories "
          "(`git aide import --json`); the answer names each new memory's id.", {
              "content": _param("string", "Markdown: each rule (a bullet, a paragraph) "
                                          "becomes one memory"),
              "layer": _LAYER,
              "scope": _param("string", "A glob the memories apply to (none: "
                                        "project-wide)"),
              "context_label": _param("string", "A short label for the area"),
          }, required=("content", "layer"), hints=_WRITE),
    _tool("aide_diff", "Diff memories",
          "Memories added, forgotten and changed between two sources "
          "(`git aide diff --json`).", {
              "args": _texts("As `git aide diff`: none (HEAD vs the working tree), REV, "
                             "REV REV2, A..B or A...B (what a branch adds: "
                             "origin/main...HEAD)"),
              "cached": _param("boolean", "Compare with the index (staged memories)",
                               default=False),
              "paths": _texts("Only memories whose scope or file these paths name"),
          }),
    _tool("aide_log", "Log of memories",
          "Commits that changed memories, newest first (`git aide log --json`).", {
              "revs": _texts("Revisions or ranges as `git log` takes them (default HEAD)"),
              "uuid": _param("string", "Follow one memory (a uuid or a unique prefix)"),
              "paths": _texts("Only memories whose scope or file these paths name"),
              "reverse": _param("boolean", "Oldest first", default=False),
              "limit": _param("integer", "At most this many commits", minimum=1),
              "skip": _param("integer", "Skip the first this many commits (to continue a "
                                        "cut answer)", minimum=0, default=0),
              "all": _param("boolean", "Walk every branch and tag (as git log --all)",
                            default=False),
          }),
]

_SCHEMAS: dict[str, dict[str, Any]] = {t["name"]: t["inputSchema"] for t in TOOLS}


# -- the arguments, checked against those schemas ---------------------------------------------

class ArgumentError(ValueError):
    """An argument the tool's schema does not allow, said in the parameter's own name."""


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _value(name: str, value: Any, schema: dict[str, Any], ids: bool = False) -> Any:
    """`value` as the schema wants it; the obvious spellings a model may send instead (a
    number as text, one string for a list) are taken as meant."""
    kind = schema["type"]
    if kind == "array":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise ArgumentError(f"{name}: expected a list, got {_shown(value)}")
        return [_value(f"{name}[{i}]", v, schema["items"], ids) for i, v in enumerate(value)]
    if kind == "string":
        if ids and isinstance(value, int) and not isinstance(value, bool):
            return value  # aide-memory's integer ids
        if not isinstance(value, str):
            raise ArgumentError(f"{name}: expected text, got {_shown(value)}")
        if "enum" in schema and value not in schema["enum"]:
            raise ArgumentError(f"{name}: {_shown(value)} is not one of "
                                f"{', '.join(schema['enum'])}")
        return value
    if kind == "integer":
        number = value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value)
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        if not isinstance(number, int) or isinstance(number, bool):
            raise ArgumentError(f"{name}: expected a whole number, got {_shown(value)}")
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and number < low:
            raise ArgumentError(f"{name}: {number} is less than {low}")
        if high is not None and number > high:
            raise ArgumentError(f"{name}: {number} is more than {high}")
        return number
    # boolean
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ArgumentError(f"{name}: expected true or false, got {_shown(value)}")
    return value


def check_arguments(tool: str, arguments: Any) -> dict[str, Any]:
    """Every parameter of `tool`, from `arguments` or its default (None when it has
    none); a missing, unknown or ill-typed one is an ArgumentError naming it."""
    schema = _SCHEMAS[tool]
    props: dict[str, dict[str, Any]] = schema["properties"]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError(f"the arguments must be an object, got {_shown(arguments)}")
    unknown = [k for k in arguments if k not in props]
    if unknown:
        raise ArgumentError(f"unknown parameter {_shown(unknown[0])}: {tool} takes "
                            f"{', '.join(props)}")
    out: dict[str, Any] = {}
    for name, prop in props.items():
        value = arguments.get(name)
        if value is None:
            if name in schema.get("required", ()):
                choices = f" (one of {', '.join(prop['enum'])})" if "enum" in prop else ""
                raise ArgumentError(f"{name} is required{choices}")
            out[name] = prop.get("default")
        else:
            out[name] = _value(name, value, prop, ids=name in ("id", "ids"))
    return out


#: CLI flags that messages from the shared code name, said as the tools' parameters.
_FLAGS = (("(--scope GLOB)", "(give scope, a glob such as src/auth/**)"),
          ("--personal", "shared=false"), ("--cached", "cached=true"), ("--all", "all=true"))


def speak(message: str) -> str:
    """An error of the shared code on one line, in the tools' terms: its CLI flags become
    parameter names (commands to run, in backquotes, are left as they are)."""
    import re

    parts = " ".join(message.split()).split("`")
    for i in range(0, len(parts), 2):  # outside backquotes
        part = parts[i]
        for flag, name in _FLAGS:
            part = part.replace(flag, name)
        parts[i] = re.sub(r"(?<![\w`-])--([a-z][a-z-]*)",
                          lambda m: m.group(1).replace("-", "_"), part)
    return "`".join(parts)


# -- the warm state and the tools' work -------------------------------------------------------

class Memory:
    """The warm state of one server process: the repository and its full-text index;
    and the context of the call under way (app/context.py), whose notices `call` says.

    Calls run one at a time, under `lock`, in the SDK's worker threads.
    """

    def __init__(self) -> None:
        self._repo: Repo | None = None
        self._index: FullText | None = None
        #: The context of the call under way: its repository and a cache handle.
        self._ctx: Context | None = None
        #: The views read lately, decoded: a state's entries never change (sources.load).
        self._warm: dict[Any, Any] = {}
        #: The memories folder under inotify, when it can be (None: git status each call).
        self._watch: Any = None
        #: Held by each call: one at a time.
        self.lock = threading.Lock()

    def context(self) -> Context:
        """The context of the call under way: the repository around the server's
        directory, its config read afresh for each call, and a cache handle of its own,
        so that packs other processes wrote count."""
        if self._ctx is None:
            from git_aide.app.context import Context
            from git_aide.cache.folder import Cache
            from git_aide.gitio.repo import open_repo
            from git_aide.gitio.spawn import CONFIG, spawn

            if self._repo is None:
                self._repo = open_repo()
            else:
                self._repo.reread_config(spawn(*CONFIG))
            self._ctx = Context(self._repo, Cache(self._repo.cache_dir))
        return self._ctx

    def repo(self) -> Repo:
        """The repository of the call under way."""
        return self.context().repo

    def cache(self, repo: Repo) -> Cache:
        """The cache handle of the call under way."""
        return self.context().cache

    def index(self, cache: Cache) -> FullText:
        """The full-text index, kept open; what it holds is read again each call."""
        from git_aide.app import search as sr

        if self._index is None:
            self._index = sr.open_index(cache)
        else:
            self._index.refresh()
        return self.context().noticed(self._index)

    def done(self) -> list[str]:
        """End the call under way: the notices its context gathered."""
        ctx, self._ctx = self._ctx, None
        return ctx.take_notices() if ctx is not None else []

    def read(self, rev: str | None = None) -> tuple[Repo, Cache, Snapshot]:
        """(repo, cache, snapshot) of the working tree, or of `rev`, as it is now."""
        from git_aide.gitio.repo import check_revision
        from git_aide.gitio.spawn import Early, resolve_query, spawn
        from git_aide.read.load import load as load_source

        changed: list[str] | None = None
        if rev is None:
            repo = self.repo()
            changed, asked = self._changes(repo)
        else:
            check_revision(rev)
            # Start git's question before anything else, as the command line does.
            asked = Early(resolve=spawn("cat-file", "--batch-check", input=resolve_query(rev)))
            repo = self.repo()
        cache = self.cache(repo)
        kind = "worktree" if rev is None else "rev"
        snap = load_source(repo, cache, kind, rev, asked=asked, warm=self._warm,
                           changed=changed)
        for line in snap.warnings:
            sys.stderr.write(f"git-aide: warning: {line}\n")
        return repo, cache, snap

    def _changes(self, repo: Repo) -> tuple[list[str] | None, Early]:
        """The memory files that may differ from the index, from the folder's watch
        (agents/watch.py); or, when git must say, its status started."""
        from git_aide.agents.watch import Watch
        from git_aide.cache.folder import stat_sig
        from git_aide.gitio.spawn import STATUS, Early, spawn
        from git_aide.read.listing import changed_paths

        top = repo.require_worktree("reading the working tree")
        wanted = repo.settings.mcp_watch
        if self._watch is not None and (not wanted or self._watch.top != top):
            self._watch.close()
            self._watch = None
        if wanted and self._watch is None:
            self._watch = Watch(top)
        watch = self._watch
        if watch is None:
            return None, Early(status=spawn(*STATUS))
        changed = watch.changed(repo.index_file)
        if changed is not None:
            return changed, Early()
        watching = watch.prepare()
        sig = stat_sig(repo.index_file)
        status = spawn(*STATUS)
        if not watching:
            return None, Early(status=status)
        paths = changed_paths(top, status)
        watch.baseline(repo.index_file, sig, paths)
        return paths, Early()


def find(snap: Snapshot, ident: str | int) -> Entry:
    """The memory an id names: a uuid or unique prefix, or aide-memory's integer `id`."""
    from git_aide.core import ids

    entries = snap.entries

    def number(n: int) -> str | None:
        return next((e.uuid for e in entries if e.record.get("id") == n), None)

    uuid = ids.resolve(ident if isinstance(ident, int) else str(ident).strip(),
                       (e.uuid for e in entries), number)
    return next(e for e in entries if e.uuid == uuid)


def budget(repo: Repo) -> int:
    """The characters one answer may hold (git config aide.mcp.maxChars)."""
    return repo.settings.mcp_max_chars


def _memories(repo: Repo, snap: Snapshot, hits: list[Any],
              hint: str | Callable[[int], str], empty: str = "No memories.") -> Answer:
    """The recall / search / list answer for `hits`, within the budget."""
    from git_aide.agents.text import bound, memories_text
    from git_aide.app import answers

    cap = budget(repo)
    doc = bound(answers.memories_doc(snap, hits), ("memories",), cap, hint)
    return doc, memories_text(doc, empty=empty, budget=cap)


def aide_recall(mem: Memory, a: dict[str, Any]) -> Answer:
    """The memories relevant to paths (as `recall --json`), or those `ids` names."""
    from git_aide.app import answers
    from git_aide.rank.recall import Hit

    repo, cache, snap = mem.read(a["rev"])
    if a["ids"]:
        chosen: dict[str, Entry] = {}
        for ident in a["ids"]:
            e = find(snap, ident)
            chosen.setdefault(e.uuid, e)
        hits = [Hit(e, e.scope) for e in chosen.values()]
    else:
        query = a["query"]
        ft = mem.index(cache) if query and query.strip() else None
        hits = answers.recall_hits(repo, cache, snap, a["paths"] or [], query=query,
                                   layers=a["layers"] or (), contributor=a["contributor"],
                                   limit=a["limit"], index=ft)
    at = f', "rev": {json.dumps(a["rev"])}' if a["rev"] else ""
    return _memories(repo, snap, hits,
                     'aide_recall {"ids": [these ids]' + at + "} returns them")


def aide_search(mem: Memory, a: dict[str, Any]) -> Answer:
    """Full-text search, best first, from `offset` on (as `search --json`)."""
    from git_aide.app import answers

    repo, cache, snap = mem.read(a["rev"])
    ft = mem.index(cache)
    skip = a["offset"]
    hits = answers.search_hits(repo, snap, ft, a["keyword"],
                               layers=[a["layer"]] if a["layer"] else [],
                               limit=a["limit"] + skip)[skip:]
    return _memories(repo, snap, hits,
                     lambda n: f'call aide_search again with "offset": {skip + n}',
                     empty=f"Nothing matches {a['keyword']!r}.")


def aide_memories(mem: Memory, a: dict[str, Any]) -> Answer:
    """Every memory that passes the filters, from `offset` on (as `list --json`)."""
    from git_aide.app import answers

    repo, _cache, snap = mem.read(a["rev"])
    hits = answers.list_hits(snap, layers=[a["layer"]] if a["layer"] else [],
                             contributor=a["contributor"])
    if a["scope"] is not None:
        hits = [h for h in hits if (h.entry.scope or "project").startswith(a["scope"])]
    skip = a["offset"]
    return _memories(repo, snap, hits[skip:skip + a["limit"]],
                     lambda n: f'call aide_memories again with "offset": {skip + n}')


def _written(repo: Repo, doc: dict[str, Any], text: str) -> Answer:
    """A writing tool's answer: its document and text with its warnings, in budget."""
    from git_aide.agents.text import bound, cap

    limit = budget(repo)
    doc = bound(doc, ("warnings",), limit, "")
    said = "".join(f"\nwarning: {speak(x)}" for x in doc.get("warnings", ()))
    return doc, cap(text + said, limit)


def aide_remember(mem: Memory, a: dict[str, Any]) -> Answer:
    """Store a memory and stage it (as `remember --json`)."""
    from git_aide.app import answers, store
    from git_aide.core.errors import AideError

    if not a["shared"] and a["layer"] != "preferences":
        # As `remember --personal` with another layer: a private memory that is shared
        # and staged anyway would be committed behind the agent's back.
        raise AideError("shared=false makes a personal preference, which cannot go in "
                        f"layer {a['layer']}: use layer preferences to keep it private, "
                        "or shared=true to share it with the team")
    repo = mem.repo()
    w = store.remember(repo, mem.cache(repo), a["what"], why=a["why"], layer=a["layer"],
                       scope=a["scope"], tags=a["tags"] or [], label=a["context_label"],
                       personal=not a["shared"], priority=a["priority"] or "normal",
                       source=a["source"], contributor=a["contributor"])
    verb = "Remembered" if w.created else "Already remembered as"
    return _written(repo, answers.remember_doc(w), f"{verb} `{w.uuid[:8]}` in {w.path}.")


def aide_update(mem: Memory, a: dict[str, Any]) -> Answer:
    """Change a memory and stage it (as `update --json`)."""
    from git_aide.app import answers, store
    from git_aide.core.errors import AideError

    fields = ("what", "why", "scope", "context_label", "priority")
    if all(a[f] is None for f in fields):
        raise AideError("nothing to change: give what, why, scope, context_label or "
                        "priority")
    repo, cache, snap = mem.read()
    uuid = find(snap, a["id"]).uuid
    w = store.update(repo, cache, uuid, what=a["what"], why=a["why"], scope=a["scope"],
                     label=a["context_label"], priority=a["priority"])
    return _written(repo, answers.update_doc(w), f"Updated `{w.uuid[:8]}` in {w.path}.")


def aide_forget(mem: Memory, a: dict[str, Any]) -> Answer:
    """Delete a memory and stage the removal (as `forget --json`)."""
    from git_aide.app import answers, store

    repo, cache, snap = mem.read()
    uuid = find(snap, a["id"]).uuid
    gone, staged, _warnings = store.forget(repo, cache, [uuid])
    return _written(repo, answers.forget_doc(gone, staged),
                    "\n".join(f"Forgot `{u[:8]}`." for u in gone))


def aide_import(mem: Memory, a: dict[str, Any]) -> Answer:
    """Rules text as memories (as `import --json`), each named by its id."""
    from git_aide.agents.rules import import_text
    from git_aide.agents.text import bound
    from git_aide.agents.text import import_text as render

    repo = mem.repo()
    doc = import_text(repo, mem.cache(repo), a["content"], name="import", layer=a["layer"],
                      scope=a["scope"], context_label=a["context_label"])
    doc["warnings"] = [speak(w) for w in doc.get("warnings", [])]
    limit = budget(repo)
    # Every list the document has, in its order: the memories made first.
    lists = [k for k, v in doc.items() if isinstance(v, list)]
    doc = bound(doc, lists, limit, 'aide_recall {"ids": [these ids]} returns them; '
                                   "aide_memories lists them all")
    return doc, render(doc, limit)


def aide_diff(mem: Memory, a: dict[str, Any]) -> Answer:
    """What changed between two sources (as `diff --json`)."""
    from git_aide.agents.text import bound, diff_text
    from git_aide.app.diff import diff_doc

    repo = mem.repo()
    doc = diff_doc(repo, mem.cache(repo), list(a["args"] or []), cached=a["cached"],
                   paths=tuple(a["paths"] or ()))
    limit = budget(repo)
    doc = bound(doc, ("added", "forgotten", "changed"), limit,
                'aide_recall {"ids": [these ids]} shows an added or changed memory; '
                "aide_diff with paths narrows the comparison")
    return doc, diff_text(doc, limit)


def aide_log(mem: Memory, a: dict[str, Any]) -> Answer:
    """The commits that changed memories (as `log --json`), from `skip` on."""
    from git_aide.agents.text import bound_log, log_text
    from git_aide.app.log import log_doc

    repo = mem.repo()
    skip, limit, reverse = a["skip"], a["limit"], a["reverse"]
    # No revisions is `git aide log`'s default (HEAD, or nothing before the first
    # commit), not a literal HEAD that git would refuse there. `skip` counts from the
    # newest, as `git log --skip` does before --reverse.
    doc = log_doc(repo, mem.cache(repo), list(a["revs"] or []), uuid=a["uuid"],
                  paths=tuple(a["paths"] or ()), reverse=reverse and not skip,
                  limit=None if limit is None else limit + skip, all_refs=a["all"])
    if skip:
        doc["commits"] = doc["commits"][skip:]
        if reverse:
            doc["commits"].reverse()
    total = len(doc["commits"])

    def hint(shown: int) -> str:
        # Oldest first, the newer commits are the rest: the same skip, a smaller limit.
        more = ({"skip": skip, "limit": total - shown} if reverse
                else {"skip": skip + shown} | ({"limit": limit - shown} if limit else {}))
        return (f"call aide_log again with {json.dumps(more)[1:-1]} (and the same revs, "
                "uuid and paths)")

    cap = budget(repo)
    doc = bound_log(doc, cap, hint)
    return doc, log_text(doc, cap)


#: Each tool's work: the checked arguments in, (structured content, text) out.
WORK: dict[str, Callable[[Memory, dict[str, Any]], Answer]] = {
    "aide_recall": aide_recall, "aide_search": aide_search, "aide_memories": aide_memories,
    "aide_remember": aide_remember, "aide_update": aide_update, "aide_forget": aide_forget,
    "aide_import": aide_import, "aide_diff": aide_diff, "aide_log": aide_log,
}


def call(mem: Memory, name: str, arguments: Any) -> tuple[str, dict[str, Any] | None, bool]:
    """One tool call: (text, structured content, is it an error). Never raises: any
    failure is a tool error of one line (app/boundary.py), and the server lives on. The
    cache's notices go to the agent's log (stderr), as the snapshots' warnings do."""
    from git_aide.app.boundary import failure, notice_line

    with mem.lock:
        try:
            doc, text = WORK[name](mem, check_arguments(name, arguments))
            return text, doc, False
        except ArgumentError as e:
            return speak(str(e))[:2000], None, True
        except Exception as e:  # noqa: BLE001 -- the server outlives any one call
            message, _status = failure(e)
            return speak(message or type(e).__name__)[:2000], None, True
        finally:
            line = notice_line(mem.done())
            if line is not None:
                sys.stderr.write(line + "\n")


# -- the SDK's server ---------------------------------------------------------------------------

def build(memory: Memory | None = None) -> Any:
    """The SDK's low-level server with the tools (imports the SDK: not on the way to the
    first answers)."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    mem = memory or Memory()
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in TOOLS])

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listed

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in WORK:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        text, doc, failed = await anyio.to_thread.run_sync(call, mem, params.name,
                                                           params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=doc, is_error=failed)

    return Server("git-aide", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def _warm_up() -> Any:
    """What the first tool call needs: the SDK and its server, and git-aide's read path."""
    server = build()
    import git_aide.agents.text  # noqa: F401
    import git_aide.app.answers  # noqa: F401
    import git_aide.app.diff  # noqa: F401
    import git_aide.app.log  # noqa: F401
    import git_aide.app.search  # noqa: F401
    import git_aide.app.store  # noqa: F401
    import git_aide.read.load  # noqa: F401
    from git_aide.gitio.repo import load_reader

    load_reader()
    return server


class _Warm:
    """_warm_up() run in a thread, started once `initialize` is answered."""

    def __init__(self) -> None:
        #: The thread, once started.
        self._thread: threading.Thread | None = None
        #: The SDK's server it built.
        self._server: Any = None
        #: Why it could not, said at the first call.
        self._error: BaseException | None = None

    def _run(self) -> None:
        try:
            self._server = _warm_up()
        except BaseException as e:  # noqa: BLE001 -- said at the first call, not lost
            self._error = e

    def start(self) -> None:
        """Begin in a daemon thread: a client that only lists the tools and leaves is
        not kept waiting for it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="git-aide-warm-up",
                                            daemon=True)
            self._thread.start()

    def server(self) -> Any:
        """The SDK's server, waiting for the thread (or building it here, not started)."""
        if self._thread is None:
            self._run()
        else:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._server


# -- the start of a connection, answered without the SDK ------------------------------------------

def _wire() -> tuple[BinaryIO, BinaryIO]:
    """The client's pipes on descriptors of their own; fd 0 then reads nothing and fd 1
    writes to stderr, so that no child process or stray print can corrupt the protocol
    (as the SDK's own stdio transport does)."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:
        return sys.stdin.buffer, sys.stdout.buffer
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


def _same_id(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


class Start:
    """The requests of a connection's start, answered from plain data until a message
    needs the SDK; what the SDK must be given again is kept in `replay`."""

    def __init__(self, out: BinaryIO) -> None:
        #: The client's end of the wire.
        self.out = out
        #: The client's lines the SDK is given before the rest: its initialize and the
        #: notifications that followed.
        self.replay: list[bytes] = []
        #: The id of the client's initialize, once answered here.
        self.init_id: Any = None
        #: Whether this loop answered the client's initialize.
        self.initialized = False
        #: The SDK and the read path, loading once initialize is answered.
        self.warm = _Warm()

    def send(self, msg: dict[str, Any]) -> None:
        """One JSON-RPC message to the client, on its own line."""
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.out.write(line.encode("utf-8"))
        self.out.flush()

    def initialize(self, params: Any) -> dict[str, Any] | None:
        """The result of `initialize`, as the SDK gives it; None when the SDK must
        answer (a version or a shape this loop does not know)."""
        if not isinstance(params, dict) or params.get("protocolVersion") not in \
                HANDSHAKE_VERSIONS or not isinstance(params.get("capabilities"), dict):
            return None
        info = params.get("clientInfo")
        if not (isinstance(info, dict) and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)):
            return None
        return {"protocolVersion": params["protocolVersion"], "capabilities": CAPABILITIES,
                "serverInfo": {"name": "git-aide", "version": __version__},
                "instructions": INSTRUCTIONS}

    def answer(self, line: bytes) -> bool:
        """Answer `line` here; False when the SDK must take it (and all that follows)."""
        try:
            msg = json.loads(line)
        except ValueError:
            return False
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" \
                or not isinstance(msg.get("method"), str):
            return False
        method = msg["method"]
        if "id" not in msg:  # a notification: the SDK's, once it runs
            if not self.initialized:
                return False
            self.replay.append(line)
            return True
        mid = msg["id"]
        if isinstance(mid, bool) or not isinstance(mid, (str, int)):
            return False
        params = msg.get("params")
        if method == "ping" and (params is None or isinstance(params, dict)):
            self.send({"jsonrpc": "2.0", "id": mid, "result": {}})
            return True
        if method == "initialize" and not self.initialized:
            result = self.initialize(params)
            if result is None:
                return False
            self.send({"jsonrpc": "2.0", "id": mid, "result": result})
            self.replay.append(line)
            self.init_id, self.initialized = mid, True
            self.warm.start()
            return True
        if method == "tools/list" and self.initialized and (
                params is None or (isinstance(params, dict) and "cursor" not in params)):
            self.send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
            return True
        return False

    def refuse(self, line: bytes, message: str) -> None:
        """Answer the request in `line` with an internal error, so that the client is not
        left waiting on a server that cannot go on."""
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if isinstance(msg, dict) and "id" in msg and "method" in msg:
            self.send({"jsonrpc": "2.0", "id": msg["id"],
                       "error": {"code": -32603, "message": message}})


def _handover(reader: BinaryIO, start: Start, line: bytes) -> int:
    """Serve the rest of the connection with the SDK, from `line` on."""
    from typing import IO, cast

    try:
        server = start.warm.server()
        import anyio
        from mcp.server.stdio import stdio_server
    except Exception as e:  # noqa: BLE001 -- one line for the agent's log
        message = f"the MCP SDK cannot be loaded: {type(e).__name__}: {e}"
        start.refuse(line, message)
        sys.stderr.write(f"git-aide: error: {message}\n")
        return 1

    import io

    class Replayed:
        """The client's lines for the SDK: those answered here first, then the pipe."""

        def __init__(self) -> None:
            self.lines = [x.decode("utf-8", "replace") for x in (*start.replay, line)]
            self.pipe = io.TextIOWrapper(reader, encoding="utf-8", errors="replace")

        def readline(self) -> str:
            return self.lines.pop(0) if self.lines else self.pipe.readline()

    class Answers:
        """The SDK's messages for the client, less its answer to the replayed initialize."""

        def __init__(self) -> None:
            self.dropping = start.initialized
            self.pending = ""

        def write(self, text: str) -> int:
            self.pending += text
            while "\n" in self.pending:
                one, self.pending = self.pending.split("\n", 1)
                if not self.dropping or not self._dropped(one):
                    start.out.write((one + "\n").encode("utf-8"))
            return len(text)

        def _dropped(self, one: str) -> bool:
            try:
                msg = json.loads(one)
            except ValueError:
                return False
            if not (isinstance(msg, dict) and "method" not in msg
                    and _same_id(msg.get("id"), start.init_id)):
                return False
            self.dropping = False
            if "error" in msg:  # the client was told yes: say it where it can be read
                sys.stderr.write("git-aide: warning: the MCP SDK refused the replayed "
                                 f"initialize: {msg['error']}\n")
            return True

        def flush(self) -> None:
            start.out.flush()

    async def serve() -> None:
        # anyio needs only readline, write and flush of the files it wraps.
        async with stdio_server(stdin=anyio.wrap_file(cast(IO[str], Replayed())),
                                stdout=anyio.wrap_file(cast(IO[str], Answers()))) as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(serve)
    return 0


def main() -> int:
    """Serve on stdio until the client goes away."""
    reader, writer = _wire()
    start = Start(writer)
    try:
        while True:
            line = reader.readline()
            if not line:
                return 0  # the client left before any tool call
            if not start.answer(line):
                return _handover(reader, start, line)
    except BrokenPipeError:
        return 0  # the client left while it was being answered: nobody to tell
    except KeyboardInterrupt:
        return 130
