"""A large site's term shards are written from counts (site_terms.py): the entries and their
byte sizes are those the term statistics give, and the writer holds no whole index (no
term statistics, no compact index) and about a hundred bytes a posting."""

from __future__ import annotations

import json
import random
import tracemalloc

import orjson

import refdoc_site.search.lunr_index as lunr_index
import refdoc_site.search.ranking as ranking
import refdoc_site.search.site_shards as site_shards
from helpers import stored_document
from refdoc_site.search.lunr_index import term_statistics
from refdoc_site.search.ranking import field_terms, settings
from refdoc_site.search.site_search import DATA_DIR, write_search_data
from refdoc_site.search.site_terms import TermPostings, count_terms

WORDS = [f"w{n}x{n * 7919 % 1000}" for n in range(3000)] + ["設定ファイル", "読み込み", "parse_HTTPResponse2", "a", "zz"]


def _documents(count: int, words: int, seed: int = 7) -> list:
    """Functions of `words` words each, drawn with repeats (a count above one) from WORDS,
    in a few files each; a message literal for the phrases field."""
    chance = random.Random(seed)
    found = []
    for number in range(count):
        text = " ".join(chance.choice(WORDS) for _ in range(words))
        content = f'def f{number}():\n    """{text[:80]}"""\n    return "{text[:40]}" + {text[40:]!r}\n'
        found.append(stored_document(f"pkg/m{number % 37}.py", f"f{number}", 1, 3, content=content, responsibility=text[:60]))
    return found


def _reference_entries(documents: list, boosts: dict, ids: list[int]) -> dict[str, list]:
    """The entries as the term statistics give them: per field, over the chunks by stable
    id, [gap, (-tf,) length]."""
    stats = term_statistics([field_terms(d, boosts) for d in documents], boosts)
    entries = {}
    for term, posting in stats.postings.items():
        lists = []
        for field in stats.fields:
            flat, last = [], -1
            for chunk_id, position in sorted((ids[p], p) for p in posting[field]):
                tf, length = posting[field][position], stats.lengths[field][position]
                flat += [chunk_id - last, -tf, length] if tf > 1 else [chunk_id - last, length]
                last = chunk_id
            lists.append(flat)
        entries[term] = [term, lists]
    return entries


def test_entries_and_their_sizes_are_those_of_the_term_statistics() -> None:
    documents = _documents(300, 60)
    boosts = settings()["fields"]
    ids = [number * 3 + (number % 5) * 1000 for number in range(len(documents))]  # distinct, not in position order
    counts = count_terms((field_terms(d, boosts) for d in documents), boosts)
    postings = TermPostings(counts, ids)
    reference = _reference_entries(documents, boosts, ids)
    assert counts.terms == sorted(reference)
    entries = postings.entries(list(range(len(counts.terms))))
    assert entries == [reference[term] for term in counts.terms]
    assert postings.sizes == [len(orjson.dumps(entry)) for entry in entries]
    assert any(-tf < -1 for entry in entries for flat in entry[1] for tf in flat)  # counts above one are there
    assert any(not term.isascii() for term in counts.terms)
    stats = term_statistics([field_terms(d, boosts) for d in documents], boosts)
    assert counts.posting_counts() == [stats.posting_count(term) for term in counts.terms]
    means = [sum(stats.lengths[f]) / stats.count for f in stats.fields]
    assert counts.statistics()["means"] == means


def test_a_shard_s_key_changes_exactly_when_its_entries_do() -> None:
    """Two versions of the documents, one changed function apart: the terms whose entries
    are the same keep their key (site_shards.py keeps their piece), the others do not."""
    boosts = settings()["fields"]
    before = _documents(200, 40)
    after = list(before)
    after[57] = _documents(1, 40, seed=99)[0]
    ids = list(range(len(before)))
    versions = []
    for documents in (before, after):
        counts = count_terms((field_terms(d, boosts) for d in documents), boosts)
        versions.append((counts.terms, TermPostings(counts, ids)))
    (terms, old), (new_terms, new) = versions
    shared = sorted(set(terms) & set(new_terms))
    same = changed = 0
    for term in shared:
        a, b = [terms.index(term)], [new_terms.index(term)]
        if old.entries(a) == new.entries(b):
            assert old.key(a) == new.key(b)
            same += 1
        else:
            assert old.key(a) != new.key(b)
            changed += 1
    assert same > 100 and changed > 5
    # a shard of several terms: the same entries, the same key; one term more, another key
    pair = [terms.index(t) for t in shared[:2]], [new_terms.index(t) for t in shared[:2]]
    if old.entries(pair[0]) == new.entries(pair[1]):
        assert old.key(pair[0]) == new.key(pair[1])
    assert old.key(pair[0]) != old.key(pair[0][:1])


def test_the_sharded_writer_builds_no_whole_index(tmp_path, monkeypatch) -> None:
    """Neither term statistics (nested dictionaries of every posting) nor the compact index a
    small site ships are made for a site written in pieces."""

    def whole(*args, **kwargs):
        raise AssertionError("a whole index was built")

    for module in (lunr_index, ranking, site_shards):
        monkeypatch.setattr(module, "term_statistics", whole, raising=False)
        monkeypatch.setattr(module, "compact_index", whole, raising=False)
    documents = _documents(120, 30)
    write_search_data(documents, tmp_path, shard_min_chunks=0)
    manifest = json.loads((tmp_path / DATA_DIR / "config.json").read_text())["shards"]
    assert manifest["documents"] == len(documents) and manifest["keys"]


def test_the_sharded_writer_holds_about_a_hundred_bytes_a_posting(tmp_path) -> None:
    """Traced memory at its peak, less what was held before, per posting: the documents'
    terms are counted into flat arrays, not kept. On these 1,200 documents (424k postings)
    the writer held 673 bytes a posting before, 106 since."""
    documents = _documents(600, 80)
    boosts = settings()["fields"]
    counts = count_terms((field_terms(d, boosts) for d in documents), boosts)
    postings = len(counts.term_of)
    del counts
    tracemalloc.start()
    try:
        held = tracemalloc.get_traced_memory()[0]
        write_search_data(documents, tmp_path, shard_min_chunks=0)
        peak = tracemalloc.get_traced_memory()[1] - held
    finally:
        tracemalloc.stop()
    assert postings > 200_000
    assert peak / postings < 200, f"{peak / postings:.0f} bytes a posting"
