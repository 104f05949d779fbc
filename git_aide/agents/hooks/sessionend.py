"""`git aide hook stop` and `git aide hook pre-compact`: the nudge to remember before an
agent stops (with aide.hooks.reflect), and the session's record cleared once its context
is compacted."""

from __future__ import annotations

from git_aide.agents.hooks.sessions import Session, session_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSONObject

REFLECT = ("Before you stop: did this session settle anything worth remembering (a "
           "decision, a constraint, a gotcha the code does not show)? If so, call "
           "aide_remember; if not, just stop.")


def stop(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Ask, with aide.hooks.reflect and every few stops, whether anything is worth
    keeping."""
    if data.get("stop_hook_active"):
        return None  # the agent is already continuing because of a stop hook
    repo = contexts.open().repo
    if not repo.settings.hooks_reflect:
        return None
    every = repo.settings.hooks_reflect_every
    session = Session(repo.cache_dir, session_id(data))
    session.stops += 1
    if session.reflected and "stop_hook_active" not in data:
        # an agent that does not say a stop hook made it go on (Copilot CLI, Cursor):
        # the stop right after our question is its answer, never asked again
        session.reflected = False
        session.save()
        return None
    ask = session.stops % every == 1 or every == 1
    session.reflected = ask
    session.save()
    return REFLECT if ask else None


def pre_compact(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Clear the session record: after compaction, what was injected is gone.

    Gemini CLI fires PreCompress (trigger `auto`) before every model request, before it
    checks whether the conversation is large enough to compress, which it seldom is: that
    event does nothing at all here (not even open the repository). A compression it did
    make is found in its transcript by the next hook that reads the record
    (handling.followed_session); `/compress` (trigger `manual`) always compresses."""
    if agent == "gemini" and data.get("trigger") != "manual":
        return None
    Session(contexts.open().repo.cache_dir, session_id(data)).clear()
    return None
