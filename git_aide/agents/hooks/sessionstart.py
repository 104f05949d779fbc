"""`git aide hook session-start`: the always-on memories by importance, then what this
branch changed since it left its base, but what the agent already loads from its own
rules files (by their words, and by meaning when a model is configured)."""

from __future__ import annotations

from git_aide.agents.hooks.handling import event_cwd, open_snapshot, program, say
from git_aide.agents.hooks.lines import SESSION_HEADER, fit, memory_line
from git_aide.agents.hooks.sessions import Session, prune, session_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.agents.setup.native import Loaded
    from git_aide.app.context import Contexts
    from git_aide.cache.folder import Cache
    from git_aide.core.jsonvalue import JSONObject
    from git_aide.gitio.repo import Repo
    from git_aide.read.record import Entry


def _repeatable_start(agent: str, data: JSONObject) -> bool:
    """Tell whether this agent may send SessionStart more than once for one session: VS Code
    runs the hooks of `.claude/settings.json` and `.github/hooks/` alike (two git-aide
    hooks, one session), and Copilot CLI has fired it on every prompt. Those add only what
    the session was not given yet, as does a resumed session; the others start afresh,
    as a new context holds nothing."""
    source = data.get("source")
    if source in ("clear", "compact"):
        return False
    if source == "resume":
        return True  # the resumed transcript holds what the session was given
    return agent in ("copilot", "vscode") or "hookEventName" in data  # VS Code's own field


def _importance(entry: Entry, record: JSONObject) -> tuple[int, int, int, int, str, int]:
    """Return the sort key of an always-on memory: priority `always` first, team guidelines before
    personal preferences, memories written by hand (newest first: a stable sort keeps
    that) before imported rules, which keep their file's own order."""
    rank = 0 if record.get("priority") == "always" else 1
    layer = {"guidelines": 0, "preferences": 1}.get(entry.layer, 0)
    from git_aide.agents.setup.native import imported_from

    origin = imported_from(record)
    if origin is None:
        return (rank, layer, 0, 0, "", 0)
    return (rank, layer, 1, origin[0].count("/"), origin[0], origin[1])


