"""The token formats shipped as data (`languages/secret_rules.json`) and the converter that
makes them from a scanner's listing (`tools/secret_rules.py`)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import re2

from refdoc_site.core.secret_tokens import EXTRA_PATH, RULES_PATH

ROOT = Path(__file__).resolve().parent.parent


def converter():
    spec = importlib.util.spec_from_file_location("secret_rules_tool", ROOT / "tools" / "secret_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped_rules() -> list[dict]:
    return json.loads(RULES_PATH.read_text(encoding="utf-8"))["rules"] + json.loads(EXTRA_PATH.read_text(encoding="utf-8"))["extra_tokens"]["rules"]


def test_every_shipped_rule_compiles_under_re2_with_usable_literals_and_a_unique_id() -> None:
    rules = shipped_rules()
    assert len(rules) > 400
    assert len({rule["id"] for rule in rules}) == len(rules)
    for rule in rules:
        pattern = re2.compile(rule["pattern"])
        assert rule["group"] <= pattern.groups, rule["id"]
        assert rule["keywords"] and all(k == k.lower() and len(k) >= 3 for k in rule["keywords"]), rule["id"]


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b", ["a3t", "abia", "acca", "akia", "asia"]),
        (r"github_pat_\w{82}", ["github_pat_"]),
        (r"(?i)\b(npm_[a-z0-9]{36})(?:\\?['\"\x60]|[\s;]|\\[nr]|$)", ["npm_"]),
        (r"gh[pousr]_[0-9a-zA-Z]{36}", ["gho_", "ghp_", "ghr_", "ghs_", "ghu_"]),
        (r"(?i)(?:adafruit)(?:[ \t\w.-]{0,20})[\s'\"]{0,3}(?:=|:)([a-z0-9_-]{32})", ["adafruit"]),
        (r"SK[0-9a-fA-F]{32}", sorted("sk" + c for c in "0123456789abcdef")),
        (r"\b(pat[[:alnum:]]{14}\.[a-f0-9]{64})\b", ["pat"]),
        (r"[a-z]{32}", None),
    ],
)
def test_the_converter_finds_the_literals_every_match_holds(pattern: str, literals: list[str] | None) -> None:
    assert converter().required_literals(pattern) == literals


def test_generated_matches_of_every_shipped_rule_hold_one_of_its_literals() -> None:
    tool = converter()
    rules = json.loads(RULES_PATH.read_text(encoding="utf-8"))["rules"]
    assert [rule["id"] for rule in rules if not tool.literals_hold(rule["pattern"], rule["keywords"], seed=1)] == []


def test_every_literal_a_rule_lists_is_in_every_text_it_matches() -> None:
    """The prefilter's promise, checked on the rules' own shapes: a text made of a rule's
    match alone holds one of its literals (lower-cased)."""
    samples = {
        "github-fine-grained-pat": "github_pat_" + "A" * 82,
        "aws-access-token": "ASIA" + "B" * 16,
        "slack-bot-token": "xoxb-1234567890-1234567890-abc",
        "gcp-api-key": "AIza" + "x" * 35 + '"',
    }
    by_id = {rule["id"]: rule for rule in shipped_rules()}
    for rule_id, text in samples.items():
        rule = by_id[rule_id]
        assert re2.search(rule["pattern"], text), rule_id
        assert any(k in text.lower() for k in rule["keywords"]), rule_id
