"""Every page in the configured language: the fixed texts of all page kinds come from one
table per language (`templates/labels/LANG.json`); every text a template or the renderer
asks for is in every table, with the same placeholders, and a Japanese build shows no
English heading."""

from __future__ import annotations

import json
import re
import shutil
import string
from pathlib import Path
from unittest.mock import patch

import pytest
import yaml
from helpers import SHOP_FIXTURE
from jinja2 import Environment, nodes

from refdoc_site.core.config import Config
from refdoc_site.core.records import ChunkKind
from refdoc_site.core.resources import mkdocs_template, templates_dir
from refdoc_site.pipeline import Workspace, index, render, summarize
from refdoc_site.rendering import render as render_module
from refdoc_site.rendering.render import page_labels, plural

TABLES = templates_dir() / "labels"
LANGUAGES = sorted(p.stem for p in TABLES.glob("*.json"))
PYTHON_LOOKUP = re.compile(r"""labels\[["'](\w+)["']\]""")
"""How the renderer's Python reads the table (`self.labels["plan"]`, `labels['flagged']`)."""


def table(language: str) -> dict[str, object]:
    return json.loads((TABLES / f"{language}.json").read_text(encoding="utf-8"))


def template_sources() -> dict[str, str]:
    sources = {p.relative_to(templates_dir()).as_posix(): p.read_text(encoding="utf-8") for p in sorted(templates_dir().rglob("*.jinja2"))}
    sources["mkdocs.yml.template"] = mkdocs_template().read_text(encoding="utf-8")
    return sources


def keys_used_by_templates() -> dict[str, set[str]]:
    """Every `t.key` and `t["key"]` of every template, found in Jinja's syntax tree, by template."""
    environment = Environment()
    used: dict[str, set[str]] = {}
    for name, source in template_sources().items():
        tree = environment.parse(source)
        keys = {n.attr for n in tree.find_all(nodes.Getattr) if isinstance(n.node, nodes.Name) and n.node.name == "t"}
        keys |= {
            n.arg.value
            for n in tree.find_all(nodes.Getitem)
            if isinstance(n.node, nodes.Name) and n.node.name == "t" and isinstance(n.arg, nodes.Const)
        }
        used[name] = keys
    return used


def keys_used_by_renderer() -> set[str]:
    """The lookups of every rendering module (render.py, changes.py for the change map,
    stamp.py for the footer), of the answers `ask` gives (asking/) and of the offline
    summaries' phrases (understanding/hierarchy.py, core/phrases.py), of the decision log's
    (core/decision_phrases.py) and of the refactoring plan's (core/plan_phrases.py)."""
    package = Path(render_module.__file__).parent.parent
    sources = [*(package / "rendering").glob("*.py"), *(package / "asking").glob("*.py"), package / "understanding" / "hierarchy.py", package / "core" / "phrases.py", package / "core" / "decision_phrases.py", package / "core" / "plan_phrases.py"]
    return set().union(*(PYTHON_LOOKUP.findall(source.read_text(encoding="utf-8")) for source in sources))


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def shape(value: object) -> object:
    """What a translation must keep of an entry: its kind, its keys and its placeholders."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    return placeholders(value)


def test_there_is_an_english_and_a_japanese_table() -> None:
    assert {"en", "ja"} <= set(LANGUAGES)


def test_every_key_a_template_or_the_renderer_uses_is_in_every_table() -> None:
    used = keys_used_by_templates()
    # The parse must see the lookups: a page kind without any would mean the collector is blind.
    assert all(used[name] for name in ("index.md.jinja2", "file.md.jinja2", "module.md.jinja2", "mkdocs.yml.template"))
    wanted = set().union(*used.values()) | keys_used_by_renderer()
    assert {"at_a_glance", "module_map", "called_by", "responsibility", "overview", "plan", "flagged"} <= wanted
    for language in LANGUAGES:
        missing = wanted - set(table(language))
        assert not missing, f"templates/labels/{language}.json lacks {sorted(missing)}"


def test_every_table_has_the_same_keys_forms_and_placeholders() -> None:
    english = shape(table("en"))
    for language in LANGUAGES:
        other = shape(table(language))
        assert set(other) == set(english), f"{language}: keys differ from en: {sorted(set(other) ^ set(english))}"
        for key in english:
            assert other[key] == english[key], f"templates/labels/{language}.json: {key!r} differs from en in its forms or placeholders"


def test_no_table_holds_a_text_nothing_uses() -> None:
    used = set().union(*keys_used_by_templates().values()) | keys_used_by_renderer()
    assert not set(table("en")) - used


def test_every_kind_of_chunk_has_a_name() -> None:
    for language in LANGUAGES:
        assert set(table(language)["kinds"]) == {kind.value for kind in ChunkKind}


@pytest.mark.parametrize(
    ("language", "count", "expected"),
    [("en", 1, "1 file, 9 lines."), ("en", 3, "3 files, 9 lines."), ("ja", 1, "ファイル 1 個、9 行。"), ("ja", 3, "ファイル 3 個、9 行。")],
)
def test_counts_take_their_language_s_form(language: str, count: int, expected: str) -> None:
    assert plural(page_labels(language)["module_size"], count, lines=9) == expected


def test_a_language_without_a_table_gets_english() -> None:
    assert page_labels("fr") == table("en")


ENGLISH_FIXED_TEXTS = (
    "At a glance",
    "Module map",
    "Files indexed",
    "Called by",
    "Responsibility",
    "Boundary",
    "Public API",
    "(outside this repository)",
    ", lines ",
    "Source, lines",
    "See also the",
    "An architecture decision log",
    "File summaries",
    "Module summaries",
    "The summaries form a hierarchy",
    "Phases proposed",
)


def test_a_japanese_build_has_japanese_pages_and_navigation(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    workspace = Workspace.create(repo, Config(site_name="Shop", language="ja"), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        render(workspace)
    docs = workspace.project_dir / "docs"

    def page(name: str) -> str:
        return (docs / name).read_text(encoding="utf-8")

    overview, module, source, decisions = page("index.md"), page("modules/app.md"), page("files/app/service.py.md"), page("decisions.md")
    assert "## 一目で" in overview and "## モジュール図" in overview and "- **インデックスしたファイル:** " in overview
    assert "# モジュール app" in module and "## 境界" in module and "## 公開 API" in module and "| ファイル | 役割 |" in module
    assert "- **責務:** " in source and "- **呼び出し先:** " in source and "??? quote \"ソース（行 " in source
    assert "- **呼び出し元:** " in page("files/app/util.py.md")
    assert re.search(r"^メソッド、行 \d+–\d+。$", source, re.MULTILINE), source
    assert "# 設計判断の記録" in decisions and "**決定：** " in decisions
    assert "# リファクタリング計画" in page("plans/milestones.md")
    assert "# システムの概要" in page("summaries/system.md") and "# モジュールの要約" in page("summaries/modules.md")
    assert "# ファイルの要約" in page("summaries/files.md")
    for name in ("index.md", "modules/app.md", "files/app/service.py.md", "files/app/util.py.md", "decisions.md", "plans/milestones.md", "summaries/system.md", "summaries/modules.md", "summaries/files.md"):
        shown = page(name)
        assert not [text for text in ENGLISH_FIXED_TEXTS if text in shown], name

    # The rest of mkdocs.yml holds Python tags that a safe load refuses.
    nav_yaml = (workspace.project_dir / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    nav = yaml.safe_load("nav:\n" + nav_yaml)["nav"]
    assert [next(iter(entry)) for entry in nav] == ["概要", "設計判断の記録", "モジュール", "計画", "要約"]
