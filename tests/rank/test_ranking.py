"""Ranking (README, How recall and search rank) and section 3's directory rule, through real
repositories."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok, git, remember, uuids

from git_aide.core import scope as scopes


def recall(repo: Path, *args: str) -> list[str]:
    """The uuids `recall ARGS --json` returns, in order."""
    return uuids(aide_ok(repo, "recall", *args, "--json"))


def test_query_crosses_layers_and_scopes(repo: Path) -> None:
    area = remember(repo, "the app package is organised by feature", "--layer",
                    "area_context", "--scope", "src/**")["uuid"]
    gotcha = remember(repo, "retries double the backoff after each timeout",
                      "--scope", "src/net/**")["uuid"]
    exact = remember(repo, "client.py is generated; edit the template",
                     "--layer", "area_context", "--scope", "src/net/client.py")["uuid"]
    # No query: the scope naming the file, then its directory, then the ancestor.
    assert recall(repo, "src/net/client.py") == [exact, gotcha, area]
    # A question lifts the technical note above the more specific one that does not
    # match, whatever its layer.
    got = recall(repo, "src/net/client.py", "--query", "backoff after timeout")
    assert got[0] == gotcha


def test_superseded_sinks_in_recall_and_search(repo: Path) -> None:
    old = remember(repo, "uploads are capped at 10 MB by MAX_UPLOAD_BYTES",
                   "--scope", "src/upload/limits.py")["uuid"]
    new = remember(repo, "uploads are capped at 50 MB by MAX_UPLOAD_BYTES since 2025",
                   "--scope", "src/upload/**")["uuid"]
    other = remember(repo, "thumbnails are made by a worker", "--scope",
                     "src/upload/**")["uuid"]
    # Without the newer note the old one would come first (it names the file).
    assert recall(repo, "src/upload/limits.py") == [other, new, old]
    got = uuids(aide_ok(repo, "search", "uploads capped 10 MB", "--json"))
    assert got.index(new) < got.index(old)


def test_directory_rule_for_globs(repo: Path) -> None:
    ts = remember(repo, "tsconfig files extend the base one", "--scope",
                  "web/tsconfig*.json")["uuid"]
    gen = remember(repo, "generated files are never edited", "--scope",
                   "web/**/*.gen.ts")["uuid"]
    assert ts in recall(repo, "web/")
    assert ts not in recall(repo, "web/tests/")
    assert ts not in recall(repo, "web/src/")
    assert gen in recall(repo, "web/src/deep/")
    assert scopes.reaches("web/tsconfig*.json", "web")
    assert not scopes.reaches("web/tsconfig*.json", "web/tests")
    assert scopes.reaches("src/a/**", "src")
    assert not scopes.reaches("src/a/**", "src/b")


def test_directory_order(repo: Path) -> None:
    pkg = remember(repo, "imports are absolute", "--layer", "guidelines",
                   "--scope", "src/app/**")["uuid"]
    deep = remember(repo, "nested serializers need explicit create", "--scope",
                    "src/app/serializers/nested/**")["uuid"]
    own = remember(repo, "serializers validate in validate_<field>", "--scope",
                   "src/app/serializers/**")["uuid"]
    near = remember(repo, "base.py holds the shared mixins", "--scope",
                    "src/app/serializers/base.py")["uuid"]
    # The directory itself, then inside it (closer first), then the ancestor's rule.
    assert recall(repo, "src/app/serializers/") == [own, near, deep, pkg]


def test_project_wide_cap(repo: Path) -> None:
    scoped = remember(repo, "billing rounds half up", "--scope", "src/billing/**")["uuid"]
    wide = [remember(repo, f"billing rule {word}")["uuid"]
            for word in ("alpha", "beta", "gamma", "delta", "epsilon")]
    unrelated = remember(repo, "release on tuesdays")["uuid"]
    got = recall(repo, "src/billing/invoice.py")
    assert got[0] == scoped
    assert len(got) == 4 and set(got[1:]) <= set(wide)
    assert unrelated not in got
    git(repo, "config", "aide.recall.projectWideLimit", "1")
    assert len(recall(repo, "src/billing/invoice.py")) == 2
    # Without a path every memory is listed: the cap is for path recalls.
    assert unrelated in recall(repo)


def test_identifiers_split_in_search(repo: Path) -> None:
    a = remember(repo, "Raise MAX_UPLOAD_BYTES only with the proxy limit")["uuid"]
    b = remember(repo, "requests.adapters.HTTPAdapter is mounted with max_retries=3")["uuid"]
    c = remember(repo, "UserRepository.findByEmail lower-cases its argument")["uuid"]
    d = remember(repo, "retry_on_5xx skips POST requests")["uuid"]
    e = remember(repo, "Parameterization of tests lives in one module")["uuid"]

    def search(text: str) -> list[str]:
        return uuids(aide_ok(repo, "search", text, "--json"))

    assert search("max upload bytes")[0] == a
    assert search("MAX_UPLOAD_BYTES")[0] == a
    assert search("http adapter retries")[0] == b
    assert search("HTTPAdapter")[0] == b
    assert search("find by email")[0] == c
    assert search("retry on 5xx")[0] == d
    assert search("eterizat") == [e]
    for text in ('"quoted', "*", "(", "a OR b", "NOT", "col:x", "what:(x"):
        aide_ok(repo, "search", text, "--json")


def test_path_mentions_are_weak_candidates(repo: Path) -> None:
    guide = remember(repo, "the guide mirrors examples/shop/ line by line: change both "
                           "together", "--scope", "docs/guide/**")["uuid"]
    named = remember(repo, "keep the cart.py example short", "--scope",
                     "docs/intro.md")["uuid"]
    own = remember(repo, "cart totals are in cents", "--scope", "examples/shop/**")["uuid"]
    got = recall(repo, "examples/shop/cart.py")
    assert got[0] == own and set(got[1:]) == {guide, named}
    assert recall(repo, "examples/shop/") == [own, guide]
    assert guide not in recall(repo, "examples/shopping/cart_view.py")
    assert named not in recall(repo, "examples/shop/mycart.py")


def test_query_takes_strong_matches_from_elsewhere(repo: Path) -> None:
    own = remember(repo, "the session cookie is refreshed on every request",
                   "--scope", "src/auth/**")["uuid"]
    other = remember(repo, "the session cookie must stay HttpOnly and SameSite=Lax",
                     "--scope", "src/web/**")["uuid"]
    unrelated = remember(repo, "images are resized by the worker",
                         "--scope", "src/media/**")["uuid"]
    # Without a question, a recall keeps to the path's scopes.
    assert recall(repo, "src/auth/login.py") == [own]
    # With one, the store's strong matches elsewhere follow the path's own match.
    got = recall(repo, "src/auth/login.py", "--query", "session cookie")
    assert got == [own, other]
    assert unrelated not in got


def test_notes_on_the_files_tests_and_docs_follow_its_own(repo: Path) -> None:
    own = remember(repo, "parse_rate reads number/period", "--scope",
                   "src/throttling.py")["uuid"]
    tests = remember(repo, "freeze time by overriding timer(); never sleep", "--scope",
                     "tests/test_throttling.py")["uuid"]
    guide = remember(repo, "the guide lists every rate string the parser accepts",
                     "--scope", "docs/guide/throttling.md")["uuid"]
    caller = remember(repo, "views answer 429 when Throttling refuses a request",
                      "--scope", "src/views.py")["uuid"]
    other = remember(repo, "pagination tests build paginators directly", "--scope",
                     "tests/test_pagination.py")["uuid"]
    got = recall(repo, "src/throttling.py")
    # The file's own note first; the notes scoped to its tests, its guide and a caller
    # naming it are recalled after it; another module's tests are not.
    assert got[0] == own
    assert set(got[1:]) == {tests, guide, caller}
    assert other not in got
    # A directory query has no file name to go by: only what is scoped inside it.
    assert set(recall(repo, "src/")) == {own, caller}


def test_path_words_order_notes_of_one_standing(repo: Path) -> None:
    topic = remember(repo, "throttling counters live in the default cache", "--scope",
                     "src/**")["uuid"]
    generic = remember(repo, "modules here import settings lazily", "--scope",
                       "src/**")["uuid"]
    # Both are the file's directory's notes; the newer would come first, but the older
    # one talks about the file's subject.
    assert recall(repo, "src/throttling.py") == [topic, generic]
    assert recall(repo, "src/pagination.py") == [generic, topic]


def test_project_wide_cap_prefers_the_files_subject(repo: Path) -> None:
    remember(repo, "a scoped note", "--scope", "src/**")
    topic = remember(repo, "behind one proxy set NUM_PROXIES so throttling sees the "
                     "client address")["uuid"]
    folder = [remember(repo, f"code under src is formatted, rule {w}")["uuid"]
              for w in ("one", "two", "three")]
    got = recall(repo, "src/throttling.py")
    # Three project-wide notes at most; the one about the file's subject comes before
    # the others, although they are newer and name its folder.
    assert len(got) == 4 and topic in got
    assert all(got.index(topic) < got.index(u) for u in folder if u in got)


def test_a_common_stem_brings_no_candidates(repo: Path) -> None:
    import json
    import uuid

    own = remember(repo, "index.ts re-exports the public API only", "--scope",
                   "src/index.ts")["uuid"]
    mention = remember(repo, "keep src/index.ts in step with the docs", "--scope",
                       "docs/**")["uuid"]
    landing = remember(repo, "the landing page is written by hand", "--scope",
                       "site/index.md")["uuid"]
    model = remember(repo, "the search index is rebuilt nightly", "--scope", "lib/**")
    # A store where "index" is an everyday word: sixty notes use it.
    path = repo / model["path"]
    doc = json.loads(path.read_text())
    for _ in range(60):
        doc["uuid"] = str(uuid.uuid4())
        (path.parent / f"{doc['uuid']}.json").write_text(json.dumps(doc, indent=2) + "\n")
    got = recall(repo, "src/index.ts")
    # The file's own note and the note naming its path; not the sixty, nor the note
    # on another index file (a companion only when the name is rare).
    assert got == [own, mention]
    # With fewer than that, the other index file's note would be recalled.
    assert landing not in got


def test_a_directory_recall_takes_notes_naming_a_path_inside_it(repo: Path) -> None:
    own = remember(repo, "cart totals are in cents", "--scope", "examples/shop/**")["uuid"]
    docs = remember(repo, "the guide quotes examples/shop/cart.py line by line",
                    "--scope", "docs/guide/**")["uuid"]
    # A path inside the directory is about something it holds.
    assert recall(repo, "examples/shop/") == [own, docs]
    assert docs not in recall(repo, "examples/shopping/")
    # For another file of that directory, a note about cart.py is no mention.
    assert docs not in recall(repo, "examples/shop/basket.py")


def test_a_common_word_of_the_path_does_not_lift_a_project_wide_memory(repo: Path) -> None:
    """`recall src/app.py`: "The app deploys on Fridays" holds the file's stem as a plain
    word, which is no mention of the file; the memories scoped to src/ come first."""
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    wide = remember(repo, "The app deploys on Fridays")["uuid"]
    scoped = [remember(repo, what, "--scope", "src/**")["uuid"]
              for what in ("Use black for formatting", "Handlers return dataclasses",
                           "Logging goes through structlog", "No global state in src")]
    got = uuids(aide_ok(repo, "recall", "src/app.py", "--json"))
    assert sorted(got[:4]) == sorted(scoped) and got[4] == wide
    # A project-wide memory that names the file itself is a mention, and stays ahead.
    named = remember(repo, "src/app.py must stay import-free at start-up")["uuid"]
    assert uuids(aide_ok(repo, "recall", "src/app.py", "--json"))[0] == named
