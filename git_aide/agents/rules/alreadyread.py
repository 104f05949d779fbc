"""What an agent reads already, so that `git aide export` does not write it for it again:
the rules files it loads by itself (setup/native.py knows which), read as the words of
their rules, and the rule files people wrote in its rules folder.
"""

from __future__ import annotations

import os
import re

from git_aide.agents.rules.rulefiles import ALWAYS_FILE
from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.core.jsonvalue import JSONObject

    #: Whether an agent reads a memory already (AlreadyRead.reader).
    Has = Callable[[JSONObject], bool]

#: A memory as the rules people wrote are compared with it: (text, layer, scope).
Key = tuple[str, str, "str | None"]


def unread(group: list[JSONObject], present: set[Key], has: Has) -> list[JSONObject]:
    """Return the memories of a group that neither a rule file a person wrote in the agent's
    rules folder (`present`) nor a file the agent reads by itself (`has`) says."""
    return [r for r in group if _key(r) not in present and not has(r)]


def scope_folder(scope: str) -> str | None:
    """Return the folder a scope's files lie under (`packages/core/**` -> packages/core): where
    an agent that loads nested rules files has read them; None for anywhere."""
    literal = re.split(r"[*?\[{]", scope.lstrip("/"), maxsplit=1)[0]
    folder = literal.rsplit("/", 1)[0] if "/" in literal else ""
    return folder or None


class AlreadyRead:
    """Hold what each agent reads by itself from the repository's rules files (the module
    `native` knows which), as the words of the rules in them."""

    def __init__(self, top: str) -> None:
        #: The working tree's top.
        self.top = top
        #: File (real path) -> the memories this export writes into its block.
        self.planned: dict[str, list[JSONObject]] = {}
        #: The always-read files of this export's agents: real path -> repo-relative.
        self.mains: dict[str, str] = {}
        self._files: dict[tuple[str, str | None], list[str]] = {}
        self._read: dict[str, tuple[set[str], set[str], str]] = {}

    def files(self, agent: str, path: str | None = None) -> list[str]:
        """Return the rules files (repo-relative) `agent` has read at session start, and once it
        has opened `path`; git-aide's own generated rule files are not among them. An
        always-read file this export creates counts as there already: an export run
        twice writes the same bytes."""
        from git_aide.agents.setup.native import AGENTS as KNOWN
        from git_aide.agents.setup.native import native_files

        key = (agent, path)
        if key not in self._files:
            # The other agents' always-read files this export creates count as there:
            # native knows which of them `agent` reads.
            coming = [n for n in self.mains.values() if n != ALWAYS_FILE.get(agent)]
            found = native_files(agent, self.top, path, coming=coming) if agent in KNOWN else []
            self._files[key] = [f for f in found
                                if not f.rsplit("/", 1)[-1].startswith("git-aide-")]
        return self._files[key]

    def real_files(self, agent: str) -> set[str]:
        """Return the real paths of the files `agent` reads at session start."""
        return {os.path.realpath(os.path.join(self.top, f)) for f in self.files(agent)}

    def reader(self, agent: str, own: str | None, path: str | None = None) -> Has:
        """Return whether `agent` already reads a memory (its text, word for word) in its files,
        at session start or once `path` is open. The block of `own`, the file being
        written, does not count: what it holds is what this export decides."""
        from git_aide.agents.setup.native import MIN_TEXT_MATCH, words

        mine = os.path.realpath(os.path.join(self.top, own)) if own else None
        items: set[str] = set()
        texts: list[str] = []
        for name in self.files(agent, path):
            real = os.path.realpath(os.path.join(self.top, name))
            user, blocks, text = self._words(name, real)
            items |= user
            texts.append(text)
            if real == mine:
                continue
            if real in self.planned:
                items |= {words(r["what"]) for r in self.planned[real]}
            else:
                items |= blocks
        joined = " " + "  ".join(texts) + " "

        def has(r: JSONObject) -> bool:
            w = words(r["what"])
            return w in items or (len(w) >= MIN_TEXT_MATCH and f" {w} " in joined)

        return has

    def _words(self, name: str, real: str) -> tuple[set[str], set[str], str]:
        """Return (the words of each rule a person wrote, of each memory of its block, of all
        the rules a person wrote) in one file; nothing for a file that cannot be read."""
        if real not in self._read:
            from git_aide.agents.rules.markdown import parse
            from git_aide.agents.setup.native import words

            try:
                text = read_text(self.top, name)
            except AideError:
                text = None  # not a rules file (export names it where it writes it)
            doc = parse(text) if text else None
            user = [words(i.what) for i in doc.items if not i.from_block] if doc else []
            block_items = {words(i.what) for i in doc.items if i.from_block} if doc else set()
            self._read[real] = (set(user), block_items, " ".join(user))
        return self._read[real]


def read_text(top: str, path: str) -> str | None:
    """Return a rules file's text, or None when there is none."""
    from git_aide.agents.rules.importer import read_rules

    data = read_rules(os.path.join(top, path), path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise AideError(f"{path} is not UTF-8 text; not touched") from None

def _key(r: JSONObject) -> Key:
    """Return a memory's (text, layer, scope)."""
    scope = r.get("scope")
    return (r["what"].strip(), r["layer"], None if scope in ("", "project") else scope)


def _written_outside(path: str, old: str | None, *, blocks: bool = False) -> set[Key]:
    """Return the (text, layer, scope) of the rules a person wrote in a file, as import reads them:
    a memory imported from a file the agent reads anyway is not written out again."""
    if old is None:
        return set()
    from git_aide.agents.rules.importer import file_defaults
    from git_aide.agents.rules.markdown import parse

    doc = parse(old)
    layer, scope = file_defaults(path, doc.meta)
    return {(i.what.strip(), i.layer or layer, i.scope if i.from_block else scope)
            for i in doc.items if blocks or not i.from_block}


def written_in_folder(top: str, folder: str, suffix: str, generated: list[str],
                      notes: list[str]) -> set[Key]:
    """Return what the rule files people wrote in an agent's rules folder already say; a file
    that cannot be read as one adds a line to `notes` (one not UTF-8 is no rule at all)."""
    from git_aide.agents.rules.importer import read_rules

    try:
        names = sorted(os.listdir(os.path.join(top, folder)))
    except OSError:
        return set()
    keys: set[Key] = set()
    for name in names:
        path = f"{folder}/{name}"
        full = os.path.join(top, path)
        if not name.endswith(suffix) or path in generated or os.path.isdir(full):
            continue
        try:
            data = read_rules(full, path)
        except AideError as e:
            notes.append(f"{e}; skipped")
            continue
        try:
            text = data.decode("utf-8") if data is not None else None
        except UnicodeDecodeError:
            continue
        keys |= _written_outside(path, text, blocks=True)
    return keys
