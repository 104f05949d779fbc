"""Ranking (README, How recall and search rank): sort order, limit, layer diversity, --query."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok, git, remember, uuids


def layers(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [m["layer"] for m in result.json()["memories"]]


def test_one_per_layer_comes_back_in_layer_order(repo: Path) -> None:
    for layer in ("guidelines", "preferences", "technical", "area_context"):
        remember(repo, f"a {layer} memory", "--layer", layer, "--scope", "src/**")
    r = aide_ok(repo, "recall", "src/a.py", "--json")
    assert layers(r) == ["area_context", "technical", "preferences", "guidelines"]


def test_scoped_before_project_wide(repo: Path) -> None:
    # Project-wide memories come in only when they share a word with the path (section 4).
    wide = remember(repo, "project-wide technical fact about src")["uuid"]
    scoped = remember(repo, "guideline for src", "--layer", "guidelines", "--scope", "src/**")
    got = uuids(aide_ok(repo, "recall", "src/a.py", "--json"))
    assert got == [scoped["uuid"], wide]


def test_deeper_scope_first_for_a_file_broader_first_for_a_directory(repo: Path) -> None:
    broad = remember(repo, "broad", "--scope", "src/**")["uuid"]
    deep = remember(repo, "deep", "--scope", "src/api/routes/**")["uuid"]
    assert uuids(aide_ok(repo, "recall", "src/api/routes/a.ts", "--json")) == [deep, broad]
    assert uuids(aide_ok(repo, "recall", "src/", "--json")) == [broad, deep]


def test_newest_first_among_equals(repo: Path) -> None:
    old = remember(repo, "older fact")["uuid"]
    new = remember(repo, "newer fact")["uuid"]
    assert uuids(aide_ok(repo, "recall", "--json")) == [new, old]


def test_query_keeps_what_answers_it(repo: Path) -> None:
    # Without paths, a question answers with its matches, not the store re-ordered.
    remember(repo, "billing is event-sourced")
    b = remember(repo, "GraphQL queries 404 in prod")["uuid"]
    remember(repo, "use pnpm for installs")
    r = aide_ok(repo, "recall", "--query", "graphql prod", "--json")
    assert uuids(r) == [b]
    assert r.json()["memories"][0]["score"] > 0


def test_limit_one_returns_the_single_best(repo: Path) -> None:
    remember(repo, "guideline", "--layer", "guidelines", "--scope", "src/**")
    best = remember(repo, "area decision", "--layer", "area_context", "--scope", "src/**")
    assert uuids(aide_ok(repo, "recall", "src/x.py", "--limit", "1", "--json")) == [best["uuid"]]


def test_limit_from_git_config(repo: Path) -> None:
    for i in range(5):
        remember(repo, f"fact {i}")
    git(repo, "config", "aide.recall.limit", "3")
    assert len(uuids(aide_ok(repo, "recall", "--json"))) == 3
    assert len(uuids(aide_ok(repo, "recall", "--json", "--limit", "4"))) == 4


_DISTINCT = ["ports are fixed", "logs rotate daily", "caches expire hourly",
             "queues retry thrice", "builds pin node", "schemas live in sql",
             "tokens sign with ed25519", "uploads stream to disk"]


def test_diversity_covers_every_layer(repo: Path) -> None:
    # Layer diversity is a setting now (off by default: the evaluation showed it hurts).
    remember(repo, "a technical fact", "--scope", "src/**")
    remember(repo, "a preference", "--layer", "preferences", "--scope", "src/**")
    remember(repo, "a guideline", "--layer", "guidelines", "--scope", "src/**")
    for text in _DISTINCT[:4]:
        remember(repo, text, "--layer", "area_context", "--scope", "src/**")
    got = layers(aide_ok(repo, "recall", "src/a.py", "--limit", "5", "--json"))
    assert got == ["area_context"] * 4 + ["guidelines"]  # newest first, no diversity
    git(repo, "config", "aide.recall.layerDiversityMinLimit", "5")
    got = layers(aide_ok(repo, "recall", "src/a.py", "--limit", "5", "--json"))
    assert len(got) == 5
    assert set(got) == {"area_context", "technical", "preferences", "guidelines"}


def test_diversity_only_from_its_minimum_limit(repo: Path) -> None:
    pref = remember(repo, "a preference", "--layer", "preferences", "--scope", "src/**")["uuid"]
    for text in _DISTINCT:
        remember(repo, text, "--scope", "src/**")
    assert pref not in uuids(aide_ok(repo, "recall", "src/a.py", "--limit", "5", "--json"))
    git(repo, "config", "aide.recall.layerDiversityMinLimit", "5")
    assert pref in uuids(aide_ok(repo, "recall", "src/a.py", "--limit", "5", "--json"))
    git(repo, "config", "aide.recall.layerDiversityMinLimit", "6")
    assert pref not in uuids(aide_ok(repo, "recall", "src/a.py", "--limit", "5", "--json"))


def test_filters(repo: Path) -> None:
    a = remember(repo, "tagged", "--tag", "db", "--tag", "perf")["uuid"]
    b = remember(repo, "a guideline", "--layer", "guidelines")["uuid"]
    assert uuids(aide_ok(repo, "recall", "--tag", "db", "--json")) == [a]
    assert uuids(aide_ok(repo, "recall", "--layer", "guidelines", "--json")) == [b]
    # Equal standing: newest first (recency now comes before the layer prior).
    assert uuids(aide_ok(repo, "recall", "--contributor", "ada tester", "--json")) == [b, a]
    assert uuids(aide_ok(repo, "recall", "--contributor", "nobody", "--json")) == []


def test_json_document_shape(repo: Path) -> None:
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**", "--why", "audit",
             "--label", "tokens", "--tag", "auth")
    doc = aide_ok(repo, "recall", "src/auth/x.ts", "--json").json()
    assert doc["source"] == {"kind": "worktree", "rev": None, "commit": None}
    m = doc["memories"][0]
    for key in ("uuid", "layer", "what", "why", "scope", "context_label", "contributor", "tags",
                "source", "shared", "priority", "generated_by", "derived_from", "created_at",
                "updated_at", "path", "matched_scope", "score"):
        assert key in m
    assert m["matched_scope"] == "src/auth/**"
    assert m["path"] == f".aide/memories/technical/{m['uuid']}.json"
    assert m["contributor"] == "Ada Tester"


def test_human_output_is_ranked_and_plain_when_piped(repo: Path) -> None:
    # recall prints the answer's order, numbered, the layer a label (grouped by layer,
    # the best could stand 3rd or 7th); list groups by layer
    remember(repo, "a guideline", "--layer", "guidelines")
    remember(repo, "a fact", "--priority", "always")
    out = aide_ok(repo, "recall").stdout
    assert out.splitlines()[0].startswith("1. ") and "technical [project] (always-on)" in out
    assert out.index("a fact") < out.index("a guideline")
    assert "\x1b[" not in out
    out = aide_ok(repo, "list").stdout
    assert out.index("technical:") < out.index("guidelines:")
    assert "(always-on)" in out
    assert "No memories." in aide_ok(repo, "recall", "--layer", "preferences").stdout


def test_a_scope_verdict_is_not_handed_to_a_later_scope() -> None:
    """Regression: the per-recall verdict cache was keyed by the scope object's id, and
    an id is reused once its object is freed (groups built again after a damaged view,
    or the working tree's files laid over it), so a later scope could inherit an earlier
    verdict; a staged memory then vanished from recall."""
    from git_aide.core import scope as scopes
    from git_aide.rank.selection import Query, scope_filter

    keep = scope_filter([Query("src/app/main.py", False)], 1)
    db = scopes.compile_scope("src/db/**").as_tuple()
    app = scopes.compile_scope("src/app/**").as_tuple()
    probe = scopes.Compiled(*db)
    gone = id(probe)
    del probe
    # CPython hands a freed object's place to the next one of its size: the case
    # this guards against arises at once below.
    assert id(scopes.Compiled(*app)) == gone
    for _ in range(50):
        other = scopes.Compiled(*db)
        assert not keep(other)
        del other
        mine = scopes.Compiled(*app)
        assert keep(mine)
        del mine
