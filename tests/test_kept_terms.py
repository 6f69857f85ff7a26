"""A rebuild counts the terms of the changed documents only (search/kept_terms.py): the
counts made with the last render's are exactly those counted from nothing, and the search
data written from them is the same bytes."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np

import refdoc_site.search.kept_terms as kept_terms
from helpers import stored_document
from refdoc_site.search.ranking import field_terms, settings
from refdoc_site.search.site_search import PIECES_MADE, write_search_data
from refdoc_site.search.site_terms import count_terms

WORDS = ["parse", "render", "token", "cache", "route", "queue", "retry", "socket", "設定ファイル", "HTTPResponse2", "a"]


def _documents(count: int, seed: int, start: int = 0) -> list:
    chance = random.Random(seed)
    found = []
    for number in range(start, start + count):
        text = " ".join(chance.choice(WORDS) + str(chance.randrange(40)) for _ in range(12))
        content = f'def f{number}():\n    """{text[:50]}"""\n    return "{text[:30]}"\n'
        found.append(stored_document(f"pkg/m{number % 5}.py", f"f{number}", 1, 3, content=content, responsibility=text[:40]))
    return found


def _same(a, b) -> None:
    assert a.terms == b.terms and a.count == b.count and a.fields == b.fields
    for name in ("term_of", "frequency", "slot", "lengths"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_counts_with_the_kept_ones_are_those_counted_from_nothing(tmp_path: Path) -> None:
    boosts = settings()["fields"]
    terms_of = lambda document: field_terms(document, boosts)  # noqa: E731
    first = _documents(80, 1)
    first.append(replace(first[0], chunk=replace(first[0].chunk, path="pkg/copy.py")))  # the same key twice
    path = tmp_path / kept_terms.KEPT_NAME
    counts, keys = kept_terms.count_kept(first, boosts, None, terms_of)
    _same(counts, count_terms(map(terms_of, first), boosts))
    kept_terms.save(path, keys, counts)

    # some changed, some gone, some new, the order shuffled
    second = first[:30] + _documents(10, 2, start=200) + first[45:]
    second[3] = replace(second[3], summary=replace(second[3].summary, responsibility="an entirely new socket word"))
    random.Random(3).shuffle(second)
    kept = kept_terms.load(path, boosts)
    assert kept is not None
    made, _ = kept_terms.count_kept(second, boosts, kept, terms_of)
    _same(made, count_terms(map(terms_of, second), boosts))
    unchanged, _ = kept_terms.count_kept(first, boosts, kept, lambda document: (_ for _ in ()).throw(AssertionError("counted")))
    _same(unchanged, counts)  # nothing counted again

    assert kept_terms.load(path, {**boosts, "extra": 1.0}) is None  # other fields: not used
    path.write_bytes(b"not an archive")
    assert kept_terms.load(path, boosts) is None


def test_search_data_from_kept_counts_is_the_same_bytes(tmp_path: Path) -> None:
    first, second = _documents(90, 4), _documents(60, 4) + _documents(20, 5, start=300)
    kept = tmp_path / "store"
    kept.mkdir()
    write_search_data(first, tmp_path / "over", shard_min_chunks=0, kept_in=kept)
    write_search_data(second, tmp_path / "over", shard_min_chunks=0, kept_in=kept)
    assert (kept / kept_terms.KEPT_NAME).is_file() and (kept / PIECES_MADE).is_file()
    write_search_data(second, tmp_path / "fresh", shard_min_chunks=0)
    tree = lambda root: {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}  # noqa: E731
    assert tree(tmp_path / "over") == tree(tmp_path / "fresh")
