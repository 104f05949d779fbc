"""Settings: every `aide.*` git config key, declared once with its type, default and
bounds, and parsed once per process from the values git config gave.

Reading git config is gitio's job (`Repo.config`); this module only turns those strings
into values. A bad value is remembered, not raised, when the settings are parsed: it is
an error naming the key only when something reads that key, so a typo in a hook's
setting never stops `recall` (and the hooks' and the server's settings, which must not
stop them, fall back or clamp instead of failing).
"""

from __future__ import annotations

import math

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

#: Characters an agent gets from one MCP tool call at most, in the text and in the
#: structured content each: about 2,000 tokens.
MCP_BUDGET = 8000
#: The smallest budget aide.mcp.maxChars may set: a summary, its counts and some ids.
MIN_MCP_BUDGET = 1000
#: The most characters any hook sends, whatever the configuration says: Claude Code cuts
#: a hook's context above 10,000 characters to a preview.
MAX_HOOK_CHARS = 9000

#: How a key's value is spelt: a whole number, a number of seconds, a fraction from 0 to
#: 1, a boolean as git spells one, or text (read by what uses it).
INT, SECONDS, FRACTION, BOOL, TEXT = "int", "seconds", "fraction", "bool", "text"


class Key:
    """Describe one `aide.*` key: its name, the attribute of Settings that holds it, its type,
    default and bounds, and what it sets (the configuration table of the docs)."""

    __slots__ = ("name", "attr", "kind", "default", "low", "high", "strict", "doc")

    def __init__(self, name: str, attr: str, kind: str, default: float | bool | str,
                 doc: str,
                 low: float | None = None, high: float | None = None,
                 strict: bool = False) -> None:
        #: The git config key, as the docs spell it (git compares keys case-insensitively).
        self.name = name
        #: The attribute of Settings that holds its value.
        self.attr = attr
        #: INT, SECONDS, FRACTION, BOOL or TEXT.
        self.kind = kind
        #: The value when the key is not set (and, for SECONDS and BOOL, when it is bad).
        self.default = default
        #: The least value; a smaller one is raised to it, or an error when `strict`.
        self.low = low
        #: The greatest value; a larger one is lowered to it.
        self.high = high
        #: Whether a value below `low` is an error rather than raised to `low`.
        self.strict = strict
        #: What the key sets, one sentence.
        self.doc = doc

    def parse(self, raw: str | None) -> float | bool | str:
        """Parse `raw` (None: not set) into this key's value; AideError naming the key when
        it is not one."""
        if self.kind == TEXT:
            return raw.strip() if raw is not None and raw.strip() else self.default
        if self.kind == BOOL:
            # A setting of a hook or the server must not stop it: anything else is the default.
            low = (raw or "").strip().lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            return self.default
        if self.kind == SECONDS:
            try:
                seconds = float(raw or self.default)
            except ValueError:
                return self.default
            return seconds if self.low is None else max(self.low, seconds)
        if raw is None:
            return self.default
        if self.kind == FRACTION:
            try:
                fraction = float(raw)
            except ValueError:
                fraction = math.nan
            if not 0.0 <= fraction <= 1.0:  # also false for nan
                raise AideError(f"git config {self.name} is {raw!r}, not a number from 0 to 1")
            return fraction
        try:
            n = int(raw)
        except ValueError:
            raise AideError(f"git config {self.name} is {raw!r}, not a whole number") from None
        if self.low is not None and n < self.low:
            if self.strict:
                raise AideError(f"git config {self.name} is {raw!r}, not {self.low:g} or more")
            n = int(self.low)
        if self.high is not None and n > self.high:
            n = int(self.high)
        return n

    def check(self, raw: str) -> str | None:
        """Say why `raw` cannot be set as this key's value (one line), or None when it can:
        stricter than parse, which clamps or falls back where a setting must not stop a
        command; a value being set is refused instead."""
        word = {INT: "a whole number", SECONDS: "a number of seconds",
                FRACTION: "a number from 0 to 1", BOOL: "true or false",
                TEXT: "text"}[self.kind]
        bad = f"{self.name} takes {word}, not {raw!r}"
        if self.kind == TEXT:
            return None if raw.strip() else f"{self.name} takes text, not an empty value"
        if self.kind == BOOL:
            ok = raw.strip().lower() in ("true", "yes", "on", "1", "false", "no", "off", "0")
            return None if ok else bad
        try:
            n = int(raw) if self.kind == INT else float(raw)
        except ValueError:
            return bad
        if not math.isfinite(n) or (self.kind == FRACTION and not 0.0 <= n <= 1.0):
            return bad
        if self.low is not None and n < self.low:
            return f"{self.name} is {self.low:g} or more, not {raw!r}"
        if self.high is not None and n > self.high:
            return f"{self.name} is at most {self.high:g}, not {raw!r}"
        return None

    def bounds(self) -> str:
        """Return the bounds as the docs say them ("" when none)."""
        if self.kind == FRACTION:
            return "0 to 1"
        if self.low is not None and self.high is not None:
            return f"{self.low:g} to {self.high:g}"
        if self.low is not None:
            return f"at least {self.low:g}"
        return ""


