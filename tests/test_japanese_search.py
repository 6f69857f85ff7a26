"""Japanese comments, docstrings and Markdown are searchable: split into character pairs the
same way in Python and in the browser's JavaScript, and found by a Japanese query."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.search.japanese import japanese_terms
from refdoc_site.search.ranking import query_terms, stop_words, terms

ROOT = Path(__file__).resolve().parent.parent
SEARCH_JS = ROOT / "refdoc_site" / "search" / "browser" / "refdoc-search.js"

SAMPLE = [
    "設定ファイルを読み込んでオプションの既定値を決める関数",
    "ユーザー名とパスワードを検証し、失敗したら例外を送出します。",
    "Foo型のインスタンスを返す",
    "型",
    "する",
    "こ",
    "々〆",
    "ｱｲｳ半角カナと全角ＡＢＣ",
    "🙂一時ファイル🙂を削除 parse_args",
    "HTTPリクエストを送信します。タイムアウトは30秒",
    "数字123abc",
    "# 見出し\n\n本文の段落。`code_span` を含む。",
]

JAPANESE_REPO = {
    "billing/invoice.py": '''
        def issue_invoice(order):
            """注文から請求書を発行する。税率は注文の配送先で決まる。"""
            return {"order": order}


        def cancel(order):
            # 在庫を戻してから注文を取り消す
            return None
        ''',
    "docs/運用.md": """
        # 運用ガイド

        ## バックアップの復元手順

        夜間バッチが作成したスナップショットからデータベースを復元します。
        """,
}


def test_a_run_is_cut_at_katakana_and_split_into_pairs() -> None:
    assert japanese_terms("設定ファイルを読み込む") == ["設定", "ファ", "ァイ", "イル", "を読", "読み", "み込", "込む"]
    assert japanese_terms("型") == ["型"]
    assert japanese_terms("してます") == []  # grammar only
    assert terms("HTTPリクエスト") == ["http", "リク", "クエ", "エス", "スト"]
    assert "型" in query_terms("型")  # one kanji is a word; one ASCII letter is not
    assert query_terms("a") == []


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_python_and_javascript_split_japanese_alike() -> None:
    script = (
        "const S = require(process.argv[1]); const input = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "const stop = input.stop.reduce((o, w) => (o[w] = true, o), {});"
        "process.stdout.write(JSON.stringify(input.texts.map(t => [S.terms(t), S.queryTerms(t, stop)])));"
    )
    result = subprocess.run(
        ["node", "-e", script, str(SEARCH_JS)],
        input=json.dumps({"texts": SAMPLE, "stop": sorted(stop_words())}), capture_output=True, text=True, check=True,
    )
    expected = [[terms(text), query_terms(text)] for text in SAMPLE]
    assert json.loads(result.stdout) == expected
    assert sum(len(t) for t, _ in expected) > 80


def test_a_japanese_query_finds_japanese_docstrings_comments_and_markdown(tmp_path, capsys) -> None:
    repo = write_repo(tmp_path / "repo", JAPANESE_REPO)
    store = tmp_path / "store"
    assert main(["index", str(repo), "--store", str(store)]) == 0

    def first_hit(query: str) -> tuple[str, str]:
        capsys.readouterr()
        assert main(["query", query, str(repo), "--store", str(store), "--json", "--mode", "sparse"]) == 0
        hits = json.loads(capsys.readouterr().out)
        return hits[0]["path"], hits[0]["symbol"]

    assert first_hit("請求書の発行") == ("billing/invoice.py", "issue_invoice")
    assert first_hit("在庫を戻す") == ("billing/invoice.py", "cancel")
    assert first_hit("データベースの復元")[0] == "docs/運用.md"
