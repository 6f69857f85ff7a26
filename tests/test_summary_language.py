"""The sentences the offline summarizer writes about a chunk ("Calls …", "Returns …",
"Reads or writes files.", "Uses …") follow refdoc.yml's `language` on the pages, while the
store stays English whatever the language (core/phrases.py)."""

from __future__ import annotations

import json
import re
import shutil
import string
from pathlib import Path
from unittest.mock import patch

import pytest
from helpers import SHOP_FIXTURE

from refdoc_site.core.config import Config
from refdoc_site.core.phrases import localized, phrase_text
from refdoc_site.core.records import ChunkSummary, Phrase
from refdoc_site.core.resources import page_labels
from refdoc_site.pipeline import Workspace, index, render, summarize

EXTRA = '''class Ledger(Base):
    def total(self):
        return self.count > 0

    def add(self, entry):
        if entry is None:
            raise ValueError("no entry")
        return Entry(entry)


def settle(ledger):
    reconcile(ledger)
    archive_entries(ledger)
'''
"""Undocumented code, so that every kind of sentence is written: a class outline, a
comparison returned, a raise, a new instance, calls."""

ENGLISH_PHRASES = (
    "Returns a new ", "Returns the instance itself", "Returns whether ", "Raises ", "Throws ", "Panics with ",
    "Calls ", "Extends ", "Offers ", "Settings in ", "Takes ", "; returns ", "Uses ",
    "reads or writes files", "talks over the network", "queries or changes a database", "runs other programs",
    "changes global state", "asynchronous", "can raise or return errors", "security boundary",
)
"""The fixed words of every sentence summarize.py and code_facts.py write, read from the code
(and checked against the English table below); case is ignored."""

SHOWN_PAGES = ("index.md", "modules/app.md", "files/app/service.py.md", "files/app/extra.py.md", "files/go/server/server.go.md", "files/pyproject.toml.md")
"""The overview, a component page and file pages of four languages."""


def fixed_words(template: str) -> list[str]:
    return [literal.strip(" .…,;:") for literal, _, _, _ in string.Formatter().parse(template) if literal.strip(" .…,;:")]


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


def test_the_list_covers_every_english_phrase() -> None:
    english = page_labels("en")
    texts = [w for t in english["phrases"].values() for w in fixed_words(t)] + [w for t in [*english["effect_names"].values(), *english["note_names"].values()] for w in fixed_words(t)]
    assert texts and all(any(w.lower() in p.lower() or p.strip().lower() in w.lower() for p in ENGLISH_PHRASES) for w in texts), texts