#: Every key git-aide reads, in the order the docs list them.
KEYS: tuple[Key, ...] = (
    Key("aide.recall.limit", "recall_limit", INT, 20,
        "How many memories `recall` returns."),
    Key("aide.recall.minScopeDepth", "recall_min_scope_depth", INT, 1,
        "The least scope depth a scoped memory needs to be recalled for a file."),
    Key("aide.recall.layerDiversityMinLimit", "recall_layer_diversity_min_limit", INT, 0,
        "The least limit at which recall rebalances layers as aide-memory does (0: off)."),
    Key("aide.recall.projectWideLimit", "recall_project_wide_limit", INT, 3,
        "How many project-wide memories a path recall keeps at most."),
    Key("aide.search.limit", "search_limit", INT, 20,
        "How many memories `search` returns."),
    Key("aide.audit.duplicateThreshold", "audit_duplicate_threshold", FRACTION, 0.6,
        "Jaccard similarity of word sets from which `audit` and `remember` call two "
        "memories of one layer near duplicates, from 0 to 1 (0 turns the check off)."),
    Key("aide.audit.churnCommits", "audit_churn_commits", INT, 10,
        "Commits touching the code under a scope that make an old memory stale.",
        low=0, strict=True),
    Key("aide.audit.staleDays", "audit_stale_days", INT, 90,
        "How old (days since updated_at) a memory must be to be stale.",
        low=0, strict=True),
    Key("aide.writeLockTimeout", "write_lock_timeout", SECONDS, 30.0,
        "Seconds a writer waits for one other git-aide writer to release the write lock.",
        low=0.0),
    Key("aide.indexLockTimeout", "index_lock_timeout", SECONDS, 10.0,
        "Seconds to wait for another git process's index.lock before a memory is left "
        "written but not staged."),
    Key("aide.hooks.fileChars", "hooks_file_chars", INT, 4000,
        "The most characters `hook pre-tool-use` injects for one file.",
        low=0, high=MAX_HOOK_CHARS),
    Key("aide.hooks.sessionChars", "hooks_session_chars", INT, 2000,
        "The most characters `hook session-start` injects.", low=0, high=MAX_HOOK_CHARS),
    Key("aide.hooks.reflect", "hooks_reflect", BOOL, False,
        "Whether `hook stop` asks, every few stops, whether anything is worth remembering."),
    Key("aide.hooks.reflectEvery", "hooks_reflect_every", INT, 5,
        "Every how many stops `hook stop` asks (with aide.hooks.reflect).", low=1),
    Key("aide.mcp.maxChars", "mcp_max_chars", INT, MCP_BUDGET,
        "The most characters an MCP tool gives an agent, in its text and in its "
        "structured content each.", low=MIN_MCP_BUDGET),
    Key("aide.mcp.watch", "mcp_watch", BOOL, True,
        "Whether the MCP server watches the memory folders (inotify) instead of running "
        "`git status` on every call."),
    Key("aide.mcp.serve", "mcp_serve", BOOL, True,
        "Whether the MCP server also answers hooks and reading commands of its working "
        "tree over a socket in the git folder (`git aide daemon`)."),
    Key("aide.mcp.tools", "mcp_tools", TEXT, "default",
        "The tools the MCP server offers: default (recall, search, memories, remember, "
        "update, forget), all (import, diff and log too), or tool names."),
    Key("aide.export.auto", "export_auto", BOOL, False,
        "Whether every remember, update and forget refreshes the rules files `export` "
        "already wrote (CLAUDE.md's block, ...) and stages them with the memory."),
    Key("aide.export.check", "export_check", BOOL, False,
        "Whether the pre-commit hook `init` installs refuses a commit whose exported "
        "rules files are out of date with its memories (`export --check --staged`)."),
    Key("aide.export.maxChars", "export_max_chars", INT, 0,
        "The most characters of an always-on block `export` writes when --max-chars is "
        "not given (0: no cap); the automatic refresh and `--check` use it too.", low=0),
    Key("aide.semantic.model", "semantic_model", TEXT, "",
        "The model of semantic search: a folder holding model.onnx and tokenizer.json, "
        "or a known name that `git aide semantic fetch` got (none: words only)."),
)


