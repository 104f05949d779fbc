"""`git aide hook user-prompt`: the memories of the files a prompt mentions with `@path`,
and a nudge to remember when the user's words state a decision or a correction."""

from __future__ import annotations

import os

from git_aide.agents.hooks.filememories import file_memories
from git_aide.agents.hooks.handling import event_cwd
from git_aide.agents.hooks.lines import FILE_HEADER, SESSION_HEADER
from git_aide.agents.hooks.toolpaths import MAX_EVENT_PATHS, absolute

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_aide.app.context import Contexts
    from git_aide.core.jsonvalue import JSONObject

#: What reads as a decision or a correction worth keeping, in one sentence of the user's:
#: a decision stated ("we decided", "we've agreed", "the decision is", "let's go with"), a
#: rule from now on, an imperative "always ..." or "never ..." opening the sentence, a
#: correction ("no, use ...", "use X instead of Y", "stop using").
_DECISION = (
    r"\bwe(?:'ve|'d|\s+have|\s+had)?(?:\s+(?!not\b|never\b)[a-z]+)?\s+"
    r"(?:decided|agreed|settled\s+on|standardi[sz]ed\s+on)\b"
    r"|\b(?:the|our)\s+(?:team'?s\s+)?decision\s+(?:is|was)\b"
    r"|\blet'?s\s+(?:go\s+with|stick\s+with|standardi[sz]e\s+on|always|never)\b"
    r"|\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on|henceforth)\b"
    r"|^(?:(?:please|so|and|also|then|but|ok|okay),?\s+)?(?:always|never)\s+[a-z]"
    r"|\b(?:always|never)\s+use\b|\bwe\s+(?:always|never)\b|\b(?:do\s+not|don'?t)\s+ever\b"
    r"|^no,?\s+(?:use|don'?t|do\s+not|we)\b|^actually,?\s+(?:use|we|it)\b"
    r"|\bremember\s+(?:that|to)\b|\bthat'?s\s+wrong\b|\bstop\s+using\b"
    r"|\b(?:use|prefer|call)\s+\S+(?:\s+\S+){0,4}\s+instead\s+of\b"
    r"|\b(?:we|i)\s+prefer\b|^prefer\b")


#: A sentence that asks rather than states: a question mark, or a question's opening
#: ("can you ...", "should we ...", "what did we ...").
_QUESTION = (
    r"\?[\"')\]]*$"
    r"|^(?:can|could|would|will|should|shall|do|does|did|is|are|was|were|have|has|had)\s+"
    r"(?:we|you|i|it|they|this|that|there|the)\b"
    r"|^(?:what|why|how|which|when|where|who|whether)\s+(?:do|does|did|is|are|was|were|"
    r"should|would|could|can|will|have|has|had)\b")


NUDGE = ("This prompt reads like a correction or a decision. If it should hold beyond this "
         "session, call aide_remember (what, why, and a scope glob where it applies).")


def users_words(prompt: str) -> str:
    """Return what the user wrote, without what hooks put around it: Gemini CLI hands the
    session-start context to BeforeAgent inside the first prompt (`<hook_context>...`),
    and git-aide's own memory lines are never the user's words."""
    import re

    prompt = re.sub(r"<hook_context>.*?(?:</hook_context>|\Z)", " ", prompt, flags=re.S)
    own = re.compile(r"^(?:- (?:added: |changed: )?.* id:[0-9a-f]{8}|"
                     + re.escape(SESSION_HEADER) + "|" + re.escape(FILE_HEADER)
                     + r".*\(git-aide; follow it\):|Memories this branch added or changed "
                     r"since .*:|\d+ more: (?:call aide_\w+ |run `git aide ).*)$")
    return "\n".join(line for line in prompt.splitlines() if not own.match(line.strip()))


def prompt_paths(data: JSONObject) -> list[str]:
    """Return the files a prompt brings into the context, as absolute paths that exist: the
    `@path` mentions of the user's words (Claude Code, Gemini CLI and Codex attach those
    files themselves, no tool event follows) and the files Gemini CLI read for them
    (`Content from @path:`, what its read_many_files read)."""
    import re

    prompt = data.get("prompt")
    if not isinstance(prompt, str) or "@" not in prompt:
        return []
    cwd = event_cwd(data) or os.getcwd()
    prompt = re.sub(r"<hook_context>.*?(?:</hook_context>|\Z)", " ", prompt[:65536], flags=re.S)
    found: list[str] = []
    for m in re.finditer(r"(?:^|(?<=[\s(]))@((?:\\ |[^\s`'\"(),;])+)", prompt):
        raw = m.group(1).replace("\\ ", " ").rstrip(".:!?]}>")
        path = absolute(raw, cwd, glob=True)
        if path and path not in found and os.path.exists(path):
            found.append(path)
        if len(found) >= MAX_EVENT_PATHS:
            break
    return found


def decides(words: str) -> bool:
    """Tell whether the user's words state a decision or a correction worth keeping: some
    sentence of them does, and is not a question (a question about a decision decides
    nothing; nor does "decide which file to read")."""
    import re

    text = words.replace("\u2019", "'").replace("\u2018", "'")
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text):
        sentence = sentence.strip().strip("*_>-#` ").strip()
        if not sentence or re.search(_QUESTION, sentence, re.IGNORECASE):
            continue
        if re.search(_DECISION, sentence, re.IGNORECASE):
            return True
    return False


def user_prompt(data: JSONObject, agent: str, contexts: Contexts) -> str | None:
    """Return the memories of the files the prompt mentions with `@path`, and a nudge to
    remember when the prompt reads as a correction or a decision."""
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        return None
    nudge = NUDGE if decides(users_words(prompt)) else None
    paths = prompt_paths(data)
    files = None
    if paths and agent != "cursor":  # Cursor's prompt hook has no context channel
        files = file_memories(data, agent, paths, contexts, len(nudge) + 2 if nudge else 0)
    parts = [t for t in (files, nudge) if t]
    return "\n\n".join(parts) if parts else None
