"""`git aide mcp`: the MCP server on stdio (docs/agents.md).

The tools keep aide-memory's names and parameters, and call the same functions as the
commands (answers.py, store.py). A read tool's structured content is a compact document
of the memories by default (agents/mcp/text.py's compact()), and with `detail: "full"` the
document the matching command prints with `--json`; its text is a short markdown
rendering; both within a budget of characters (agents/mcp/text.py). The process stays up
between calls, so its imports, its repository handle and its full-text index stay warm
(warm/state.py's ServerState); every call learns what changed in its source (the index, a
tree, and the memory files that differ from the index: from git status, or from the
kernel's events once git has answered, warm/watch.py), so a memory edited by hand
between two calls is seen; and while nothing a reading tool's answer depends on
changed, an identical call gets the same answer again without working it out
(warm/state.py).

The start of a connection is answered before the SDK is imported
(agents/mcp/handshake.py); the tools' schema is agents/mcp/schema.py's.

Nine tools' work over one warm state, each a few lines that call app/ and shape its
answer for an agent.
"""

from __future__ import annotations

import json
import os
import sys

from git_aide import __version__
from git_aide.agents.mcp.schema import (
    DEFAULT_TOOLS,
    INSTRUCTIONS,
    TOOLS,
    ArgumentError,
    check_arguments,
    speak,
)
from git_aide.warm.kept_answers import call_key
from git_aide.warm.state import ServerState

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from git_aide.agents.rules.afterwrite import Followed
    from git_aide.agents.setup.native import Loaded
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry
    from git_aide.read.snapshot import Snapshot

    #: What a tool's work gives: its structured content and its text.
    Answer = tuple[dict[str, Any], str]
    #: What an agent holds already: short ids, the files it opened (repo-relative), and
    #: what its own rules files hold.
    Given = tuple[frozenset[str], tuple[str, ...], Callable[[], Loaded | None]]


def find(snap: Snapshot, ident: str | int) -> Entry:
    """The memory an id names: a uuid or unique prefix, or aide-memory's integer `id`
    (app/store.py's find, as the commands)."""
    from git_aide.app.store import find as find_entry

    return find_entry(snap.entries, ident)


def budget(repo: Repo) -> int:
    """The characters one answer may hold (git config aide.mcp.maxChars)."""
    return repo.settings.mcp_max_chars


def _memories(repo: Repo, snap: Snapshot, hits: list[Any], full: bool,
              hint: str | Callable[[int], str], bases: dict[tuple[str, str], int],
              empty: str = "No memories.", ranked: bool = True,
              given: Given | None = None, gave: list[str] | None = None) -> Answer:
    """The recall / search / list answer for `hits`, within the budget: compact, or
    `full`, the command's --json document. `given`: what the agent holds already (its
    short ids, and what its rules files hold): left out of a compact answer, named in
    its `given`. `gave`: gets the uuids of the memories the answer holds. `bases`: the
    server's sizes of the memories' items, kept between calls (ServerState.item_sizes,
    text.memory_size)."""
    from git_aide.agents.mcp.text import (
        bound,
        compact,
        compact_source,
        fitting,
        memories_text,
        memory_size,
        short,
    )
    from git_aide.app import answers

    cap = budget(repo)
    # Only the memories that may fit are made (parsed, shaped and measured).
    sizes: dict[int, int] = {}
    if full:
        items = fitting(hits, answers.memory_doc, lambda h: {"uuid": h.entry.uuid}, cap,
                        sizes, lambda h, item: memory_size(bases, (h.entry.path, h.entry.blob),
                                                           item))
        doc = answers.memories_doc(snap, hits, items)
    else:
        held: list[str] = []
        if given is not None:
            ids, _opened, reads = given
            loaded = reads()  # read only when the answer is worked out, not when kept
            fresh = []
            for h in hits:
                if h.entry.uuid[:8] in ids or (loaded is not None and loaded.has(h.entry.record)):
                    held.append(h.entry.uuid[:8])
                else:
                    fresh.append(h)
            hits = fresh
        items = fitting(hits, compact, lambda h: {"id": short(h.entry.uuid)}, cap, sizes)
        doc = {**compact_source(snap.source.as_json()), "memories": items}
        if held:
            doc["given"] = held[:GIVEN_NAMED]
    doc = bound(doc, ("memories",), cap, hint, sizes)
    if gave is not None:  # bound() keeps the first memories
        gave.extend(h.entry.uuid for h in hits[:len(doc["memories"])])
    text = memories_text(doc, empty=empty if not doc.get("given") else
                         "Nothing new.", budget=cap, ranked=ranked)
    if doc.get("given"):
        text += ("\nAlready in your context: " + ", ".join(f"`{i}`" for i in doc["given"]))
    return doc, text


