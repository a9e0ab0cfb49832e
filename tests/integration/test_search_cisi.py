"""Search quality on the CISI collection, beside bm25s in the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

import semreport
from semreport.testing.cisi import find_cisi, load_cisi, ndcg_at, recall_at

bm25s = pytest.importorskip("bm25s")
Stemmer = pytest.importorskip("Stemmer")

CISI = find_cisi(Path(__file__).resolve().parents[2])


@pytest.mark.skipif(CISI is None, reason="the CISI collection is not present (SEMREPORT_CISI_DIR)")
class TestCisiQuality:
    """find is at least as good as bm25s on nDCG@10; similar beats exemplar-text-as-query."""

    def test_find_and_similar_beside_bm25s(self) -> None:
        assert CISI is not None
        collection = load_cisi(CISI)
        stemmer = Stemmer.Stemmer("english")
        ids = [d.id for d in collection.decisions]
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize(
                [collection.text(i) for i in ids],
                stopwords="en",
                stemmer=stemmer,
                show_progress=False,
            ),
            show_progress=False,
        )

        def peer(text: str, k: int) -> list[str]:
            tokens = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False)
            docs, _ = retriever.retrieve(tokens, k=k, show_progress=False)
            return [ids[int(i)] for i in docs[0]]

        judged = [q for q in collection.queries if q in collection.relevant]
        ours: dict[str, list[float]] = {"ndcg": [], "recall": []}
        theirs: dict[str, list[float]] = {"ndcg": [], "recall": []}
        sim: dict[str, list[float]] = {"ndcg": [], "recall": []}
        sim_peer: dict[str, list[float]] = {"ndcg": [], "recall": []}
        with semreport.open("memory://") as sr:
            sr.record(collection.decisions)
            for query in judged:
                relevant = set(collection.relevant[query])
                ranked = [h.decision_id for h in _walk(sr, collection.queries[query])]
                ours["ndcg"].append(ndcg_at(ranked, relevant))
                ours["recall"].append(recall_at(ranked, relevant))
                baseline = peer(collection.queries[query], 100)
                theirs["ndcg"].append(ndcg_at(baseline, relevant))
                theirs["recall"].append(recall_at(baseline, relevant))
                chosen = collection.relevant[query]
                if len(chosen) >= 3:
                    exemplar, rest = chosen[0], set(chosen[1:])
                    result = sr.similar("cisi", {"decision_id": exemplar, "limit": 100})
                    ranked = [h.decision_id for h in result.hits]
                    assert exemplar not in ranked
                    sim["ndcg"].append(ndcg_at(ranked, rest))
                    sim["recall"].append(recall_at(ranked, rest))
                    baseline = [d for d in peer(collection.text(exemplar), 101) if d != exemplar]
                    sim_peer["ndcg"].append(ndcg_at(baseline[:100], rest))
                    sim_peer["recall"].append(recall_at(baseline[:100], rest))

        def mean(values: list[float]) -> float:
            return sum(values) / len(values)

        print(
            f"\nfind nDCG@10 {mean(ours['ndcg']):.4f} recall@100 {mean(ours['recall']):.4f}; "
            f"bm25s {mean(theirs['ndcg']):.4f} / {mean(theirs['recall']):.4f}\n"
            f"similar nDCG@10 {mean(sim['ndcg']):.4f} recall@100 {mean(sim['recall']):.4f}; "
            f"bm25s exemplar text {mean(sim_peer['ndcg']):.4f} / {mean(sim_peer['recall']):.4f}"
        )
        assert len(judged) == 76
        assert mean(ours["ndcg"]) >= mean(theirs["ndcg"])
        assert mean(sim["ndcg"]) > mean(sim_peer["ndcg"])


def _walk(sr: semreport.SemReport, text: str) -> list[semreport.Hit]:
    """The first 100 hits, fetched as pages of 50 to exercise the cursor on real data."""
    first = sr.find("cisi", {"text": text, "limit": 50})
    assert first.next_cursor is not None
    second = sr.find("cisi", {"text": text, "limit": 50, "cursor": first.next_cursor})
    return [*first.hits, *second.hits]