def key_named(name: str) -> Key | None:
    """Return the key `name` spells (case-insensitively, as git compares keys), or None."""
    low = name.lower()
    return next((k for k in KEYS if k.name.lower() == low), None)


def closest_key(name: str) -> Key | None:
    """Return the known key nearest to `name`, a misspelt one (None: none is near)."""
    import difflib

    names = {k.name.lower(): k for k in KEYS}
    low = name.lower()
    if not low.startswith("aide."):
        low = "aide." + low
    near = difflib.get_close_matches(low, list(names), n=1, cutoff=0.8)
    if not near:  # a last part said right in the wrong section: aide.limit
        tail = [k for n, k in names.items() if n.rsplit(".", 1)[-1] == low.rsplit(".", 1)[-1]]
        return tail[0] if tail else None
    return names[near[0]]


class Settings:
    """Hold the values of every key in KEYS, parsed from one reading of git config.

    A key whose value is bad has no attribute: reading it raises the error that names
    the key (see the module's docstring).
    """

    recall_limit: int
    recall_min_scope_depth: int
    recall_layer_diversity_min_limit: int
    recall_project_wide_limit: int
    search_limit: int
    audit_duplicate_threshold: float
    audit_churn_commits: int
    audit_stale_days: int
    write_lock_timeout: float
    index_lock_timeout: float
    hooks_file_chars: int
    hooks_session_chars: int
    hooks_reflect: bool
    hooks_reflect_every: int
    mcp_max_chars: int
    mcp_watch: bool
    mcp_serve: bool
    mcp_tools: str
    export_auto: bool
    export_check: bool
    export_max_chars: int
    semantic_model: str

    def __init__(self, config: dict[str, str] | None = None) -> None:
        """`config`: git config's values by lower-cased key (the defaults when None)."""
        config = config or {}
        #: The error of each bad key, by attribute.
        self._errors: dict[str, str] = {}
        for key in KEYS:
            try:
                setattr(self, key.attr, key.parse(config.get(key.name.lower())))
            except AideError as e:
                self._errors[key.attr] = str(e)

    if not TYPE_CHECKING:  # hidden from mypy, which then checks every attribute's name

        def __getattr__(self, attr: str) -> NoReturn:
            # Only reached for an attribute that was not set: a key whose value is bad.
            error = self.__dict__.get("_errors", {}).get(attr)
            if error is not None:
                raise AideError(error)
            raise AttributeError(attr)
