"""Grounding against a real index of the golden fixture: names that exist link to their
chunk anchors and line ranges, names that do not are flagged and counted, and cited ids
become links while ids the context never gave are dropped."""

from __future__ import annotations

import pytest
from helpers import indexed_shop

from refdoc_site.writing.grounding import Citation, Grounder, NameSegment, TextSegment, plain_text
from refdoc_site.writing.links import Link
from refdoc_site.writing.names import NameIndex
from refdoc_site.writing.sources import SourceBook


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory):
    """The golden fixture indexed and summarized once: (documents, hierarchy)."""
    workspace, hierarchy = indexed_shop(tmp_path_factory.mktemp("shop"))
    return workspace.load_state().documents, hierarchy


def grounder(shop, book: SourceBook | None = None) -> Grounder:
    documents, hierarchy = shop
    return Grounder(NameIndex(documents, hierarchy), book or SourceBook())


def by_id(documents, chunk_id: str):
    return next(d for d in documents if d.chunk.id == chunk_id)


def test_a_real_method_links_to_its_anchor_and_a_hallucinated_one_is_flagged(shop) -> None:
    g = grounder(shop)
    segments = g.ground("Call `UserService.create_user` rather than `UserService.purge_all` from `app/service.py`.")
    names = [s for s in segments if isinstance(s, NameSegment)]
    assert names[0] == NameSegment(
        "UserService.create_user", Link("app/service.py:17–24", "files/app/service.py.md", "chunk-UserService.create-user")
    )
    assert names[1] == NameSegment("UserService.purge_all", flagged=True)
    assert names[2].link is not None and names[2].link.page == "files/app/service.py.md" and names[2].link.anchor == ""
    assert g.report.flagged_names == ["UserService.purge_all"]
    assert g.report.linked_names == 2
    assert plain_text(segments) == "Call UserService.create_user rather than UserService.purge_all from app/service.py."


def test_names_in_other_spellings_resolve_to_the_same_chunk(shop) -> None:
    g = grounder(shop)
    for spelling in ("app.service.UserService.delete_user", "app/service.py:UserService.delete_user", "UserService::delete_user()", "delete_user"):
        segments = g.ground(f"See `{spelling}`.")
        link = next(s for s in segments if isinstance(s, NameSegment)).link
        assert link is not None, spelling
        assert link.anchor == "chunk-UserService.delete-user" and link.label == "app/service.py:26–28", spelling
    assert g.report.flagged_names == []


def test_a_path_with_lines_links_the_chunk_holding_them_and_a_package_prefix_is_read(shop) -> None:
    g = grounder(shop)
    for spelling, anchor in (
        ("app/service.py:27", "chunk-UserService.delete-user"),
        ("app/service.py:26–28", "chunk-UserService.delete-user"),
        ("app/service.py#L18", "chunk-UserService.create-user"),
        ("app/service.py:9", ""),
        ("app.UserService", "chunk-UserService"),
    ):
        link = next(s for s in g.ground(f"See `{spelling}`.") if isinstance(s, NameSegment)).link
        assert link is not None and link.page == "files/app/service.py.md" and link.anchor == anchor, spelling
    assert g.report.flagged_names == []
    assert next(s for s in g.ground("`web.UserService`") if isinstance(s, NameSegment)).flagged


def test_modules_files_and_typescript_and_go_symbols_link(shop) -> None:
    g = grounder(shop)
    segments = g.ground("`web/src` holds `ApiClient.getOrder`; `go/server` has `Server.Handle` in `server.go`.")
    links = [s.link for s in segments if isinstance(s, NameSegment) and s.link is not None]
    assert [link.page for link in links] == [
        "modules/web/src.md", "files/web/src/client.ts.md", "modules/go/server.md", "files/go/server/server.go.md", "files/go/server/server.go.md",
    ]
    assert links[1].label == "web/src/client.ts:8–14"
    assert links[3].anchor == "chunk-Server.Handle"