#: The most ids a compact answer names of the memories the agent holds already.
GIVEN_NAMED = 20


def _given(mem: ServerState, a: dict[str, Any], paths: list[str]) -> Given | None:
    """Return what the agent holds already, for a compact answer by paths or words: the
    memories its session's hooks gave it (the session record started since the server
    did, when it is the only one), and what its own rules files hold (its client named in
    `initialize`, read when asked), those it loaded on opening the files its hooks saw
    included; None for a full answer or by ids. (What this
    connection's own answers gave is given again: an agent asks again for what it no
    longer holds.)"""
    if _full(a) or a.get("ids"):
        return None
    ids: set[str] = set()
    repo = mem.repo()
    record = _session_record(mem)
    opened: list[str] = []
    if record is not None:
        from git_aide.agents.hooks.sessions import opened_in

        ids.update(u[:8] for u in record.get("seen", ()) if isinstance(u, str))
        opened = opened_in(record)
    agent, top = _agent_of(mem.client), repo.worktree

    def reads() -> Loaded | None:
        if agent is None or top is None:
            return None
        from git_aide.agents.setup import native

        rels = [os.path.relpath(os.path.abspath(p), top) for p in paths]
        # the rules files it loaded on opening files (its hooks saw them) are held too
        rels = list(dict.fromkeys(opened + rels))
        loaded = native.loaded(agent, top, [r for r in rels if not r.startswith("..")])
        return loaded if loaded.files else None

    return frozenset(ids), tuple(opened), reads


def _agent_of(client: str | None) -> str | None:
    """Return the agent a client's `initialize` name says (None: another client)."""
    name = (client or "").lower()
    for word, agent in (("claude", "claude"), ("codex", "codex"), ("gemini", "gemini"),
                        ("cursor", "cursor"), ("copilot", "copilot"),
                        ("visual studio code", "vscode")):
        if word in name:
            return agent
    return None



def _full(a: dict[str, Any]) -> bool:
    """Whether a read tool's call asks for whole records: `detail: "full"`, or, left
    out, an aide_recall by ids (the memories an agent names, to see them whole)."""
    detail = a.get("detail")
    return detail == "full" if detail is not None else bool(a.get("ids"))


def _kept(mem: ServerState, name: str, a: dict[str, Any], work: Callable[[], Answer],
          full_text: bool = False, more: Any = ()) -> Answer:
    """`work()`'s answer on the working tree, or the one an identical call got while
    nothing it depends on changed since (warm/state.py); a revision's is worked out.
    `full_text`: the answer depends on the full-text index; `more`: on these too."""
    from git_aide.app.context import index_state

    if a.get("rev") is not None:
        return work()
    state = mem.state(full_text)
    key = call_key(name, a, more)
    kept = mem.answers.get(state, key)
    if kept is not None:
        doc, text, counted, said = kept
        for line in said:
            sys.stderr.write(f"git-aide: warning: {line}\n")
        mem.counted = None if counted is None else (counted[0], list(counted[1]))
        return doc, text
    doc, text = work()
    # A search adds the documents the index lacked: the answer is kept for the state of
    # the index it left. (A memory file changed meanwhile is an event the next call's
    # state reads: that state is another, and this answer is not given for it.)
    if state is not None and full_text:
        state = mem.answers.enter((*state[:-1], index_state(mem.context().cache)))
    mem.answers.put(state, key, (doc, text, mem.counted, list(mem.said)))
    return doc, text


