"""Search evaluation: MRR@10, Recall@1 and Recall@10 on a labelled query set, per kind.

A query set is JSON lines `{"id", "query", "kind", "relevant": [{"path", "symbol"}]}`
over a corpus folder; a hit matches an answer when path and qualified symbol are equal.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import RefdocError
from ..core.records import FileRole
from .asides import asks_for_asides, path_role
from .ranking import Hit, QueryEmbedder, SearchIndex, query_terms

CUTOFF = 10
TEST_WORDS = ["test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock"]
"""A query with one of these asks for tests: their hits in its top 3 are wanted."""


@dataclass(frozen=True)
class LabelledQuery:
    id: str
    query: str
    kind: str
    relevant: frozenset[tuple[str, str]]


@dataclass
class Scores:
    count: int = 0
    reciprocal_ranks: float = 0.0
    at_1: int = 0
    at_10: int = 0
    tests_top3: int = 0
    """Queries that do not ask for tests with a test definition in their top 3."""

    def add(self, rank: int | None) -> None:
        """Count one query whose first relevant hit is at `rank` (None: not in the top 10)."""
        self.count += 1
        if rank is not None and rank <= CUTOFF:
            self.reciprocal_ranks += 1.0 / rank
            self.at_1 += rank == 1
            self.at_10 += rank <= CUTOFF

    @property
    def mrr(self) -> float:
        return self.reciprocal_ranks / self.count if self.count else 0.0

    @property
    def recall_1(self) -> float:
        return self.at_1 / self.count if self.count else 0.0

    @property
    def recall_10(self) -> float:
        return self.at_10 / self.count if self.count else 0.0


def load_queries(path: Path) -> list[LabelledQuery]:
    queries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            relevant = frozenset((answer["path"], answer["symbol"]) for answer in data["relevant"])
            queries.append(LabelledQuery(data["id"], data["query"], data.get("kind", "all"), relevant))
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise RefdocError(f"{path}:{number}: not a labelled query ({error}); see the query set format") from None
    return queries


def first_match(hits: list[Hit], relevant: frozenset[tuple[str, str]]) -> int | None:
    for rank, hit in enumerate(hits[:CUTOFF], start=1):
        if (hit.path, hit.symbol) in relevant:
            return rank
    return None


def evaluate(index: SearchIndex, queries: list[LabelledQuery], mode: str, embedder: QueryEmbedder | None = None) -> dict[str, Scores]:
    """Scores per kind, plus `overall`."""
    by_kind: dict[str, Scores] = defaultdict(Scores)
    for query in queries:
        hits = index.search(query.query, CUTOFF, mode, embedder)
        rank = first_match(hits, query.relevant)
        tests = not asks_for_asides(query_terms(query.query), TEST_WORDS) and any(path_role(h.path) is FileRole.TEST for h in hits[:3])
        for kind in ("overall", query.kind):
            by_kind[kind].add(rank)
            by_kind[kind].tests_top3 += tests
    return dict(by_kind)


def format_table(results: dict[str, dict[str, Scores]]) -> str:
    """One row per mode and kind: n, MRR@10, Recall@1, Recall@10."""
    lines = [f"{'mode':<8}{'kind':<12}{'n':>4}{'MRR@10':>9}{'R@1':>7}{'R@10':>7}"]
    for mode, by_kind in results.items():
        kinds = ["overall"] + sorted(k for k in by_kind if k != "overall")
        for kind in kinds:
            s = by_kind[kind]
            lines.append(f"{mode:<8}{kind:<12}{s.count:>4}{s.mrr:>9.3f}{s.recall_1:>7.3f}{s.recall_10:>7.3f}")
    return "\n".join(lines)