def test_unbackticked_code_words_are_checked_but_ordinary_dotted_words_are_not(shop) -> None:
    g = grounder(shop)
    segments = g.ground("Like Node.js over HTTP/1.1, e.g. the client, normalize_name trims and refund_everything() does not exist.")
    assert [s for s in segments if isinstance(s, NameSegment)] == [
        NameSegment("normalize_name", Link("app/util.py:1–3", "files/app/util.py.md", "chunk-normalize-name")),
        NameSegment("refund_everything()", flagged=True),
    ]
    assert g.report.flagged_names == ["refund_everything"]


def test_members_fields_and_context_names_are_not_flagged(shop) -> None:
    book = SourceBook()
    book.add("E", "Depend on `pyyaml` and requests for HTTP.")
    g = grounder(shop, book)
    # `self.users` is a field written in the class body; `requests` and `pyyaml` came with the context;
    # `os.path.join` is not in this code at all and names no class of it.
    segments = g.ground("`UserService.users` keeps users; `pyyaml` and `requests` are dependencies; `None`; `--max-cost`; `HTTP/1.1`; `os.path.join`.")
    flagged = [s.code for s in segments if isinstance(s, NameSegment) and s.flagged]
    assert flagged == ["os.path.join"]
    # Words of Markdown prose are no code: `identified` is only in notes/, `cents` is in format.ts.
    assert [s.flagged for s in g.ground("`identified` `cents`") if isinstance(s, NameSegment)] == [True, False]
    member = next(s for s in segments if isinstance(s, NameSegment) and s.code == "UserService.users")
    assert member.link is not None and member.link.anchor == "chunk-UserService"


def test_japanese_prose_bounds_names_and_accepts_full_width_citations(shop) -> None:
    documents, _ = shop
    book = SourceBook()
    cited = book.add_chunk(by_id(documents, "app/service.py#UserService.create_user"))
    g = grounder(shop, book)
    segments = g.ground(f"ユーザー作成はcreate_userで行い、存在しないfetch_ordersは使わない［{cited}］。")
    assert [s.code for s in segments if isinstance(s, NameSegment)] == ["create_user", "fetch_orders"]
    assert isinstance(segments[1], NameSegment) and segments[1].link is not None
    assert segments[1].link.anchor == "chunk-UserService.create-user"
    assert segments[3] == NameSegment("fetch_orders", flagged=True)
    assert segments[-2] == Citation(Link("app/service.py:17–24", "files/app/service.py.md", "chunk-UserService.create-user"))
    assert segments[-1] == TextSegment("。")


def test_citations_link_known_ids_and_drop_unknown_ones(shop) -> None:
    documents, hierarchy = shop
    book = SourceBook()
    system = book.add_system(hierarchy.system)
    module = book.add_module(hierarchy.modules["app"])
    chunk = book.add_chunk(by_id(documents, "go/server/server.go#Server.Handle"))
    assert (system, module, chunk) == ("S1", "M1", "C1")
    g = grounder(shop, book)
    segments = g.ground("Handle serves orders [C1, C7]. The app module is the service [M1][S1].")
    cites = [s.link for s in segments if isinstance(s, Citation)]
    assert [c.page for c in cites] == ["files/go/server/server.go.md", "modules/app.md", "summaries/system.md"]
    assert cites[0].label == "go/server/server.go:19–26" and cites[0].anchor == "chunk-Server.Handle"
    assert g.report.dropped_citations == ["C7"]
    assert g.report.citations == 3
    assert segments[0] == TextSegment("Handle serves orders")
    assert g.ground("No source here.") and g.report.uncited_statements == 1


def test_the_prompt_block_lists_every_source_by_id(shop) -> None:
    documents, hierarchy = shop
    book = SourceBook()
    book.add_system(hierarchy.system)
    book.add_chunk(by_id(documents, "app/util.py#normalize_name"), excerpt="def normalize_name(name):\n    return name.strip()")
    block = book.block().splitlines()
    assert block[0].startswith("[S1] System: A tiny shop used to test refdoc-site")
    assert block[1].startswith("[C1] function `normalize_name` in `app/util.py` lines 1-3:")
    assert block[2:] == ["    def normalize_name(name):", "        return name.strip()"]
