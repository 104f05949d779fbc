"""The questions the reading use cases answer, each one value: what a recall or a search
asks (paths, words, filters, how many), apart from what answers it (the index, the
model, a long-lived process's memo)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class RecallQuery:
    """Hold what a recall asks: the paths, a question, the filters and the cut."""

    __slots__ = ("paths", "question", "layers", "tags", "contributor", "limit",
                 "scoped_only", "always")

    def __init__(self, paths: Sequence[str], *, question: str | None = None,
                 layers: Sequence[str] = (), tags: Sequence[str] = (),
                 contributor: str | None = None, limit: int | None = None,
                 scoped_only: bool = False, always: bool = False) -> None:
        #: The paths asked about (as the user typed them, relative to the current folder).
        self.paths = tuple(paths)
        #: `--query`: words that re-order the candidates (None: by path alone).
        self.question = question
        #: The --layer, --tag and --contributor filters.
        self.layers = tuple(layers)
        self.tags = tuple(tags)
        self.contributor = contributor
        #: How many memories at most (None: aide.recall.limit).
        self.limit = limit
        #: Only the memories whose scope covers a path (a hook's): project-wide ones are
        #: not decoded and no mentions are looked for.
        self.scoped_only = scoped_only
        #: The always-on memories that pass the filters follow the answer, beyond its
        #: limit, when it does not hold them already.
        self.always = always


class SearchQuery:
    """Hold what a search asks: the words, the filters, the cut and the mode."""

    __slots__ = ("text", "layers", "tags", "contributor", "limit", "mode")

    def __init__(self, text: str, *, layers: Sequence[str] = (), tags: Sequence[str] = (),
                 contributor: str | None = None, limit: int | None = None,
                 mode: str = "auto") -> None:
        #: The words looked for.
        self.text = text
        #: The --layer, --tag and --contributor filters.
        self.layers = tuple(layers)
        self.tags = tuple(tags)
        self.contributor = contributor
        #: How many memories at most (None: aide.search.limit).
        self.limit = limit
        #: "auto" (by words and, with a model, meaning), "keyword" or "semantic".
        self.mode = mode


class ListQuery:
    """Hold what `list` asks: its filters (every memory that passes, in list order)."""

    __slots__ = ("layers", "tags", "contributor", "scope", "priority", "by", "generated_by")

    def __init__(self, *, layers: Sequence[str] = (), tags: Sequence[str] = (),
                 contributor: str | None = None, scope: str | None = None,
                 priority: str | None = None, by: str | None = None,
                 generated_by: str | None = None) -> None:
        #: The --layer, --tag and --contributor filters.
        self.layers = tuple(layers)
        self.tags = tuple(tags)
        self.contributor = contributor
        #: Only the memories scoped at or under this place (core/scope.py's `under`;
        #: empty or None: all).
        self.scope = scope
        #: Only the always-on memories ("always") or only the others ("normal").
        self.priority = priority
        #: Only those an agent ("agent") or a person ("person") wrote last.
        self.by = by
        #: Only those this agent wrote last (its name, or name and version).
        self.generated_by = generated_by