def shown_prose(markdown: str) -> str:
    """A page's own text: without front matter, code blocks, the source boxes, code spans and
    the quoted docstrings (a definition's first paragraph under its heading)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    text = re.sub(r"(?m)^(?: {4}|\t).*$", "", text)
    text = re.sub(r"(?m)^(#{2,6} .*\n\n)(?!- \*\*)[^\n]+\n", r"\1", text)  # the docstring's sentence under a heading
    return re.sub(r"`[^`]*`", "", text)


def build(tmp_path: Path, language: str) -> Path:
    repo = tmp_path / language / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    (repo / "app" / "extra.py").write_text(EXTRA, encoding="utf-8")
    workspace = Workspace.create(repo, Config(site_name="Shop", language=language), tmp_path / language / "store", tmp_path / language / "site")
    index(workspace)
    summarize(workspace)
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        render(workspace)
    return workspace.store_dir


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp_path = tmp_path_factory.mktemp("summary-language")
    return {language: build(tmp_path, language) for language in ("en", "ja")}


def page(store: Path, name: str) -> str:
    return (store / "mkdocs" / "docs" / name).read_text(encoding="utf-8")


def test_a_japanese_site_phrases_the_summarizer_s_sentences_in_japanese(stores: dict[str, Path]) -> None:
    english = {name: shown_prose(page(stores["en"], name)) for name in SHOWN_PAGES}
    # The English pages say them, so their absence below is the language's doing. (Offline
    # the notes' phrases, "can raise or return errors", are not shown: the flags say them.)
    assert {p for p in ENGLISH_PHRASES if any(p.lower() in text.lower() for text in english.values())} >= {
        "Calls ", "Extends ", "Offers ", "Returns whether ", "Raises ", "Returns a new ", "Uses ", "Settings in ", "talks over the network",
    }
    for name in SHOWN_PAGES:
        shown = shown_prose(page(stores["ja"], name))
        left = [p for p in ENGLISH_PHRASES if p.lower() in shown.lower()]
        assert not left, (name, left, [line for line in shown.splitlines() if any(p.lower() in line.lower() for p in left)][:5])
    extra = page(stores["ja"], "files/app/extra.py.md")
    assert "Base を継承します。" in extra and "を呼び出します。" in extra and "かどうかを返します。" in extra
    assert "ネットワーク通信を行います。" in page(stores["ja"], "files/app/service.py.md")


def test_the_store_is_the_same_whatever_the_language(stores: dict[str, Path]) -> None:
    def summaries(store: Path) -> list[dict]:
        lines = (store / "index.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["summary"] for line in lines if line.strip()]

    english, japanese = summaries(stores["en"]), summaries(stores["ja"])
    assert english == japanese and any(s.get("phrases") for s in english)
    assert "Calls reconcile and archive_entries." in [s["responsibility"] for s in english]


def test_every_phrase_is_written_in_every_language() -> None:
    for key in page_labels("en")["phrases"]:
        items = ["file", "network"] if key == "effects" else ["asynchronous", "errors", "security"] if key == "notes" else ["a", "b", "c"]
        said = [Phrase(key, items, "x")]
        english, japanese = phrase_text(said, "en"), phrase_text(said, "ja")
        assert english and japanese and english != japanese, key


def test_a_summary_without_phrases_is_shown_as_stored() -> None:
    quoted = ChunkSummary("Parse one line.", "", "", "", "")
    assert localized(quoted, "ja") is quoted
    phrased = ChunkSummary("Calls a and b.", "", "", "", "", phrases={"responsibility": [Phrase("calls", ["a", "b"])]})
    assert localized(phrased, "en") is phrased
    assert localized(phrased, "ja").responsibility == "a、b を呼び出します。"


DECISION_PHRASES = (
    "Uses ", "Declared in ", "Depend on ", "Imported directly by ", "No indexed file imports", "imported by ",
    "show what for", "(not indexed)", " and ", " more", " for ", " file",
)
"""The fixed words of every sentence the decision log writes about a dependency
(core/decision_phrases.py, checked against the English table below); case is ignored."""


def test_the_list_covers_every_english_decision_phrase() -> None:
    english = page_labels("en")["dependency_phrases"]
    texts = [w for t in english.values() for form in (t.values() if isinstance(t, dict) else [t]) for w in fixed_words(form)]
    assert texts and all(any(p.strip().lower() in w.lower() for p in DECISION_PHRASES) for w in texts), texts


def test_a_japanese_decision_log_phrases_its_dependency_entries_in_japanese(stores: dict[str, Path]) -> None:
    english, japanese = (re.sub(r"\A---\n.*?\n---\n", "", page(stores[language], "decisions.md"), flags=re.S) for language in ("en", "ja"))
    purposes = [str(p) for p in page_labels("en")["dependency_purposes"].values()]
    assert {p for p in DECISION_PHRASES if p.lower() in english.lower()} >= {"Uses ", "Declared in ", "Depend on ", "Imported directly by ", "No indexed file imports"}
    assert "for HTTP requests" in english
    left = [p for p in (*DECISION_PHRASES[:8], *(f"for {p}" for p in purposes)) if p.lower() in japanese.lower()]
    assert not left, (left, [line for line in japanese.splitlines() if any(p.lower() in line.lower() for p in left)][:5])
    assert "HTTP リクエストに requests を使用" in japanese and "1 個のファイルが直接 import しています: app/service.py。" in japanese
    assert "We write the order server in Go" in japanese  # the decision record's own words are quoted as they are
    decisions = [(store / "decisions.json").read_text(encoding="utf-8") for store in (stores["en"], stores["ja"])]
    assert decisions[0] == decisions[1] and '"dependency"' in decisions[0]


def test_every_dependency_entry_is_phrased_in_every_language() -> None:
    from refdoc_site.core.decision_phrases import dependency_texts, localized_decisions
    from refdoc_site.core.findings import Decision, DecisionKind, DependencyFacts, EvidenceLink

    others = DependencyFacts("", [f"p{i}" for i in range(10)], [f"p{i} (>=1)" for i in range(8)], ["pyproject.toml", "go.mod"], ["go.mod"],
                             imported_by=[["a.py", "b.py", "c.py", "d.py"]] * 8)
    purpose = DependencyFacts("testing", ["pytest"], ["pytest"], ["pyproject.toml"])
    english = dependency_texts(others)
    assert english["title"] == "Uses p0, p1, p2, p3 and 6 more"
    assert english["context"] == "Declared in pyproject.toml and go.mod (not indexed); the files that import them show what for."
    assert english["decision"].startswith("Depend on p0 (>=1), imported by a.py, b.py, c.py and 1 more; p1") and english["decision"].endswith("; and 2 more.")
    assert dependency_texts(purpose)["consequences"] == "No indexed file imports it directly."
    for facts in (others, purpose):
        japanese = dependency_texts(facts, "ja")
        assert all(japanese[k] != english_text for k, english_text in dependency_texts(facts).items() if english_text)
        assert not [p for p in DECISION_PHRASES[:8] if any(p.lower() in t.lower() for t in japanese.values())], japanese
    stored = Decision(**dependency_texts(others), kind=DecisionKind.DEPENDENCY, status="", evidence=[EvidenceLink("go.mod (not indexed)")], dependency=others)
    shown = localized_decisions([stored], "ja")[0]
    assert shown.evidence == [EvidenceLink("go.mod（索引外）")] and stored.evidence == [EvidenceLink("go.mod (not indexed)")]
    assert localized_decisions([stored], "en")[0] is stored


def test_a_decision_correction_by_its_english_title_applies_on_a_japanese_site() -> None:
    """The stored log and `refdoc-site correct` name a dependency entry by its English title;
    on a site in another language the page shows another one, and the correction still holds."""
    from types import SimpleNamespace

    from refdoc_site.core.corrections import Correction, TargetKind
    from refdoc_site.core.decision_phrases import dependency_texts, localized_decisions
    from refdoc_site.core.findings import Decision, DecisionKind, DependencyFacts
    from refdoc_site.rendering.corrected import _correct_decision

    facts = DependencyFacts("testing", ["pytest"], ["pytest"], ["pyproject.toml"])
    stored = Decision(**dependency_texts(facts), kind=DecisionKind.DEPENDENCY, status="", evidence=[], dependency=facts)
    shown = localized_decisions([stored], "ja")[0]
    assert shown.title != stored.title
    for target, summary in ((stored.title, "Chosen for its fixtures."), (shown.title, "フィクスチャのため。")):
        data = SimpleNamespace(written={}, decisions=[shown])
        _correct_decision(data, Correction(TargetKind.DECISION, target, 3, summary, "", False, ""))
        assert [d.decision for d in data.decisions] == [summary]
    data = SimpleNamespace(written={}, decisions=[shown])
    _correct_decision(data, Correction(TargetKind.DECISION, stored.title, 3, "", "", True, ""))
    assert data.decisions == []


PLAN_SENTENCES = (
    "Break dependency cycles", "Split the largest files", "Reduce coupling", "Document the public API",
    "modules importing each other", "file import", "is the cycle's lightest edge", "import each other", "imports each other",
    "The repository has", "lines", "Split them along", "mostly the class", "move its largest", "split it along",
    "extract its steps", "function", "method", "These modules and definitions", "imports ", "used by ", "keep its public names",
    "called from ", "of the project's code", "public name", "no doc comment", " expose", "definition", "place", "other file",
)
"""The fixed words of every sentence the refactoring plan writes (understanding/milestones.py
through core/plan_phrases.py, checked against the English table below) that cannot be part
of a path or a name the plan cites; case is ignored."""

PLAN_PHRASES = (*PLAN_SENTENCES, "over", "import", "file", "module", " and ", " in ")
"""With the short words, which can: all the English the plan's table holds."""


