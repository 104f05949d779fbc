"""An answer cut to the budget makes only the items that may fit (agents/mcp/answersize.fitting):
what the agent gets is the answer made of every item, cut the same way."""

from __future__ import annotations

import random
from typing import Any

import pytest

from git_aide.agents.mcp import answersize
from git_aide.agents.mcp.answersize import bound, fitting, size


def item(rng: random.Random, i: int) -> dict[str, Any]:
    return {"uuid": f"{i:08d}-{rng.randrange(16 ** 6):06x}", "what": "w" * rng.randrange(10, 900),
            "why": None if rng.random() < 0.5 else "é" * rng.randrange(0, 300),
            "tags": ["t"] * rng.randrange(0, 4), "score": rng.random()}


@pytest.mark.parametrize("seed", range(40))
def test_the_cut_answer_is_the_one_every_item_makes(seed: int) -> None:
    rng = random.Random(seed)
    things = [item(rng, i) for i in range(rng.randrange(0, 60))]
    if things and rng.random() < 0.2:
        things[0]["what"] = "x" * 12_000  # alone over the budget: clipped
    budget = rng.choice([1000, 2500, 8000, 20_000, 100_000])
    hint = "call again with an offset"
    whole = bound({"source": {"kind": "worktree"}, "memories": [dict(t) for t in things]},
                  ("memories",), budget, hint)
    made: list[int] = []

    def make(t: dict[str, Any]) -> dict[str, Any]:
        made.append(1)
        return dict(t)

    items = fitting(things, make, lambda t: {"uuid": t["uuid"]}, budget)
    assert len(items) == len(things)
    cut = bound({"source": {"kind": "worktree"}, "memories": items}, ("memories",), budget,
                hint)
    assert cut == whole
    # No more were made than the first whose sizes alone pass the budget.
    if len(made) < len(things):
        assert sum(size(t) for t in things[:len(made) - 1]) <= budget < sum(
            size(t) for t in things[:len(made)])


@pytest.mark.parametrize("seed", range(40))
def test_a_cut_is_the_one_measuring_every_item_gives(seed: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # bound() knows a cut of more items than fit by their sizes alone to be over the
    # budget without measuring it (answersize._leading): the answer is the one it gives when
    # every cut tried is measured.
    rng = random.Random(seed)
    lists = {"added": [item(rng, i) for i in range(rng.randrange(0, 30))],
             "files": ["import"] if rng.random() < 0.5 else [],
             "changed": [item(rng, i) for i in range(rng.randrange(0, 30))]}
    budget = rng.choice([128, 300, 1000, 2500, 8000, 20_000])
    hint = lambda n: f"call again with offset {n}"  # noqa: E731

    def cut() -> dict[str, Any]:
        return bound({"source": {"kind": "worktree"}, **lists}, ("added", "files", "changed"),
                     budget, hint, {} if rng.random() < 0.5 else None)

    got = cut()
    total = sum(len(v) for v in lists.values())
    monkeypatch.setattr(answersize, "_leading", lambda _sizes, _budget: total)
    assert got == cut()
    assert size(got) <= budget or set(got) == {"truncated", "more"}


@pytest.mark.parametrize("seed", range(20))
def test_a_memory_measured_again_has_the_size_of_its_item(seed: int) -> None:
    # A warm server measures a memory's record once (answersize.memory_size) and its match's
    # scope and score each time: the size is the item's, whatever the record holds
    # (a "score" of its own too) and whatever it matched with.
    rng = random.Random(seed)
    bases: dict[tuple[str, str], int] = {}
    records = [item(rng, i) for i in range(5)]
    for record in records:
        if rng.random() < 0.5:
            del record["score"]  # a record without one: the answer adds it
        record["path"] = f".aide/memories/{record['uuid']}.json"
    for _ in range(30):
        record = rng.choice(records)
        doc = dict(record)
        doc["matched_scope"] = rng.choice([None, "src/", "src/é/**/*.py", 'a"b'])
        doc["score"] = rng.choice([None, rng.random() * 10, 0.0, 12.5])
        assert answersize.memory_size(bases, (record["path"], "blob-" + record["uuid"]), doc) \
            == size(doc)


@pytest.mark.parametrize("seed", range(30))
def test_a_hook_block_made_on_demand_is_the_one_every_line_makes(seed: int) -> None:
    """A hook's lines made as fit() reaches them (lines.Rendered) give the block that all
    of them made first gives, and the lines past the cut are never made."""
    from git_aide.agents.hooks.lines import Rendered, fit

    rng = random.Random(seed)
    lines = ["- " + "w" * rng.randrange(5, 600) for _ in range(rng.randrange(0, 50))]
    cap = rng.choice([40, 300, 1200, 4000, 50_000])
    more = "{n} more: call aide_recall"
    made: list[int] = []

    def render(i: int) -> str:
        made.append(i)
        return lines[i]

    whole = fit("Project memory for x:", lines, cap, more)
    assert fit("Project memory for x:", Rendered(range(len(lines)), render), cap, more) == whole
    assert len(made) == len(set(made)) and max(made, default=-1) <= whole[1]
