"""Own code first: tests, examples and release notes rank below the code they are about,
unless the query asks for them."""

from __future__ import annotations

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.store import Store
from refdoc_site.search.asides import is_aside
from refdoc_site.search.embed import default_embedder
from refdoc_site.search.ranking import SearchIndex

# The test repeats every word of the code it checks, and more of them: by words alone it
# ranks first for a question about the behaviour.
SOURCES = {
    "shop/prices.py": '''
        def apply_discount(price, percent):
            """Lower a price by a percentage, never below zero."""
            return max(price - price * percent / 100, 0)
    ''',
    "tests/test_prices.py": '''
        from shop.prices import apply_discount


        def test_apply_discount_lowers_the_price_by_a_percentage_never_below_zero():
            """Lower a price by a percentage, never below zero: a discount lowers the price."""
            price = 100
            percent = 10
            assert apply_discount(price, percent) == 90
            assert apply_discount(price, 200) == 0
    ''',
    "CHANGELOG.md": '''
        # Changes

        ## 1.1

        - A discount now lowers a price by a percentage, never below zero.
    ''',
}


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory) -> SearchIndex:
    repo = write_repo(tmp_path_factory.mktemp("asides") / "repo", SOURCES)
    assert main(["index", str(repo)]) == 0
    return SearchIndex.build(Store(repo / ".refdoc").load().documents)


def paths(index: SearchIndex, query: str) -> list[str]:
    return [hit.path for hit in index.search(query, 10, "fused", default_embedder())]


def test_tests_release_notes_and_examples_are_asides() -> None:
    assert is_aside("tests/test_prices.py") and is_aside("pkg/prices_test.go") and is_aside("src/__tests__/a.test.ts")
    assert is_aside("CHANGELOG.md") and is_aside("History.md") and is_aside("examples/basic/main.go")
    assert not is_aside("shop/prices.py") and not is_aside("docs/guide.md") and not is_aside("history.py")


def test_own_code_ranks_above_its_test_and_the_release_notes(shop_index: SearchIndex) -> None:
    found = paths(shop_index, "lower a price by a percentage")
    assert found[0] == "shop/prices.py"
    assert set(found[1:]) == {"tests/test_prices.py", "CHANGELOG.md"}


def test_a_query_that_asks_for_tests_gets_them_at_full_weight(shop_index: SearchIndex) -> None:
    plain = {hit.path: hit.score for hit in shop_index.search("lower a price by a percentage", 10, "fused", default_embedder())}
    asked = {hit.path: hit.score for hit in shop_index.search("tests lower a price by a percentage", 10, "fused", default_embedder())}
    assert asked["tests/test_prices.py"] > plain["tests/test_prices.py"]
    assert paths(shop_index, "the test of the discount on a percentage of the price")[0] == "tests/test_prices.py"