def english_plan_templates() -> list[str]:
    english = page_labels("en")
    return [form for section in ("plan_titles", "plan_phrases", "plan_counts", "plan_lists") for t in english[section].values() for form in (t.values() if isinstance(t, dict) else [t])]


def test_the_list_covers_every_english_plan_phrase() -> None:
    texts = [w for t in english_plan_templates() for w in fixed_words(t) if re.search(r"[a-z]", w, re.I)]
    assert texts and all(any(p.strip().lower() in w.lower() for p in PLAN_PHRASES) for w in texts), texts


def test_a_japanese_plan_phrases_its_phases_in_japanese(stores: dict[str, Path]) -> None:
    english, japanese = (re.sub(r"\A---\n.*?\n---\n", "", page(stores[language], "plans/milestones.md"), flags=re.S) for language in ("en", "ja"))
    assert "Document the public API" in english and "1 public name (normalize_name) and no doc comment" in english.replace("\\_", "_")
    left = [p for p in PLAN_SENTENCES if p.lower() in japanese.lower()]
    assert not left, (left, [line for line in japanese.splitlines() if any(p.lower() in line.lower() for p in left)][:5])
    assert "公開 API にドキュメントを書く" in japanese and "公開名 1 個（normalize_name）" in japanese.replace("\\_", "_")
    plans = [(store / "plans.json").read_text(encoding="utf-8") for store in (stores["en"], stores["ja"])]
    assert plans[0] == plans[1] and '"facts"' in plans[0]


