"""The directly serialised Lunr index equals what the `lunr` package's builder makes."""

from __future__ import annotations

from lunr.builder import Builder
from lunr.index import Index

from refdoc_site.search.lunr_index import serialized_index

ROWS = [
    {"name": ["pars", "config"], "body": ["open", "file", "pars", "pars", "yaml"]},
    {"name": ["delet", "user"], "body": ["session", "drop", "user", "user"]},
    {"name": ["config"], "body": []},
    {"name": ["render", "page"], "body": ["jinja", "templat", "page", "file", "config"]},
]
BOOSTS = {"name": 3, "body": 1.5}


def reference(rows, boosts) -> dict:
    builder = Builder()
    builder.ref("ref")
    for name, boost in boosts.items():
        builder.field(name, boost=boost)
    for position, row in enumerate(rows):
        builder.add({"ref": str(position), **row})
    serialized = builder.build().serialize()
    serialized["pipeline"] = ["stemmer"]
    return serialized


def normalised(serialized: dict) -> dict:
    """Plain dicts, field vectors by reference (their order carries no meaning)."""
    return {
        **serialized,
        "fieldVectors": sorted([ref, list(vector)] for ref, vector in serialized["fieldVectors"]),
        "invertedIndex": [[term, {k: ({d: dict(m) for d, m in v.items()} if isinstance(v, dict) else v) for k, v in posting.items()}] for term, posting in serialized["invertedIndex"]],
    }


def test_same_index_as_the_lunr_builder() -> None:
    assert normalised(serialized_index(ROWS, BOOSTS)) == normalised(reference(ROWS, BOOSTS))


def test_lunr_loads_and_ranks_it() -> None:
    index = Index.load(serialized_index(ROWS, BOOSTS))
    results = index.query(callback=lambda query: query.term("config", use_pipeline=False))
    assert [r["ref"] for r in results][0] == "2"
    assert {r["ref"] for r in results} == {"0", "2", "3"}
