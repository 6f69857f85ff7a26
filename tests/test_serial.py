"""The one JSON conversion of the records: round trips, the stored layout, and what it refuses."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum

import pytest

from refdoc_site.core.records import (
    ChunkKind,
    Document,
    Hierarchy,
    Metadata,
    ModuleSummary,
    SystemSummary,
)
from refdoc_site.core.serial import SORTED_KEYS, from_json, json_name, to_json
from refdoc_site.writing.grounding import Citation, GroundingReport, NameSegment, TextSegment
from refdoc_site.writing.links import Link
from refdoc_site.writing.written import Plan, PlanChange, PlanChunk, WrittenDecisions


class Colour(str, Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Leaf:
    name: str
    colour: Colour = Colour.RED


@dataclass
class Tree:
    leaves: list[Leaf]
    by_name: dict[str, Leaf] = field(default_factory=dict, metadata={SORTED_KEYS: True})
    pair: tuple[str, ...] = ()
    best: Leaf | None = None
    renamed: int = field(default=0, metadata=json_name("renamedField"))


def test_nested_records_round_trip_with_enums_tuples_and_optionals() -> None:
    tree = Tree(
        [Leaf("a", Colour.BLUE), Leaf("b")],
        {"z": Leaf("z"), "a": Leaf("a", Colour.BLUE)},
        ("x", "y"),
        Leaf("best", Colour.BLUE),
        7,
    )
    data = json.loads(json.dumps(to_json(tree)))
    assert data["leaves"][0] == {"name": "a", "colour": "blue"}
    assert list(data["by_name"]) == ["a", "z"], "a sorted-keys dict is written in key order"
    assert data["pair"] == ["x", "y"]
    assert "renamedField" in data and "renamed" not in data
    back = from_json(Tree, data)
    assert back == tree
    assert back.leaves[0].colour is Colour.BLUE
    assert isinstance(back.pair, tuple)


def test_missing_keys_take_defaults_and_a_missing_required_key_is_an_error() -> None:
    assert from_json(Tree, {"leaves": [{"name": "a"}]}) == Tree([Leaf("a")])
    assert from_json(Tree, {"leaves": [], "best": None}).best is None
    with pytest.raises(KeyError):
        from_json(Tree, {"pair": []})


def test_a_union_other_than_optional_is_refused_when_first_converted() -> None:
    @dataclass
    class Either:
        value: int | str

    with pytest.raises(TypeError, match="union"):
        to_json(Either(1))


def test_an_index_line_of_the_earlier_hand_written_format_loads_and_writes_back_the_same() -> None:
    """Field names and order are the store's format: a store written before still loads."""
    line = (
        '{"chunk":{"id":"a.py#f","path":"a.py","language":"python","kind":"function","name":"f",'
        '"symbol":"f","signature":"def f()","start_line":1,"end_line":2,"content":"def f():\\n    pass",'
        '"docstring":"","parent":"","part":0,"tokens":9},'
        '"summary":{"responsibility":"r","inputOutput":"io","sideEffects":"","mainDependencies":"","notes":"",'
        '"source":"extractive"},'
        '"metadata":{"imports":[],"exports":["f"],"callers":["b.py#g"],"callees":["c.py#h"],'
        '"unresolvedCalls":["print"],"calls":["h","print"],"isAsync":false,'
        '"throwsException":false,"securityBoundary":"","effects":[],"definitions":{},"sources":{}},'
        '"embedding":[0.5,-0.25],"indexedAt":"2026-01-01T00:00:00+00:00","fileSha256":"ab"}'
    )
    document = from_json(Document, json.loads(line))
    assert document.chunk.kind is ChunkKind.FUNCTION
    assert document.file_sha256 == "ab"
    assert json.dumps(to_json(document), separators=(",", ":")) == line


def test_hierarchy_writes_modules_and_files_in_key_order_but_languages_as_built() -> None:
    modules = {name: ModuleSummary(name, "t", [], [], [], [], 1) for name in ("b", "a")}
    hierarchy = Hierarchy(SystemSummary("s", [], [], {"python": 2, "go": 1}), modules, {})
    data = to_json(hierarchy)
    assert list(data["modules"]) == ["a", "b"]
    assert list(data["system"]["languages"]) == ["python", "go"]
    assert from_json(Hierarchy, data) == hierarchy
    assert from_json(Metadata, {}) == Metadata()


def test_a_stored_plan_keeps_its_key_order_and_reads_back_with_links_and_segments() -> None:
    plan = Plan(
        slug="add-x", origin="cli", model="m", language="en", query="add x", searched="add x",
        modules=[Link("app", "modules/app.md")], files=[], chunks=[PlanChunk("a.py:1–2", "files/a.py.md", "chunk-f", "f", "Does f.")],
        summary=[TextSegment("Do "), NameSegment("f", Link("a.py:1–2", "files/a.py.md", "chunk-f"))],
        changes=[PlanChange([TextSegment("Change")], [TextSegment("Detail")])], steps=[], risks=[],
        grounding=GroundingReport(citations=1, flagged_names=["g"]),
    )
    data = json.loads(json.dumps(to_json(plan)))
    assert list(data)[:4] == ["slug", "origin", "model", "language"]
    assert data["modules"] == [{"label": "app", "page": "modules/app.md", "anchor": ""}]
    assert data["summary"] == [{"text": "Do "}, {"code": "f", "link": {"label": "a.py:1–2", "page": "files/a.py.md", "anchor": "chunk-f"}}]
    back = from_json(Plan, data)
    assert back == plan and isinstance(back.modules[0], Link) and isinstance(back.grounding, GroundingReport)


def test_a_stored_decision_log_of_the_earlier_dict_segments_loads_as_records_and_writes_back_the_same() -> None:
    """Segments were stored as tagged dicts before they were records: the same keys, no more."""
    link = {"label": "app/a.py:1–2", "page": "files/app/a.py.md", "anchor": "chunk-f"}
    stored = {
        "model": "m",
        "language": "ja",
        "entries": [
            {
                "title": [{"text": "Keep "}, {"code": "f"}],
                "status": [{"text": "accepted"}],
                "context": [{"text": "Because"}, {"cite": link}, {"text": "。"}],
                "decision": [{"text": "Use "}, {"code": "f", "link": link}, {"text": ", not "}, {"code": "g()", "flagged": True}],
                "consequences": [],
                "evidence": [link],
            }
        ],
        "grounding": {"citations": 1, "dropped_citations": ["C9"], "linked_names": 1, "flagged_names": ["g"], "uncited_statements": 0},
    }
    text = json.dumps(stored, ensure_ascii=False, indent=1)
    written = from_json(WrittenDecisions, json.loads(text))
    entry = written.entries[0]
    assert entry.title == [TextSegment("Keep "), NameSegment("f")]
    assert entry.context[1] == Citation(Link("app/a.py:1–2", "files/app/a.py.md", "chunk-f"))
    assert entry.decision[1] == NameSegment("f", Link("app/a.py:1–2", "files/app/a.py.md", "chunk-f"))
    assert entry.decision[3] == NameSegment("g()", flagged=True)
    assert json.dumps(to_json(written), ensure_ascii=False, indent=1) == text


@dataclass
class Named:
    name: str
    colour: Colour = Colour.BLUE


def test_a_union_of_records_whose_first_fields_do_not_tell_them_apart_is_refused() -> None:
    @dataclass
    class Either:
        value: Leaf | Named

    with pytest.raises(TypeError, match="union"):
        to_json(Either(Leaf("a")))
