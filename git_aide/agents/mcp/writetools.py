"""The MCP tools that write memories: aide_remember, aide_update, aide_forget and
aide_import, each followed by what a write sets off (the counts, the rules files
aide.export.auto refreshes: agents/rules/afterwrite.py)."""

from __future__ import annotations

from git_aide.agents.mcp.schema import speak
from git_aide.agents.mcp.toolwork import budget, find

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.mcp.toolwork import Answer
    from git_aide.agents.rules.afterwrite import Followed
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo
    from git_aide.warm.state import ServerState


def _written(repo: Repo, doc: JSONObject, text: str, then: Followed | None = None
             ) -> Answer:
    """Return a writing tool's answer: its document and text with its warnings, in budget;
    `then`: what followed the write (the rules files aide.export.auto refreshed)."""
    from git_aide.agents.mcp.answersize import bound, cap

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


def aide_remember(mem: ServerState, a: JSONObject) -> Answer:
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


def _remember_user(mem: ServerState, a: JSONObject) -> Answer:
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


def aide_update(mem: ServerState, a: JSONObject) -> Answer:
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


def aide_forget(mem: ServerState, a: JSONObject) -> Answer:
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


def aide_import(mem: ServerState, a: JSONObject) -> Answer:
    """Import rules text as memories (as `import --json`), each named by its id."""
    from git_aide.agents.mcp.answersize import bound
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
