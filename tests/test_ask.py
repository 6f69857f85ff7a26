"""`refdoc-site ask` without an LLM, and the `Library` it (and `serve`, `mcp`) answers from:
definitions with their graph and URLs, extractive answers labelled as search results, "not
found in this repository" for a question about nothing in it, the CLI's JSON and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import markdown
import pytest
from helpers import ASK_SOURCES, HOSTILE_SOURCES, OVERLOADED_SOURCES, write_repo

from refdoc_site.asking.answer import MAX_QUESTION_CHARS, Turn, ask
from refdoc_site.asking.extractive import paragraph
from refdoc_site.asking.library import Library
from refdoc_site.asking.records import Source
from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.core.errors import RefdocError
from refdoc_site.core.resources import page_labels
from refdoc_site.core.text import markdown_line
from refdoc_site.pipeline import Workspace, index
from refdoc_site.search.site_search import _chunk_row


def test_an_unbuilt_store_is_a_one_line_error(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", ASK_SOURCES)
    with pytest.raises(RefdocError, match=r"no indexed chunks; run `refdoc-site build` first"):
        Library.open(Workspace.create(repo, Config(), tmp_path / "store"))


def test_a_store_indexed_but_not_summarized_still_answers(tmp_path: Path) -> None:
    workspace = Workspace.create(write_repo(tmp_path / "repo", ASK_SOURCES), Config(), tmp_path / "store")
    index(workspace)
    library = Library.open(workspace)
    assert library.system_summary() == {} and library.modules() == [] and library.module_summary("shop") is None
    assert library.definition("place_order").callees == [], "the graph is the summarize phase's"
    answer = ask("which function gives a payment back?", library, None)
    assert answer.mode == "extractive" and answer.sources[0].id == "shop/payments.py#refund_payment"


def test_a_definition_is_found_by_id_qualified_or_short_name_with_its_graph(ask_library: Library) -> None:
    by_id = ask_library.definition("shop/orders.py#place_order")
    assert by_id is not None and ask_library.definition("place_order") == by_id
    assert by_id.kind == "function" and by_id.start_line < by_id.end_line
    assert "charge_card(card, cart.total)" in by_id.source
    assert "check the stock" in by_id.summary["responsibility"].lower() or by_id.docstring.startswith("Place an order")
    assert set(by_id.callees) >= {"shop/orders.py#check_stock", "shop/payments.py#charge_card", "shop/orders.py#ship_parcel"}
    assert by_id.throws is False and ask_library.definition("check_stock").throws is True
    assert [d.id for d in ask_library.callers("charge_card")] == ["shop/orders.py#place_order"]
    assert {d.symbol for d in ask_library.callees("shop/orders.py#place_order")} == {"check_stock", "charge_card", "ship_parcel"}
    assert ask_library.definition("no_such_function") is None
    assert json.loads(json.dumps(by_id.to_dict()))["url"] == by_id.url


def test_page_url_is_the_address_the_site_search_links_to(ask_library: Library) -> None:
    document = ask_library.document("shop/payments.py#charge_card")
    row = _chunk_row(document)
    assert ask_library.page_url(document.chunk.id) == f"{row['page']}#{row['anchor']}" == "files/shop/payments.py/#chunk-charge-card"


def test_summaries_of_modules_and_the_system(ask_library: Library) -> None:
    assert "shop" in ask_library.modules()
    module = ask_library.module_summary("shop")
    assert module["files"] == ["shop/orders.py", "shop/payments.py"] and module["url"] == "modules/shop/"
    assert ask_library.module_summary("nowhere") is None
    assert ask_library.system_summary()["text"] and ask_library.system_summary()["url"] == "summaries/system/"


def test_search_covers_code_and_the_repositorys_prose(ask_library: Library) -> None:
    kinds = {hit.kind for hit in ask_library.search("refund the payment to the card", top=10)}
    assert "section" in kinds and "function" in kinds


def test_without_an_llm_the_answer_is_a_paragraph_then_the_best_matches_labelled_as_search_results(ask_library: Library) -> None:
    pieces: list[str] = []
    answer = ask("how does placing an order charge the card?", ask_library, None, on_text=pieces.append)
    paragraph, heading, *results = answer.text.split("\n\n")
    assert answer.mode == "extractive" and heading.startswith("Search results")
    assert "".join(pieces).rstrip() == answer.text.rstrip() and len(pieces) == 2 + len(answer.sources)
    place = ask_library.definition("shop/orders.py#place_order")
    charge = ask_library.definition("shop/payments.py#charge_card")
    # The first sentence names the best definition, cited, with its summary, and what it
    # calls among the listed ones: a call the graph holds.
    assert paragraph.startswith(f"`place_order` ([shop/orders.py:{place.start_line}-{place.end_line}]({place.url})): Place an order for the cart")
    assert f"; it calls `charge_card` ([shop/payments.py:{charge.start_line}-{charge.end_line}]({charge.url}))" in paragraph.split(". ")[0]
    assert charge.id in place.callees
    top = [source.id for source in answer.sources[:3]]
    assert "shop/orders.py#place_order" in top
    assert f"[shop/orders.py:{place.start_line}-{place.end_line}]({place.url})" in results[0]
    assert answer.cited == [s.id for s in answer.sources] and answer.flagged == []
    assert all(s.reason == "retrieved" for s in answer.sources)
    assert all(s.summary for s in answer.sources if s.kind != "section"), "every definition listed has its summary"
    assert ask("how does placing an order charge the card?", ask_library, None).text == answer.text


def listed(library: Library, *ids: str) -> list[Source]:
    """The definitions of `ids` as an extractive answer lists them, in that order."""
    found = library.definitions(list(ids))
    assert [d.id for d in found] == list(ids)
    return [Source(d.id, d.path, d.start_line, d.end_line, d.symbol, d.kind, 0.0, d.summary.get("responsibility", ""),
                   "retrieved", d.url) for d in found]


def test_the_paragraph_says_only_the_calls_the_graph_holds_between_the_listed_definitions(ask_library: Library) -> None:
    """Two topics (the best hit, then the best one no call joins to it) with their
    summaries; each other call between the listed hits once, opened by the hit that makes
    it; a hit with no call and past the topics is left to the list."""
    labels = page_labels("en")
    text = paragraph(ask_library, listed(ask_library, "shop/payments.py#refund_payment", "README.md#Shop > Refunds",
                                         "shop/orders.py#place_order", "shop/orders.py#check_stock", "shop/orders.py#ship_parcel"), labels)
    sentences = text.split(". ")
    assert sentences[0].startswith("`refund_payment` ([shop/payments.py:11-13](files/shop/payments.py/#chunk-refund-payment)): Give the money")
    assert " calls " not in sentences[0], "refund_payment calls none of them"
    assert sentences[1].startswith("`Shop > Refunds` ([README.md:3-5](files/README.md/#chunk-Shop-Refunds)): A refund gives")
    assert sentences[2] == ("`place_order` ([shop/orders.py:6-10](files/shop/orders.py/#chunk-place-order)) calls "
                            "`check_stock` ([shop/orders.py:13-17](files/shop/orders.py/#chunk-check-stock)) and "
                            "`ship_parcel` ([shop/orders.py:20-22](files/shop/orders.py/#chunk-ship-parcel)).")
    assert len(sentences) == 3
    called = paragraph(ask_library, listed(ask_library, "shop/payments.py#charge_card", "shop/orders.py#place_order",
                                           "shop/orders.py#check_stock"), labels)
    assert called.startswith("`charge_card` ([shop/payments.py:4-8](files/shop/payments.py/#chunk-charge-card)): Charge the card")
    assert called.endswith("; it is called by `place_order` ([shop/orders.py:6-10](files/shop/orders.py/#chunk-place-order)). "
                           "`place_order` calls `check_stock` ([shop/orders.py:13-17](files/shop/orders.py/#chunk-check-stock)).")
    alone = paragraph(ask_library, listed(ask_library, "shop/orders.py#check_stock", "shop/payments.py#refund_payment",
                                          "shop/orders.py#ship_parcel"), labels)
    assert " calls " not in alone and "ship_parcel" not in alone, "no call joins them: two topics, the third left to the list"


def test_a_guides_section_ranked_first_gives_the_opening_to_the_best_definition(ask_library: Library) -> None:
    """cobra's "run the pre-run hooks, the command itself and then the post-run hooks" opened
    with the user guide's section on hooks, `Command.execute` second in the list."""
    labels = page_labels("en")
    sources = listed(ask_library, "README.md#Shop > Refunds", "shop/payments.py#refund_payment", "shop/orders.py#place_order")
    sentences = paragraph(ask_library, sources, labels).split(". ")
    assert sentences[0].startswith("`refund_payment` ([shop/payments.py:11-13]"), sentences
    assert sentences[1].startswith("`Shop > Refunds` ([README.md:3-5]"), "the section still gets its sentence, next"
    only_prose = paragraph(ask_library, sources[:1], labels)
    assert only_prose.startswith("`Shop > Refunds` ([README.md:3-5]"), "with no definition listed, the section opens"


