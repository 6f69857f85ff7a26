"""The offline half of the written pages: the context a plan prompt is assembled from (the
same hybrid ranking as `query`, framed by the hierarchy, within a token budget), the
rendering of grounded text, `plans:` in refdoc.yml, and `refdoc-site plan` without an LLM."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import SHOP_FIXTURE as FIXTURE
from helpers import indexed_shop

from refdoc_site.cli import main
from refdoc_site.core.config import parse_config
from refdoc_site.core.errors import ConfigError
from refdoc_site.core.findings import Decision, Milestone
from refdoc_site.core.pages import plan_slug
from refdoc_site.core.serial import from_json
from refdoc_site.core.tokens import count_tokens
from refdoc_site.pipeline import DECISIONS_NAME, PLANS_NAME, Workspace, build
from refdoc_site.rendering.grounded_text import grounded_markdown
from refdoc_site.search.embed import matching_embedder
from refdoc_site.search.ranking import SearchIndex
from refdoc_site.writing.context import (
    code_excerpt,
    decisions_context,
    milestones_context,
    plan_context,
)
from refdoc_site.writing.grounding import Citation, Grounded, NameSegment, TextSegment
from refdoc_site.writing.links import Link


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory):
    workspace, hierarchy = indexed_shop(tmp_path_factory.mktemp("shop"))
    state = workspace.load_state()
    return workspace, state.documents, hierarchy, SearchIndex.build(state.documents), matching_embedder(state)


def test_plan_context_is_the_query_ranking_framed_by_system_modules_and_files(shop) -> None:
    _, documents, hierarchy, search_index, embedder = shop
    context = plan_context("delete a user", documents, hierarchy, search_index, embedder)
    expected = search_index.search("delete a user", 20, "fused", embedder)
    assert [d.chunk.id for d in context.chunks] == [hit.chunk_id for hit in expected]
    assert context.chunks[0].chunk.symbol == "UserService.delete_user"
    ids = list(context.book.sources)
    kinds = [i[0] for i in ids]
    assert kinds == sorted(kinds, key="SMFC".index), "system, then modules, then files, then chunks"
    assert context.modules[0] == "app" and context.files[0] == "app/service.py"
    block = context.book.block()
    assert block.index("[S1] System:") < block.index("[M1] Module `app`") < block.index("[F1] File `app/service.py`")
    assert block.index("[F1]") < block.index("[C1] method `UserService.delete_user`")
    assert "self.users.pop(key, None)" in block, "the budget leaves room for the top chunk's code"


def test_the_budget_keeps_the_best_chunks_and_drops_code_first(shop) -> None:
    _, documents, hierarchy, search_index, embedder = shop
    roomy = plan_context("delete a user", documents, hierarchy, search_index, embedder)
    tight = plan_context("delete a user", documents, hierarchy, search_index, embedder, budget=300)
    assert tight.tokens <= 300 < roomy.tokens
    assert tight.left_out > 0 and len(tight.chunks) < len(roomy.chunks)
    roomy_ids = [d.chunk.id for d in roomy.chunks]
    tight_ids = [d.chunk.id for d in tight.chunks]
    assert tight_ids[0] == roomy_ids[0] and tight_ids == sorted(tight_ids, key=roomy_ids.index), "best first, rank order kept"
    assert "self.users.pop" not in tight.book.block() and "self.users.pop" in roomy.book.block()
    assert count_tokens(tight.book.block()) <= 300 + 8 * len(tight.book.sources), "ids and backticks aside, within budget"


def test_expansion_terms_feed_the_same_ranking(shop) -> None:
    _, documents, hierarchy, search_index, embedder = shop
    plain = plan_context("認証", documents, hierarchy, search_index, embedder)
    expanded = plan_context("認証", documents, hierarchy, search_index, embedder, expansion=["billing", "register", "user"])
    assert expanded.search_text == "認証 billing register user"
    assert expanded.chunks[0].chunk.symbol == "UserService.create_user"
    assert [d.chunk.id for d in plain.chunks] != [d.chunk.id for d in expanded.chunks]


def test_decision_and_milestone_contexts_number_the_offline_evidence(shop) -> None:
    workspace, _, hierarchy, *_ = shop
    decisions = from_json(list[Decision], workspace.store.read_json(DECISIONS_NAME))
    book = decisions_context(decisions, hierarchy)
    evidence = [s for i, s in book.sources.items() if i.startswith("E")]
    assert len(evidence) == len(decisions) == 3
    assert evidence[0].text.startswith("adr: Use Go for the order server.")
    assert [link.page for link in evidence[2].links] == ["files/pyproject.toml.md", "files/app/service.py.md"]
    facts = milestones_context(from_json(list[Milestone], workspace.store.read_json(PLANS_NAME)), hierarchy)
    assert [(title, ids) for title, _, ids in facts.phases] == [("Document the public API", ["P1"])]
    assert facts.book.sources["P1"].links[0].page == "files/app/util.py.md"
    assert "M1" in facts.book.sources and "`app`" in facts.book.sources["M1"].text


def test_a_code_excerpt_is_cut_and_says_so(shop) -> None:
    _, documents, *_ = shop
    service = next(d for d in documents if d.chunk.symbol == "UserService")
    assert code_excerpt(service, lines=2).splitlines()[-1].startswith("… (")


def test_grounded_markdown_links_names_marks_flagged_ones_and_groups_citations() -> None:
    segments: Grounded = [
        TextSegment("Use "),
        NameSegment("A.b", Link("x.py:1–2", "files/x.py.md", "chunk-A.b")),
        TextSegment(" not "),
        NameSegment("A.zap", flagged=True),
        TextSegment(" *now* <b>"),
        Citation(Link("x.py:1–2", "files/x.py.md", "chunk-A.b")),
        Citation(Link("abc123 (2024-01-01)")),
        TextSegment("."),
    ]

    def url(target: Link) -> str | None:
        return f"../{target.page}#{target.anchor}" if target.page else None

    labels = {"flagged": "not found in the code", "system_summary": "system summary"}
    assert grounded_markdown(segments, url, labels) == (
        "Use [`A.b`](../files/x.py.md#chunk-A.b) not `A.zap` *(not found in the code)* \\*now\\* &lt;b&gt;"
        " ([x.py:1–2](../files/x.py.md#chunk-A.b); abc123 (2024-01-01))."
    )
    assert grounded_markdown(segments, None, {**labels, "flagged": "?"}) == "Use `A.b` not `A.zap` *(?)* \\*now\\* &lt;b&gt;."


def test_plan_slugs_keep_words_of_any_script_and_avoid_clashes() -> None:
    assert plan_slug("Add rate limiting!") == "add-rate-limiting"
    assert plan_slug("認証を改善する") == "認証を改善する"
    assert plan_slug("milestones").startswith("milestones-") and plan_slug("???").startswith("plan-")


def test_plans_in_refdoc_yml_are_checked() -> None:
    assert parse_config({"plans": ["add caching", " add caching "]}).plans == ("add caching",)
    with pytest.raises(ConfigError) as error:
        parse_config({"plans": "add caching"})
    assert str(error.value).startswith("refdoc.yml: plans: expected a list of requests")


def test_plan_without_an_llm_writes_where_the_request_lands_and_says_how_to_get_more(tmp_path: Path, capsys) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(FIXTURE, repo)
    assert main(["plan", "export users", str(repo)]) == 2
    assert "no indexed files; run `refdoc-site index`" in capsys.readouterr().err
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["plan", "export users", str(repo)]) == 0
    out = capsys.readouterr().out.splitlines()
    page = repo / ".refdoc/mkdocs/docs/plans/export-users.md"
    assert out[0] == f"plan: {page}"
    assert "no LLM configured" in out[1] and "OPENAI_API_KEY" in out[1]
    text = page.read_text(encoding="utf-8")
    assert "# Plan: export users" in text
    assert "1. [`UserService.export`](../files/app/service.py.md#chunk-UserService.export) (app/service.py:30–35)" in text
    mkdocs_yml = (repo / ".refdoc/mkdocs/mkdocs.yml").read_text(encoding="utf-8")
    assert '- ? "export users"\n      : "plans/export-users.md"' in mkdocs_yml
    assert main(["plan", " ", str(repo)]) == 2


def test_configured_plans_are_built_with_the_site_and_dropped_when_removed(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(FIXTURE, repo)
    workspace = Workspace.create(repo, parse_config({"plans": ["normalize names", "ユーザーの削除"]}))
    build(workspace)
    site = workspace.out_dir
    assert (site / "plans/normalize-names/index.html").exists()
    assert (site / "plans/ユーザーの削除/index.html").exists()
    build(Workspace.create(repo, parse_config({"plans": ["normalize names"]})))
    assert (site / "plans/normalize-names/index.html").exists()
    assert not (site / "plans/ユーザーの削除").exists()


def test_a_plan_written_before_the_code_changed_keeps_building_without_its_dead_links(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(FIXTURE, repo)
    assert main(["index", str(repo)]) == 0
    assert main(["plan", "delete a user", str(repo)]) == 0
    service = repo / "app/service.py"
    service.write_text(service.read_text(encoding="utf-8").replace("def delete_user", "def remove_user"), encoding="utf-8")
    assert main(["build", str(repo)]) == 0
    text = (repo / ".refdoc/mkdocs/docs/plans/delete-a-user.md").read_text(encoding="utf-8")
    assert "1. `UserService.delete_user` (app/service.py:26–28)" in text, "the chunk is gone: no link to its anchor"
    assert "[`UserService`](../files/app/service.py.md#chunk-UserService)" in text
