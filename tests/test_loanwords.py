"""Katakana words are read by sound and matched to the index's own English terms: the same
in Python and in the browser's JavaScript, and a query finds code the glossary never named."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.search.japanese import glossary, with_glossary
from refdoc_site.search.loanwords import Loanwords, rules
from refdoc_site.search.ranking import stem

SEARCH_JS = Path(__file__).resolve().parent.parent / "refdoc_site" / "search" / "browser" / "refdoc-search.js"
ENGLISH = ["snapshot", "patch", "pitch", "plain", "plan", "draft", "context", "progress", "freeze", "server",
           "handler", "middleware", "option", "thread", "method", "number", "string", "stream", "message", "object",
           "overlap", "manager"]
VOCABULARY = [stem(word) for word in ENGLISH] + ["no_such", "utf8", "ab", "読み", "2024"]
KATAKANA = ["スナップショット", "パッチ", "プレーン", "ドラフト", "コンテキスト", "プログレスバー", "フリーズ", "サーバー",
            "ハンドラー", "ミドルウェア", "オプション", "スレッド", "メソッド", "ナンバー", "ストリング", "メッセージ",
            "オブジェクト", "キー", "ヴァリデーション", "ティー", "ファンクション", "ア"]


def loanwords() -> Loanwords:
    return Loanwords.of(VOCABULARY)


@pytest.mark.parametrize(
    ("katakana", "english"),
    [("スナップショット", "snapshot"), ("パッチ", "patch"), ("プレーン", "plain"), ("ドラフト", "draft"),
     ("コンテキスト", "context"), ("プログレスバー", "progress"), ("フリーズ", stem("freeze")), ("サーバー", "server"),
     ("ハンドラー", "handler"), ("オプション", "option"), ("スレッド", "thread"), ("メッセージ", stem("message")),
     ("オブジェクト", "object")],
)
def test_a_loanword_finds_the_english_term_it_sounds_like(katakana: str, english: str) -> None:
    assert english in loanwords().english(katakana)


def test_near_words_share_a_sound_and_the_closest_spelling_comes_first() -> None:
    assert loanwords().english("パッチ") == ["patch", "pitch"]  # same skeleton; "pa" is nearer patch
    assert set(loanwords().english("プレーン")) == {"plain", "plan"}


def test_short_or_unknown_words_find_nothing() -> None:
    assert loanwords().english("キー") == []  # one consonant would match too much
    assert loanwords().english("ファンクション") == []  # function is not in this vocabulary
    assert Loanwords.of([]).english("スナップショット") == []


def test_only_plain_words_make_the_vocabulary() -> None:
    terms = {term for entries in loanwords().terms_by_skeleton.values() for term, _ in entries}
    assert terms == {stem(word) for word in ENGLISH}


def test_the_glossary_comes_first_and_other_katakana_is_read_by_sound() -> None:
    assert glossary()["ファイル"] == "file"
    expanded = with_glossary("スナップショットのファイルを削除", loanwords())
    assert expanded.startswith("スナップショットのファイルを削除 snapshot file")
    assert with_glossary("スナップショット") == "スナップショット"  # no vocabulary, no guess
    assert with_glossary("plain text", loanwords()) == "plain text"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_python_and_javascript_read_katakana_alike() -> None:
    texts = ["スナップショットのファイルを削除", "パッチ・ドラフト", "プレーンなテキスト", "キー", "ascii only", "",
             "オーバーラップするプログレスバーとコンテキストマネージャー", "ファイルスナップショット", "ーパッチ"]
    script = (
        "const S = require(process.argv[1]); const input = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "const words = new S.Loanwords(input.rules, input.vocabulary);"
        "const longest = Math.max(...Object.keys(input.glossary).map(k => k.length));"
        "process.stdout.write(JSON.stringify([input.katakana.map(k => words.english(k)),"
        " input.texts.map(t => S.withGlossary(t, input.glossary, longest, words))]));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(SEARCH_JS)],
        input=json.dumps({"rules": rules(), "vocabulary": VOCABULARY, "katakana": KATAKANA, "texts": texts, "glossary": glossary()}),
        capture_output=True, text=True, check=True,
    )
    python = [[loanwords().english(k) for k in KATAKANA], [with_glossary(t, loanwords()) for t in texts]]
    assert json.loads(result.stdout) == python
    assert sum(map(bool, python[0])) >= 12


def test_a_katakana_query_finds_code_named_in_english(tmp_path: Path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", {
        "state/store.py": '''
            def take_snapshot(state):
                """Copy the current state."""
                return dict(state)


            def apply_patch(state, changes):
                """Merge changes into the state."""
                state.update(changes)
        ''',
    })
    store = tmp_path / "store"
    assert main(["index", str(repo), "--store", str(store)]) == 0
    for query, symbol in (("スナップショットを取る", "take_snapshot"), ("パッチを当てる", "apply_patch")):
        capsys.readouterr()
        assert main(["query", query, str(repo), "--store", str(store), "--json", "--mode", "sparse"]) == 0
        assert json.loads(capsys.readouterr().out)[0]["symbol"] == symbol, query


def test_a_katakana_word_is_read_whole_before_a_shorter_entry_inside_it() -> None:
    assert glossary()["バー"] == "bar"
    words = Loanwords.of([stem("overlap"), "window"])
    assert with_glossary("ウィンドウのオーバーラップ", words) == "ウィンドウのオーバーラップ window overlap"
    assert with_glossary("ウィンドウのオーバーラップ") == "ウィンドウのオーバーラップ bar"