def aide_recall(mem: ServerState, a: dict[str, Any]) -> Answer:
    """The memories relevant to paths (as `recall --json`), or those `ids` names."""
    from git_aide.app import answers

    query = a["query"]
    asks = bool(query and query.strip()) and not a["ids"]
    more = () if a["ids"] or a["rev"] else answers.query_key(mem.repo(), a["paths"] or [])
    always = not a["ids"] and _always_wanted(mem)
    given = _given(mem, a, a["paths"] or [])
    return _kept(mem, "aide_recall", a, lambda: _recall(mem, a, always, given), asks,
                 (*more, always, given and given[:2]))


#: How long before the server started a session start may have come (an agent runs its
#: SessionStart hooks and starts its MCP servers at once).
SESSION_START_SLACK = 120.0


def _always_wanted(mem: ServerState) -> bool:
    """Return whether a recall should bring the always-on memories: once a connection,
    and not when a session-start hook gave them to this session already (a session
    record started since the server did)."""
    if mem.always_given:
        return False
    if _session_records(mem):
        mem.always_given = True
        return False
    return True


def _session_records(mem: ServerState) -> list[dict[str, Any]]:
    """Return the hooks' session records started since the server did (its agent's
    session, when one agent works in the repository)."""
    from git_aide.agents.hooks.sessions import started_since

    return started_since(mem.repo().cache_dir, mem.born - SESSION_START_SLACK)


def _session_record(mem: ServerState) -> dict[str, Any] | None:
    """Return this connection's session record: the only one started since the server
    did (two agents at work in one repository: neither, to be safe)."""
    records = _session_records(mem)
    return records[0] if len(records) == 1 else None


def _recall(mem: ServerState, a: dict[str, Any], always: bool = False,
            given: Given | None = None) -> Answer:
    from git_aide.app import answers

    repo, cache, snap = mem.read(a["rev"])
    if a["ids"]:
        chosen: dict[str, Entry] = {}
        for ident in a["ids"]:
            e = find(snap, ident)
            chosen.setdefault(e.uuid, e)
        hits = answers.chosen_hits(list(chosen.values()))
    else:
        query = a["query"]
        ft = mem.index(cache) if query and query.strip() else None
        hits = answers.recall_hits(repo, cache, snap, a["paths"] or [], query=query,
                                   layers=a["layers"] or (), tags=a["tags"] or (),
                                   contributor=a["contributor"],
                                   limit=a["limit"], index=ft, count=False,
                                   semantic=mem.semantic(repo, cache) if ft else None,
                                   always=always, memo=mem.memo)
        if always and a["rev"] is None:
            mem.always_given = True
    full = _full(a)
    # By ids, the answer is whole records unless told: a compact answer's rest is asked
    # compact.
    at = (f', "rev": {json.dumps(a["rev"])}' if a["rev"] else "") + \
        ("" if full else ', "detail": "compact"')
    gave: list[str] = []
    answer = _memories(repo, snap, hits, full,
                       'aide_recall {"ids": [these ids]' + at + "} returns them",
                       mem.item_sizes, given=given, gave=gave)
    mem.counted = ("recall", gave)
    return answer