def test_every_plan_sentence_is_phrased_in_every_language() -> None:
    from refdoc_site.core.findings import Milestone, MilestoneItem, PlanFacts
    from refdoc_site.core.plan_phrases import localized_milestones, plan_text

    numbers = {"n": 2, "members": 2, "lines": 612, "file_limit": 500, "definition_limit": 60}
    names = {"named": ["a", "b", "c", "d"], "api": ["x", "y", "z", "w"]}
    words = {"target": "a/x.py", "source_module": "a", "target_module": "b", "class": "Ledger"}
    for key, template in page_labels("en")["plan_phrases"].items():
        if key == "definition_in":
            continue
        fields = {f for form in (template.values() if isinstance(template, dict) else [template]) for f in placeholders(form)}
        facts = PlanFacts(key, {f: numbers.get(f, 3) for f in fields - set(names) - set(words)}, {f: names[f] for f in fields & set(names)}, {f: words[f] for f in fields & set(words)})
        english, japanese = plan_text(facts), plan_text(facts, "ja")
        assert english and japanese and english != japanese, key
        assert not [p for p in PLAN_SENTENCES if p.lower() in japanese.lower()], (key, japanese)
    assert plan_text(PlanFacts("called", {"places": 1, "other_files": 2}, {"named": ["a", "b", "c", "d"]})).startswith("called from 1 place in 2 other files of the project's code (a, b, c …)")
    assert plan_text(PlanFacts("documentation_goal", {"n": 1})).startswith("1 file exposes public names")
    item = MilestoneItem("run in app/x.py", "app/x.py", "run", "", "70 lines (function): …", PlanFacts("long_function", {"lines": 70}), "run")
    stored = Milestone("Split the largest files and longest definitions", "…", [item, MilestoneItem("kept", text="as stored")], "size", PlanFacts("size_goal_files", {"files": 1, "file_limit": 500}))
    [shown] = localized_milestones([stored], "ja")
    assert (shown.title, shown.items[0].label, shown.items[0].text) == ("最大のファイルと最長の定義を分割する", "app/x.py の run", "70 行（関数）です。処理の各段階を独自の関数に切り出してください")
    assert shown.goal.startswith("このリポジトリには 500 行を超えるファイルが 1 個あります。") and shown.items[1] == stored.items[1]
    assert localized_milestones([stored], "en")[0] is stored