def test_a_question_about_nothing_in_the_repository_is_not_found(ask_library: Library) -> None:
    pieces: list[str] = []
    answer = ask("what temperature should sourdough bread be baked at?", ask_library, None, on_text=pieces.append)
    assert answer.mode == "not_found" and answer.sources == [] and answer.cited == []
    assert "not found in this repository" in answer.text.lower() and pieces == [answer.text]


def test_questions_are_bounded(ask_library: Library) -> None:
    with pytest.raises(RefdocError, match="empty"):
        ask("  \n ", ask_library, None)
    with pytest.raises(RefdocError, match=f"more than {MAX_QUESTION_CHARS}"):
        ask("x" * (MAX_QUESTION_CHARS + 1), ask_library, None)
    assert ask("refund", ask_library, None, history=[Turn("q", "a")]).mode == "extractive"


def test_the_ask_command_prints_json_for_tools(ask_workspace: Workspace, capsys) -> None:
    store = ["--store", str(ask_workspace.store_dir)]
    assert main(["ask", "which function gives a payment back?", str(ask_workspace.repo), *store, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["mode"] == "extractive" and answer["question"] == "which function gives a payment back?"
    assert answer["sources"][0]["id"] == "shop/payments.py#refund_payment"
    assert set(answer["sources"][0]) == {"id", "path", "start_line", "end_line", "symbol", "kind", "score", "summary", "reason", "url"}
    assert main(["ask", "how is an order placed?", str(ask_workspace.repo), *store]) == 0
    out = capsys.readouterr().out
    assert out.startswith("`place_order` ([shop/orders.py:") and "\n\nSearch results" in out
    assert main(["ask", "", str(ask_workspace.repo), *store]) == 2
    assert capsys.readouterr().err.strip() == 'refdoc-site: ask: the question is empty; ask something, e.g. refdoc-site ask "how is the config loaded?"'


def test_a_japanese_site_labels_its_answers_in_japanese(ask_workspace: Workspace) -> None:
    japanese = Workspace.create(ask_workspace.repo, Config(language="ja"), ask_workspace.store_dir)
    library = Library.open(japanese)
    paragraph, heading = ask("how does placing an order charge the card?", library, None).text.split("\n\n")[:2]
    assert heading.startswith("検索結果")
    assert paragraph.startswith("`place_order`（[shop/orders.py:6-10](files/shop/orders.py/#chunk-place-order)）: Place an order")
    assert "。これは `charge_card`（[shop/payments.py:4-8](files/shop/payments.py/#chunk-charge-card)） を呼び出します。" in paragraph
    assert ask("what temperature should sourdough bread be baked at?", library, None).text.startswith("このリポジトリには見つかりません")


def test_the_terminal_gets_no_control_characters_from_the_repository(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {"paint.py": '''
        def repaint_screen():
            """Repaint the screen \x1b]0;owned\x07 in \x1b[31mred\x1b[0m."""
            return 1
    '''})
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["ask", "repaint the screen in red", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "repaint_screen" in out and "Repaint the screen" in out
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in out)




def test_an_answer_keeps_the_repositorys_names_as_text(tmp_path: Path, capsys) -> None:
    """Each result is one line of Markdown whatever its path, symbol and summary hold: no
    HTML element or link comes out of them when the Markdown is rendered, and on the
    terminal a path's newline starts no line; `--json`'s sources keep the data as it is."""
    repo = write_repo(tmp_path / "repo", HOSTILE_SOURCES)
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["ask", "spin the widget", str(repo), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["mode"] == "extractive"
    paths = {source["path"] for source in answer["sources"]}
    assert {"<img src=x onerror=alert(2)>/widget.py", "fence\n```\n<img src=x onerror=alert(3)>/fenced.py", "README.md"} <= paths
    assert "Widgets > Spin `x` <img src=x onerror=alert(6)> widgets" in {source["symbol"] for source in answer["sources"]}
    lines = answer["text"].splitlines()
    assert len(lines) == 4 + len(answer["sources"]), "a paragraph, a heading, a blank line after each, one line a result"
    assert "Widgets > Spin `x` &lt;img src=x onerror=alert(6)> widgets ([README.md:" in lines[0], "the paragraph names it as text"
    html = markdown.markdown(answer["text"])
    assert "<img" not in html and '<a href="javascript' not in html
    assert [a for a in re.findall(r'<a href="([^"]*)"', html) if not a.startswith("files/")] == []
    assert main(["ask", "spin the widget", str(repo)]) == 0
    out = capsys.readouterr().out
    results = [line for line in out.splitlines() if re.match(r"\d+\. ", line)]
    assert len(results) == len(answer["sources"]) and not any(line.startswith("```") for line in out.splitlines())
    assert "[&lt;img src=x onerror=alert(2)>/widget.py:1-3](" in out


def test_a_definition_split_into_windows_reads_as_its_source_once(tmp_path: Path) -> None:
    """A long function and a long class, cut into overlapping windows, come back as one
    source each with every line once (the file page's merge, writing/sections.whole_source)."""
    steps = "\n".join(f"    total = total + {i}  # step {i} adds {i} to the running total of values" for i in range(60))
    methods = "\n".join(f"    def method_{i}(self):\n        return {i}  # method {i} of the many\n" for i in range(40))
    source = f"def long_sum():\n    total = 0\n{steps}\n    return total\n\n\nclass Big:\n{methods}\n"
    workspace = Workspace.create(write_repo(tmp_path / "repo", {"calc.py": source}), Config(chunk_size=128, chunk_overlap=32), tmp_path / "store")
    index(workspace)
    library = Library.open(workspace)
    function, big = library.definition("long_sum"), library.definition("Big")
    assert len([d for d in library.documents if d.chunk.symbol == "long_sum"]) > 2, "the function was cut into windows"
    assert len([d for d in library.documents if d.chunk.symbol == "Big"]) > 2, "the class was cut into windows"
    assert function.source == "\n".join(source.splitlines()[function.start_line - 1 : function.end_line])
    assert [line for line in big.source.splitlines() if "def method_" in line] == [f"    def method_{i}(self):" for i in range(40)]


def test_markdown_line_escapes_what_opens_markup_and_keeps_code_and_comparisons() -> None:
    assert markdown_line("Return `List<int>` when a < b,\n  else None") == "Return `List<int>` when a < b, else None"
    assert markdown_line("Widgets > Spin") == "Widgets > Spin", "a section's path reads as it is"
    assert markdown_line("chars/[id].ts") == "chars/\\[id\\].ts"
    for hostile in ("<img src=x onerror=alert(1)>", "a`b <img src=x onerror=alert(1)>", "[x](javascript:alert(1))", "<https://example.org>", "x\\<img src=x>"):
        html = markdown.markdown(f"1. [{markdown_line(hostile)}](files/a/) {markdown_line(hostile)}")
        assert "<img" not in html and re.findall(r'href="([^"]*)"', html) == ["files/a/"], html


# --- what a QA pass on click and express found (issue 14) --------------------------------

QA_SOURCES = {
    **OVERLOADED_SOURCES,
    "report.py": '''
        def render_report(rows):
            """Render the sales report: one line per row with its total, then the grand total."""
            lines = []
            grand = 0
    ''' + "".join(f"            lines.append(str(rows[{n}]['amount'] * {n + 2}))\n" for n in range(40)) + '''
            for row in rows:
                grand += row["amount"]
            lines.append(f"grand total of the sales report: {grand}")
            return "\\n".join(lines)
    ''',
    "progress.py": '''
        def progress_bar(items, label="", hide_when_done=False):
            """Show a progress bar while iterating over the items; with hide_when_done the
            bar is erased from the terminal once the iteration is finished."""
            for item in items:
                yield item


        def mark_done(task):
            """Mark a task as done and hide it from the list of open tasks."""
            task.done = True


        def refund_payment(receipt):
            """Give the money of a receipt back to the card it was charged to."""
            return receipt
    ''',
    "CHANGELOG.md": '''
        # Changelog

        ## 3.0.0

        - Refund a payment back to the card it was charged to, even a partial one.

        ## 2.0.0

        - A refund of a payment to the card now keeps the receipt.

        ## 1.0.0

        - Payments can be refunded to the card they were charged to.
    ''',
}


@pytest.fixture(scope="module")
def qa_library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    from refdoc_site.pipeline import summarize

    root = tmp_path_factory.mktemp("qa")
    workspace = Workspace.create(write_repo(root / "repo", QA_SOURCES), Config(chunk_size=120, chunk_overlap=16), root / "store", root / "site")
    index(workspace)
    summarize(workspace)
    return Library.open(workspace)


def test_an_overloads_chunk_id_names_its_definition_and_its_sections_anchor(qa_library: Library) -> None:
    """click's `Group.group@1906` gave `files/core.py/#chunk-Group.group-1906`, an anchor no page has."""
    stored = sorted(d.chunk.id for d in qa_library.documents if d.chunk.symbol == "Box.get")
    assert stored == ["box.py#Box.get", "box.py#Box.get@10", "box.py#Box.get@13"]
    implementation = qa_library.document("box.py#Box.get@13")
    assert implementation is not None and implementation.chunk.start_line == 13
    assert qa_library.page_url("box.py#Box.get@13") == "files/box.py/#chunk-Box.get"
    definition = qa_library.definition("box.py#Box.get@10")
    assert (definition.id, definition.start_line, definition.end_line) == ("box.py#Box.get", 7, 15)
    assert definition.summary["responsibility"].startswith("Fetch the item"), "the implementation's, not a stub's"


def test_an_overloaded_method_is_one_answer_entry_with_its_summary(qa_library: Library) -> None:
    answer = ask("how do I fetch an item stored under a key from the box?", qa_library, None)
    ids = [s.id for s in answer.sources]
    assert len(ids) == len(set(ids)) and not any("@" in i or "~" in i for i in ids)
    get = [s for s in answer.sources if s.symbol == "Box.get"]
    assert len(get) == 1 and get[0].summary.startswith("Fetch the item") and get[0].url == "files/box.py/#chunk-Box.get"
    assert (get[0].start_line, get[0].end_line) == (7, 15)


def test_a_split_definition_is_cited_with_its_whole_range(qa_library: Library) -> None:
    """`progressbar` was cited as `termui.py:378-432`, its last window; it starts at 283."""
    windows = sorted((d.chunk.part, d.chunk.start_line, d.chunk.end_line) for d in qa_library.documents if d.chunk.symbol == "render_report")
    assert len(windows) >= 3, "the test needs a definition split into windows"
    answer = ask("grand total of the sales report", qa_library, None)
    cited = [s for s in answer.sources if s.symbol == "render_report"]
    assert len(cited) == 1
    assert (cited[0].start_line, cited[0].end_line) == (windows[0][1], windows[-1][2])
    assert cited[0].url == "files/report.py/#chunk-render-report"
    assert f"[report.py:{windows[0][1]}-{windows[-1][2]}](files/report.py/#chunk-render-report)" in answer.text


def test_release_notes_give_one_entry_after_the_projects_own_code(qa_library: Library) -> None:
    """express's `History.md` windows filled 5 of 9 answers."""
    answer = ask("how is a payment refunded to the card it was charged to?", qa_library, None)
    paths = [s.path for s in answer.sources]
    assert paths[0] == "progress.py" and answer.sources[0].symbol == "refund_payment"
    assert paths.count("CHANGELOG.md") == 1 and paths.index("CHANGELOG.md") > paths.index("progress.py")
    assert all(p == "CHANGELOG.md" for p in paths[paths.index("CHANGELOG.md") :])


@pytest.mark.parametrize(("question", "follows"), [
    ("and how do I hide it when done?", True),  # opens like one, refers back
    ("what about the password?", True),  # opens like one
    ("can I change them?", True),  # refers back
    ("in color?", True),  # short: one search term
    ("それを隠すには？", True),
    ("how do I show a progress bar while processing items", False),
    ("how do I check that a file exists", False),  # "that" is a conjunction here
    ("is there a way to count repeated options", False),
    ("パスワードを入力させるには", False),
])
def test_what_makes_a_question_a_follow_up(question: str, follows: bool) -> None:
    from refdoc_site.asking.answer import is_follow_up

    assert is_follow_up(question) is follows


def test_a_follow_up_is_searched_with_the_question_it_continues(qa_library: Library) -> None:
    """"and how do I hide it when done?" after a progress-bar question gave click's Option, Command, echo."""
    follow_up = "and how do I hide it when done?"
    alone = ask(follow_up, qa_library, None)
    assert alone.sources and alone.sources[0].symbol == "mark_done", "alone, it is about hiding a done task"
    history = [Turn("how do I show a progress bar while iterating over items?", "…")]
    assert ask(follow_up, qa_library, None, history).sources[0].symbol == "progress_bar"
    chained = [*history, Turn("and with a label?", "…")]
    assert ask(follow_up, qa_library, None, chained).sources[0].symbol == "progress_bar", "through a chain of follow-ups"
    standalone = "how is a payment refunded to the card?"
    assert ask(standalone, qa_library, None, history).sources[0].symbol == "refund_payment"


def test_a_follow_up_that_finds_nothing_with_the_conversation_is_searched_alone(qa_library: Library, monkeypatch) -> None:
    from refdoc_site.asking import retrieval
    from refdoc_site.asking.retrieval import retrieve

    # The fallback is what is tested, so the premise (nothing about the pair) must not move
    # with the thresholds: at cosine 0.40 the pair's refund words reach the changelog's
    # 1.0.0 entry (0.43), which a cosine of 0.45 turns away.
    monkeypatch.setattr(retrieval, "MIN_COSINE", 0.45)
    earlier, follow_up = "what temperature should sourdough bread be baked at?", "and how is it refunded to the card?"
    assert retrieve(f"{earlier} {follow_up}", qa_library) == [], "together they are about nothing here"
    answer = ask(follow_up, qa_library, None, [Turn(earlier, "Not found in this repository.")])
    assert answer.mode == "extractive" and answer.sources[0].symbol == "refund_payment"


def test_the_terminal_gets_absolute_links_when_the_site_url_is_known(tmp_path: Path, capsys) -> None:
    from refdoc_site.asking.conversation import absolute_links

    text = "1. [a.py:1-4](files/a.py/#chunk-f) `f`; [b](https://x.test/b) [c](#top)"
    assert absolute_links(text, "") == text
    assert absolute_links(text, "https://docs.test/shop") == (
        "1. [a.py:1-4](https://docs.test/shop/files/a.py/#chunk-f) `f`; [b](https://x.test/b) [c](#top)"
    )
    repo = write_repo(tmp_path / "repo", {**ASK_SOURCES, "refdoc.yml": "site_url: https://acme.github.io/shop/\n"})
    assert main(["index", str(repo)]) == 0
    capsys.readouterr()
    assert main(["ask", "which function gives a payment back?", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "1. [shop/payments.py:" in out and "](https://acme.github.io/shop/files/shop/payments.py/#chunk-refund-payment)" in out
    assert main(["ask", "which function gives a payment back?", str(repo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"][0]["url"] == "files/shop/payments.py/#chunk-refund-payment"