def aide_search(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Full-text search, best first, from `offset` on (as `search --json`)."""
    given = _given(mem, a, [])
    return _kept(mem, "aide_search", a, lambda: _search(mem, a, given), True,
                 (given and given[:2],))


def _search(mem: ServerState, a: dict[str, Any], given: Given | None = None) -> Answer:
    from git_aide.app import answers
    from git_aide.app.semantic import MODES

    repo, cache, snap = mem.read(a["rev"])
    ft = mem.index(cache)
    skip = a["offset"]
    limit = a["limit"] if a["limit"] is not None else repo.settings.search_limit
    # aide-memory's prompts may send another word: read liberally, as "auto".
    mode = str(a.get("mode")) if a.get("mode") in MODES else "auto"
    hits = answers.search_hits(repo, snap, ft, a["keyword"],
                               layers=[a["layer"]] if a["layer"] else [],
                               tags=a["tags"] or (), contributor=a["contributor"],
                               limit=limit + skip, mode=mode,
                               semantic=mem.semantic(repo, cache), memo=mem.memo)[skip:]
    gave: list[str] = []
    answer = _memories(repo, snap, hits, _full(a),
                       lambda n: f'call aide_search again with "offset": {skip + n}',
                       mem.item_sizes, empty=f"Nothing matches {a['keyword']!r}.",
                       given=given, gave=gave)
    mem.counted = ("search", gave)
    return answer


def aide_memories(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Every memory that passes the filters, from `offset` on (as `list --json`)."""
    return _kept(mem, "aide_memories", a, lambda: _listed(mem, a))


def _listed(mem: ServerState, a: dict[str, Any]) -> Answer:
    from git_aide.app import answers

    repo, _cache, snap = mem.read(a["rev"])
    hits = answers.list_hits(snap, layers=[a["layer"]] if a["layer"] else [],
                             tags=a["tags"] or (), contributor=a["contributor"],
                             scope=a["scope"], priority=a["priority"], by=a["by"],
                             generated_by=a["generated_by"])
    skip = a["offset"]
    gave: list[str] = []
    answer = _memories(repo, snap, hits[skip:skip + a["limit"]], _full(a),
                       lambda n: f'call aide_memories again with "offset": {skip + n}',
                       mem.item_sizes, ranked=False, gave=gave)
    mem.counted = ("list", gave)
    return answer


def _written(repo: Repo, doc: dict[str, Any], text: str, then: Followed | None = None
             ) -> Answer:
    """A writing tool's answer: its document and text with its warnings, in budget;
    `then`: what followed the write (the rules files aide.export.auto refreshed)."""
    from git_aide.agents.mcp.text import bound, cap

    if then is not None:
        if then.exported:
            doc = {**doc, "exported": then.exported}
            text += "".join(f"\nRules file {line}." for line in then.lines)
        if then.warnings:
            doc = {**doc, "warnings": [*doc.get("warnings", ()), *then.warnings]}
    limit = budget(repo)
    doc = bound(doc, ("warnings",), limit, "")
    said = "".join(f"\nwarning: {speak(x)}" for x in doc.get("warnings", ()))
    return doc, cap(text + said, limit)


def aide_remember(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Store a memory and stage it (as `remember --json`)."""
    from git_aide.agents.rules.afterwrite import after_write, shared
    from git_aide.app import answers, store
    from git_aide.core.errors import AideError

    if a["user"]:
        return _remember_user(mem, a)
    if not a["shared"] and a["layer"] != "preferences":
        # As `remember --personal` with another layer: a private memory that is shared
        # and staged anyway would be committed behind the agent's back.
        raise AideError("shared=false makes a personal preference, which cannot go in "
                        f"layer {a['layer']}: use layer preferences to keep it private, "
                        "or shared=true to share it with the team")
    repo = mem.repo()
    cache = mem.cache(repo)
    w = store.remember(repo, cache, a["what"], why=a["why"], layer=a["layer"],
                       scope=a["scope"], tags=a["tags"] or [], label=a["context_label"],
                       personal=not a["shared"], priority=a["priority"] or "normal",
                       source=a["source"], contributor=a["contributor"],
                       generated_by=mem.generated_by(), force=a["force"], merge=a["merge"],
                       semantic=mem.semantic(repo, cache) if a["merge"] else None)
    then = after_write(repo, cache, "remember", "mcp", [w.uuid],
                       changed=(w.created or w.merged is not None) and shared(w.record))
    if w.merged is not None:
        short = w.uuid[:8]
        return _written(repo, answers.remember_doc(w), (
            f"Merged into `{short}`, a near duplicate ({w.merged.said()}), in {w.path}: it "
            f"now says this, tags and scopes joined (`git aide log --uuid {short}` shows what "
            "it said; merge=false keeps both)."), then)
    verb = "Remembered" if w.created else "Already remembered as"
    return _written(repo, answers.remember_doc(w), f"{verb} `{w.uuid[:8]}` in {w.path}.",
                    then)


def _remember_user(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Store aide_remember's memory in the user's own store (app/userstore.py)."""
    from git_aide.app import answers, userstore
    from git_aide.core.errors import AideError

    if not a["shared"]:
        raise AideError("user=true and shared=false go apart: a user memory is the user's "
                        "in every repository, a personal one in this one")
    w = userstore.remember(a["what"], why=a["why"], layer=a["layer"], scope=a["scope"],
                           tags=a["tags"] or [], label=a["context_label"],
                           priority=a["priority"] or "normal", source=a["source"],
                           contributor=a["contributor"], generated_by=mem.generated_by(),
                           force=a["force"])
    verb = "Remembered" if w.created else "Already remembered as"
    return _written(mem.repo(), answers.remember_doc(w),
                    f"{verb} `{w.uuid[:8]}` in the user's own store.")


def aide_update(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Change a memory and stage it (as `update --json`)."""
    from git_aide.agents.rules.afterwrite import after_write, shared
    from git_aide.app import answers, store
    from git_aide.core.errors import AideError

    fields = ("what", "why", "scope", "add_tags", "remove_tags", "layer", "context_label",
              "priority")
    if all(a[f] is None or a[f] == [] for f in fields):
        raise AideError("nothing to change: give what, why, scope, add_tags, remove_tags, "
                        "layer, context_label or priority")
    from git_aide.app import userstore

    repo, cache, snap = mem.read()
    entry = find(snap, a["id"])
    changes = dict(what=a["what"], why=a["why"], scope=a["scope"],
                   add_tags=a["add_tags"] or [], remove_tags=a["remove_tags"] or [],
                   layer=a["layer"], label=a["context_label"], priority=a["priority"],
                   generated_by=mem.generated_by(), force=a["force"])
    if userstore.is_users(entry):
        w = userstore.update(entry.uuid, **changes)
        return _written(repo, answers.update_doc(w),
                        f"Updated `{w.uuid[:8]}` in the user's own store.")
    w = store.update(repo, cache, entry.uuid, **changes)
    then = after_write(repo, cache, "update", "mcp", [w.uuid], changed=shared(w.record))
    return _written(repo, answers.update_doc(w), f"Updated `{w.uuid[:8]}` in {w.path}.",
                    then)


def aide_forget(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Delete a memory and stage the removal (as `forget --json`)."""
    from git_aide.agents.rules.afterwrite import after_write
    from git_aide.app import answers, store, userstore

    repo, cache, snap = mem.read()
    entry = find(snap, a["id"])
    if userstore.is_users(entry):
        gone, committed, _warnings = userstore.forget([entry.uuid])
        return _written(repo, answers.forget_doc(gone, False, committed),
                        "\n".join(f"Forgot `{u[:8]}`." for u in gone))
    gone, staged, _warnings = store.forget(repo, cache, [entry.uuid])
    then = after_write(repo, cache, "forget", "mcp", gone)
    return _written(repo, answers.forget_doc(gone, staged),
                    "\n".join(f"Forgot `{u[:8]}`." for u in gone), then)


def aide_import(mem: ServerState, a: dict[str, Any]) -> Answer:
    """Rules text as memories (as `import --json`), each named by its id."""
    from git_aide.agents.mcp.text import bound
    from git_aide.agents.mcp.text import import_text as render
    from git_aide.agents.rules.afterwrite import after_write
    from git_aide.agents.rules.importer import import_text

    repo = mem.repo()
    doc = import_text(repo, mem.cache(repo), a["content"], name="import", layer=a["layer"],
                      scope=a["scope"], context_label=a["context_label"],
                      generated_by=mem.generated_by())
    made = [m["uuid"] for m in doc.get("imported", ()) if m.get("uuid")]
    then = after_write(repo, mem.cache(repo), "remember", "mcp", made, changed=bool(made))
    if then.exported:
        doc["exported"] = then.exported
    doc["warnings"] = [speak(w) for w in [*doc.get("warnings", []), *then.warnings]]
    limit = budget(repo)
    # Every list the document has, in its order: the memories made first.
    lists = [k for k, v in doc.items() if isinstance(v, list)]
    doc = bound(doc, lists, limit, 'aide_recall {"ids": [these ids]} returns them; '
                                   "aide_memories lists them all")
    return doc, render(doc, limit)


def aide_diff(mem: ServerState, a: dict[str, Any]) -> Answer:
    """What changed between two sources (as `diff --json`)."""
    from git_aide.agents.mcp.text import bound, diff_text
    from git_aide.app.diff import diff_doc

    repo = mem.repo()
    doc = diff_doc(repo, mem.cache(repo), list(a["args"] or []), cached=a["cached"],
                   paths=tuple(a["paths"] or ()))
    limit = budget(repo)
    doc = bound(doc, ("added", "forgotten", "changed"), limit,
                'aide_recall {"ids": [these ids]} shows an added or changed memory; '
                "aide_diff with paths narrows the comparison")
    return doc, diff_text(doc, limit)


def aide_log(mem: ServerState, a: dict[str, Any]) -> Answer:
    """The commits that changed memories (as `log --json`), from `skip` on."""
    from git_aide.agents.mcp.text import bound_log, log_text
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
WORK: dict[str, Callable[[ServerState, dict[str, Any]], Answer]] = {
    "aide_recall": aide_recall, "aide_search": aide_search, "aide_memories": aide_memories,
    "aide_remember": aide_remember, "aide_update": aide_update, "aide_forget": aide_forget,
    "aide_import": aide_import, "aide_diff": aide_diff, "aide_log": aide_log,
}


#: The tools that only read, whose answers on the working tree may be given again.
READING = frozenset({"aide_recall", "aide_search", "aide_memories"})


def call(mem: ServerState, name: str, arguments: Any) -> tuple[str, dict[str, Any] | None, bool]:
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
            if name not in READING:
                mem.answers.clear()  # it wrote: nothing kept is vouched for now
            line = notice_line(mem.done())
            if line is not None:
                sys.stderr.write(line + "\n")
            if mem.uncounted or mem.pending():
                mem.later()
            if name in READING and mem.work_wanted():
                mem.work_later()


# -- the SDK's server ---------------------------------------------------------------------------

def build(memory: ServerState | None = None, tools: list[dict[str, Any]] | None = None,
          client: str | None = None) -> Any:
    """The SDK's low-level server with the tools (imports the SDK: not on the way to the
    first answers). `tools`: those `tools/list` gives (schema.offered(); the default set
    when None). A tool left out of them is still answered if called. `client`: the
    client's name and version from its `initialize` (handshake.client_of), which marks
    the memories it writes."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    mem = memory or ServerState()
    if client is not None:
        mem.client = client
    if tools is None:
        tools = [t for t in TOOLS if t["name"] in DEFAULT_TOOLS]
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

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


def settle(mem: ServerState) -> None:
    """At the end of the connection: wait for the work after an answer under way (a
    write cut off by the process's exit would leave the index for the next command to
    rebuild), then count the recalls answered and write what is pending now if the
    index is free."""
    mem.idle(mem.calls)


def warm_up(tools: list[dict[str, Any]] | None = None, client: str | None = None
            ) -> tuple[Any, ServerState]:
    """Make what the first tool call needs: the SDK and its server (listing `tools`,
    its writes marked as `client`'s) with the state it owns, and git-aide's read path.
    Returns the server and its state."""
    mem = ServerState()
    server = build(mem, tools=tools, client=client)
    import git_aide.agents.mcp.text  # noqa: F401
    import git_aide.app.answers  # noqa: F401
    import git_aide.app.diff  # noqa: F401
    import git_aide.app.log  # noqa: F401
    import git_aide.app.search  # noqa: F401
    import git_aide.app.store  # noqa: F401
    from git_aide.app.context import preload
    from git_aide.gitio.repo import load_reader

    preload()
    load_reader()
    return server, mem