def session_start(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Return the always-on memories by importance, then what this branch changed since it left
    its base, but what the agent already loads from its own rules files."""
    repo, cache, snap = open_snapshot(contexts)
    prune(repo.cache_dir)
    session = Session(repo.cache_dir, session_id(data))
    if not (_repeatable_start(agent, data) and session.started):
        session.clear()  # a new, cleared or compacted context holds nothing yet
    # a conversation that starts now: any compression summary its transcript gets is new
    session.follow(data.get("transcript_path"), agent,
                   fresh=data.get("source") in ("startup", "clear"))
    import time

    session.started = time.time()
    cap = repo.settings.hooks_session_chars
    chosen = []
    for e in snap.entries:
        if e.uuid in session.seen:
            continue
        if e.layer in ("guidelines", "preferences"):
            chosen.append((e, e.read_record()))
        else:
            r = e.read_record()
            if r.get("priority") == "always":
                chosen.append((e, r))
    top = repo.worktree
    have = None
    if top is not None:
        from git_aide.agents.setup import native

        have = native.loaded(program(agent, data), top, (), event_cwd(data))
        if have.files:
            chosen = [(e, r) for e, r in chosen if not have.has(r)]
            chosen = _not_restated(contexts, repo, have, chosen)
    chosen.sort(key=lambda er: er[0].updated_at, reverse=True)
    chosen.sort(key=lambda er: _importance(*er))
    records = [r for _e, r in chosen]
    parts: list[str] = []
    gave: list[str] = []  # for the per-machine counts
    used = 0
    if records:
        text, shown = fit(SESSION_HEADER, [memory_line(r, e.path) for e, r in chosen], cap,
                          "{n} more: call aide_memories (layer guidelines or preferences)")
        if text:
            parts.append(text)
        used = len(text)
        gave += [r["uuid"] for r in records[:shown]]
        session.seen.update(gave)
    try:
        branch = _branch_changes(repo, cache)
    except Exception as e:  # noqa: BLE001 -- the always-on memories still go in
        say(f"what this branch changed: {e}")
        branch = None
    if branch is not None and cap - used > 80:
        base, changed = branch
        changed = [(kind, r) for kind, r in changed if r["uuid"] not in session.seen
                   and not (have is not None and have.files and have.has(r))]
        lines = [memory_line(r).replace("- ", f"- {kind}: ", 1) for kind, r in changed]
        text, shown = fit(f"\nMemories this branch added or changed since {base}:", lines,
                          cap - used - 1, "{n} more: run `git aide diff " + base + "`")
        if shown:
            parts.append(text)
            gave += [r["uuid"] for _kind, r in changed[:shown]]
            session.seen.update(r["uuid"] for _kind, r in changed[:shown])
    session.save()
    if gave:
        from git_aide.app.stats import count

        count(cache, "session", "hook", gave)
    return "\n".join(parts) if parts else None


#: The cosine from which a memory restates a rule the agent loads (all-MiniLM-L6-v2:
#: a rule and its rewording 0.8 to 0.95, rules that share only a topic up to 0.75; see
#: app/hybrid.py's DUPLICATE_COSINE).
RESTATED_COSINE = 0.8


def _not_restated(contexts: Contexts, repo: Repo, have: Loaded,
                  chosen: list[tuple[Entry, JSONObject]]) -> list[tuple[Entry, JSONObject]]:
    """Leave out the (entry, record) pairs whose memory says by meaning what a rule the
    agent loads says, when a model is configured (at a session start: the rules' vectors
    are kept with the memories', by their text, so a rules file is embedded once)."""
    if not chosen or not repo.config("aide.semantic.model"):
        return chosen
    try:
        import hashlib

        from git_aide.agents.setup.native import names_held

        # The context open_snapshot opened: a warm server's model is loaded once.
        sem = contexts.semantic(contexts.opened[-1])
        if not sem.ready(say=False):
            return chosen
        rules = {hashlib.sha1(b"rule\0" + t.encode()).hexdigest(): t
                 for t in have.rule_texts() if len(t.split()) >= 4}
        if not rules:
            return chosen
        vecs = sem.vectors
        missing = vecs.missing(rules)
        if missing:
            vecs.add_missing(missing, lambda ids: sem.embedder.embed([rules[i] for i in ids]))
        sem.embed_entries([e for e, _r in chosen])
        ids, rows = vecs.of(rules)
        blobs, mine = vecs.of([e.blob for e, _r in chosen])
        if not ids or not blobs:
            return chosen
        sims = mine @ rows.T
        said = set()
        for i, blob in enumerate(blobs):
            for j in (sims[i] >= RESTATED_COSINE).nonzero()[0]:
                if names_held(_what_of(chosen, blob), rules[ids[int(j)]]):
                    said.add(blob)
                    break
        return [(e, r) for e, r in chosen if e.blob not in said]
    except Exception as e:  # noqa: BLE001 -- by words alone, as without a model
        say(f"restated rules by meaning: {e}")
        return chosen


def _what_of(chosen: list[tuple[Entry, JSONObject]], blob: str) -> str:
    """Return the `what` of the chosen memory whose file is `blob`."""
    return next(str(r["what"]) for e, r in chosen if e.blob == blob)


def _branch_changes(repo: Repo, cache: Cache) -> tuple[str, list[tuple[str, JSONObject]]] | None:
    """Return (base, [(added|changed, record)]) of the memories added or changed since the merge
    base with the upstream or default branch; None when there is no such base."""
    from git_aide.app.diff import diff_doc

    base = None
    for candidate in ("@{upstream}", "refs/remotes/origin/HEAD", "main", "master"):
        proc = repo.git("rev-parse", "--verify", "--quiet", "--symbolic-full-name",
                        candidate, check=False)
        name = proc.stdout.decode().strip()
        if proc.returncode == 0 and name:
            base = name
            break
    if base is None:
        return None
    head = repo.git("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    mb = repo.git("merge-base", base, "HEAD", check=False)
    if mb.returncode != 0 or not head:
        return None
    point = mb.stdout.decode().strip()
    current = repo.git("symbolic-ref", "--quiet", "HEAD", check=False).stdout.decode().strip()
    if current == base:
        return None  # on the base branch itself: nothing is "this branch's"
    doc = diff_doc(repo, cache, [point])
    short = base.removeprefix("refs/heads/").removeprefix("refs/remotes/")
    changed: list[tuple[str, JSONObject]] = []
    for m in doc.get("added", []):
        changed.append(("added", m))
    for c in doc.get("changed", []):
        after = c.get("after") or {}
        if "uuid" in after:
            changed.append(("changed", after))
    if not changed:
        return None
    return short, changed
