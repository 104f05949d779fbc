"""The hot commands (recall, search, diff, log) and their options, declared once.

Agents and CI steps call these on every file or commit: their plain forms are parsed
without click (argv.py), the rest by click (main.py builds their click commands from
this same table), and both hand the same keyword arguments to the same functions
(commands.py). Nothing here imports click or anything heavy.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def layers() -> tuple[str, ...]:
    """Return the layer names (read when an option needs them, not at start-up)."""
    from git_aide.core.memory import LAYERS

    return LAYERS


class Opt:
    """Declare one option of a hot command."""

    __slots__ = ("names", "dest", "kind", "choices", "multiple", "help", "metavar",
                 "default")

    def __init__(self, *names: str, dest: str, kind: str = "text",
                 choices: Callable[[], tuple[str, ...]] | None = None,
                 multiple: bool = False, help: str | None = None,
                 metavar: str | None = None, default: str | None = None) -> None:
        #: Its spellings, long first (`--limit`, `-n`).
        self.names = names
        #: The keyword argument it gives the command's function.
        self.dest = dest
        #: "flag" (no value), "text", "count" (a whole number >= 0) or "choice".
        self.kind = kind
        #: The values a "choice" takes (a function: the list is read only when needed).
        self.choices = choices
        #: Repeatable: the keyword gets the list of its values.
        self.multiple = multiple
        #: Its line in `-h`.
        self.help = help
        #: What `-h` calls its value.
        self.metavar = metavar
        #: Its value when it is not given, if not the function's own default.
        self.default = default

    def value(self, text: str) -> object | None:
        """Read `text` as this option's value; None when the fast parser should leave it to
        click (which then says what is wrong with it)."""
        if self.kind == "count":
            return int(text) if text.isascii() and text.isdigit() else None
        if self.choices is not None and text not in self.choices():
            return None
        return text


class Hot:
    """Declare one hot command: its words (positional arguments) and options."""

    __slots__ = ("name", "help", "words", "words_metavar", "one_word", "options",
                 "paths_after_dash", "lone_dash", "early")

    def __init__(self, name: str, help: str, words: str, options: list[Opt], *,
                 words_metavar: str | None = None, one_word: bool = False,
                 paths_after_dash: bool = False, lone_dash: bool = True,
                 early: bool = False) -> None:
        #: The command's name.
        self.name = name
        #: Its description in `-h`.
        self.help = help
        #: The keyword its positional arguments go to.
        self.words = words
        #: What `-h` calls them.
        self.words_metavar = words_metavar
        #: Exactly one positional argument (else any number, as a list).
        self.one_word = one_word
        #: Its options, in the order `-h` lists them.
        self.options = options
        #: `-- PATH...` gives the keyword `paths`, apart from the words (as git does);
        #: else what follows `--` are more words.
        self.paths_after_dash = paths_after_dash
        #: A bare `-` is a word (a path); else it is left to click.
        self.lone_dash = lone_dash
        #: git's questions about the source are worth starting before anything else.
        self.early = early


def _modes() -> tuple[str, ...]:
    from git_aide.app.semantic import MODES

    return MODES


def _json() -> Opt:
    return Opt("--json", dest="as_json", kind="flag", help="Print one JSON document.")


def _source() -> list[Opt]:
    """Return --cached/--staged and --rev REV."""
    return [Opt("--cached", "--staged", dest="cached", kind="flag",
                help="Read the staged blobs (the index)."),
            Opt("--rev", dest="rev", metavar="REV", help="Read the tree of this commit-ish.")]


def _layer() -> Opt:
    return Opt("--layer", dest="layers", kind="choice", choices=layers, multiple=True)


def _narrowing() -> list[Opt]:
    """Return --tag T... and --contributor C."""
    return [Opt("--tag", dest="tags", multiple=True,
                help="Only memories with this tag (repeatable: all of them)."),
            Opt("--contributor", dest="contributor", help="Only memories by this contributor.")]


#: The hot commands by name.
COMMANDS: dict[str, Hot] = {h.name: h for h in (
    Hot("recall", "What should I know before I touch these paths?", "paths", [
        Opt("--query", "-q", dest="query", help="Re-rank by relevance to these words."),
        _layer(), *_narrowing(),
        Opt("--limit", dest="limit", kind="count", help="Default: aide.recall.limit or 20."),
        *_source(), _json()], early=True),
    Hot("search", "Where did we write about X? By words (BM25) and, with a model, by "
        "meaning; best first.", "query", [
        _layer(), *_narrowing(),
        Opt("--limit", dest="limit", kind="count", help="Default: aide.search.limit or 20."),
        Opt("--mode", dest="mode", kind="choice", choices=_modes,
            help="auto (words, and meaning when aide.semantic.model is set), keyword "
                 "or semantic."),
        *_source(), _json()], one_word=True, early=True),
    Hot("log", "Commits that changed shared memories, and what each changed. [-- PATH...]",
        "revs", [
            Opt("--all", dest="all_refs", kind="flag", help="Walk every ref, as git log --all."),
            Opt("--uuid", dest="ident", metavar="ID",
                help="Follow one memory (a uuid or a prefix)."),
            Opt("--reverse", dest="reverse", kind="flag", help="Oldest first."),
            Opt("--limit", "-n", dest="limit", kind="count", help="At most N commits."),
            _json()],
        words_metavar="[REV-RANGE]...", paths_after_dash=True, lone_dash=False),
    Hot("diff", "Memories added, forgotten and changed between two sources. [-- PATH...]",
        "revs", [
            Opt("--cached", "--staged", dest="cached", kind="flag",
                help="Compare a commit (default HEAD) with the index."),
            Opt("--stat", dest="as_stat", kind="flag", help="Counts per layer."),
            Opt("--format", dest="fmt", kind="choice", choices=lambda: ("text", "markdown"),
                default="text",
                help="markdown: a review summary to paste into a pull request."),
            Opt("--exit-code", dest="exit_code", kind="flag",
                help="Exit 1 when there are differences."),
            _json()],
        words_metavar="[REV | REV REV2 | A..B | A...B]", paths_after_dash=True,
        lone_dash=False),
)}
