"""The retrieval evaluation (bench/quality) computes its metrics and baselines honestly."""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from helpers import ROOT, TESTS

sys.path.insert(0, str(ROOT / "bench" / "quality"))

import run as quality  # noqa: E402

TINY_ROOT = TESTS / "data"


@pytest.fixture(scope="module")
def tiny() -> quality.Outcome:
    """The tiny dataset evaluated once through the real git-aide and both baselines."""
    [outcome] = quality.run(quality.datasets(["quality_tiny"], TINY_ROOT))
    return outcome


def test_metrics_on_a_hand_computed_list() -> None:
    """Two of three relevant memories, at ranks 2 and 4, graded 2 and 1."""
    ranked = ["x", "m1", "y", "m2", "z", "m3"]
    relevant = {"m1": 2, "m2": 1, "m3": 1, "gone": 0}
    s = quality.score(ranked, relevant)
    assert s.recall5 == pytest.approx(2 / 3)
    assert s.recall10 == pytest.approx(1.0)
    # DCG = 2/log2(3) + 1/log2(5) + 1/log2(7); ideal = 2/log2(2) + 1/log2(3) + 1/log2(4)
    assert s.ndcg10 == pytest.approx((1.26186 + 0.43068 + 0.35621) / (2 + 0.63093 + 0.5),
                                     abs=1e-4)
    assert s.mrr == pytest.approx(0.5)


def test_metrics_count_only_the_first_ten() -> None:
    """A relevant memory at rank 11 scores nothing; an empty list scores zero."""
    ranked = [f"n{i}" for i in range(10)] + ["m1"]
    assert quality.score(ranked, {"m1": 2}) == quality.Scores(0.0, 0.0, 0.0, 0.0)
    assert quality.score([], {"m1": 1}) == quality.Scores(0.0, 0.0, 0.0, 0.0)
    perfect = quality.score(["m1", "m2"], {"m1": 2, "m2": 1})
    assert perfect == quality.Scores(1.0, 1.0, 1.0, 1.0)
    swapped = quality.score(["m2", "m1"], {"m1": 2, "m2": 1})
    assert swapped.ndcg10 == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_terms_of_paths_and_questions() -> None:
    """Path segments split into words without the file's extension; stopwords dropped."""
    assert quality.path_terms("src/app/upload_views.py") == ["src", "app", "upload", "views"]
    assert quality.path_terms("docs/guide/") == ["docs", "guide"]
    assert quality.text_terms("What is MAX_UPLOAD_BYTES for?") == ["max", "upload", "bytes"]
    q = quality.Query("q", "path_question", "src/app/upload.py", "the upload cap", {"m": 1})
    assert quality.query_terms(q) == ["src", "app", "upload", "cap"]


def test_bm25_prefers_rare_terms_and_short_notes() -> None:
    """A rare term outweighs a common one; at equal counts the shorter note wins."""
    base = {"why": None, "scope": None, "context_label": None, "tags": []}
    bm25 = quality.BM25([
        {"key": "a", "what": "cache cache", **base},
        {"key": "b", "what": "cache retries", **base},
        {"key": "c", "what": "cache retries and a much longer tail of other words", **base},
        {"key": "d", "what": "unrelated", **base},
    ])
    q = quality.Query("q", "keyword", None, "cache retries", {"b": 1})
    assert bm25.rank(q) == ["b", "c", "a"]


def test_tiny_dataset_through_every_system(tiny: quality.Outcome) -> None:
    """Grep ranks by terms matched; git-aide's real recall and search answer the queries."""
    grep, aide = tiny.ranked["grep"], tiny.ranked["git-aide"]
    # src, app, upload: m1 has all three; m2 and m4 two each (tie broken by file path).
    assert grep["q1"] == ["m1", "m2", "m4"]
    assert grep["q2"] == ["m1"]
    assert grep["q3"] == []
    assert {"m1", "m2"} <= set(aide["q1"])
    assert aide["q2"][0] == "m1"
    table = quality.summarise([tiny])
    assert table["keyword"]["grep"] == quality.Scores(1.0, 1.0, 1.0, 1.0)
    assert table["paraphrase"]["grep"] == quality.Scores(0.0, 0.0, 0.0, 0.0)
    assert table["all"]["grep"].mrr == pytest.approx(0.75)
    text = quality.markdown(table, quality.kind_counts([tiny]))
    assert text.count("\n") == 2 + 5 * 3 - 1
    assert "| all | 4 | bm25 |" in text


def test_deterministic_uuids(tiny: quality.Outcome) -> None:
    """The same dataset and key always give the same valid memory uuid."""
    u = quality.memory_uuid("quality_tiny", "m1")
    assert u == quality.memory_uuid("quality_tiny", "m1") != quality.memory_uuid("other", "m1")
    record = quality.record_of("quality_tiny", tiny.dataset.memories[0])
    assert record["uuid"] == u and record["updated_at"] == "2025-02-01T10:00:00.000Z"


def test_a_bad_dataset_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A query judging a memory that does not exist stops the run with exit 2."""
    bad = tmp_path / "bad"
    shutil.copytree(TINY_ROOT / "quality_tiny", bad)
    with (bad / "queries.jsonl").open("a") as f:
        f.write(json.dumps({"id": "q9", "kind": "keyword", "path": None, "query": "x",
                            "relevant": {"m404": 2}}) + "\n")
    assert quality.main(["--root", str(tmp_path), "--json"]) == 2
    assert "judges unknown ['m404']" in capsys.readouterr().err


def test_a_failing_query_scores_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """git-aide refusing a query (a path outside the repository) is named, not fatal."""
    q = quality.Query("qx", "path", "../outside.py", None, {"m1": 2})
    repo = tmp_path / "r"
    quality.build_repo(quality.load_dataset(TINY_ROOT / "quality_tiny"), repo)
    assert quality.run_aide(repo, q, {}) == []
    assert "query qx failed" in capsys.readouterr().err
