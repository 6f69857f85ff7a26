"""Refactoring plan: each phase appears only when its measured facts exist, states the
measured numbers, and links items to real file pages and chunk anchors."""

from __future__ import annotations

from dataclasses import replace

from helpers import file_summary, hierarchy, stored_document

from refdoc_site.core.findings import Milestone, MilestoneItem, PlanFacts
from refdoc_site.core.pages import chunk_anchor
from refdoc_site.core.records import (
    ChunkKind,
    Document,
    FileRole,
    ModuleSummary,
)
from refdoc_site.understanding import milestones as plans
from refdoc_site.understanding.graph import RepoGraph
from refdoc_site.understanding.milestones import plan_milestones

CYCLES = "Break dependency cycles between modules"
SIZE = "Split the largest files and longest definitions"
COUPLING = "Reduce coupling at the hotspots"
DOCUMENTATION = "Document the public API"

# --- helpers ----------------------------------------------------------------------------


def document(
    path: str,
    symbol: str,
    start: int,
    end: int,
    kind: ChunkKind = ChunkKind.FUNCTION,
    part: int = 0,
) -> Document:
    return stored_document(path, symbol, start, end, kind, part)


def module(name: str, used_by: tuple[str, ...] = ()) -> ModuleSummary:
    return ModuleSummary(
        name=name, text="", files=[], public_api=[], depends_on=[], used_by=list(used_by), lines=0
    )


def phases(plan: list[Milestone]) -> dict[str, Milestone]:
    return {phase.title: phase for phase in plan}


def texts(phase: Milestone) -> dict[str, str]:
    return {item.label: item.text for item in phase.items}


def cycle_graph() -> RepoGraph:
    return RepoGraph(
        file_imports={
            "a/x.py": ["b/z.py"],
            "a/y.py": ["b/z.py"],
            "b/z.py": ["a/x.py"],
            "c/w.py": [],
        },
        module_of={"a/x.py": "a", "a/y.py": "a", "b/z.py": "b", "c/w.py": "c"},
        module_deps={"a": ["b"], "b": ["a"], "c": []},
        cycles=[["a", "b"]],
    )


# --- phases -----------------------------------------------------------------------------


def test_no_facts_no_phases() -> None:
    documents = [document("a/x.py", "small", 1, 20)]
    files = [file_summary("a/x.py", lines=120, public_api=("small",))]
    assert plan_milestones(documents, hierarchy(files), RepoGraph()) == []


def test_cycle_phase_names_the_imports_of_the_lightest_edge() -> None:
    [phase] = plan_milestones([], hierarchy(), cycle_graph())
    assert phase.title == CYCLES
    assert phase.goal.startswith("1 group of modules imports each other")
    first, cut = phase.items
    assert replace(first, facts=None) == MilestoneItem(
        label="a ↔ b", path="", anchor="", module="", text="2 modules importing each other through 3 file imports"
    )
    assert first.facts == PlanFacts("cycle", {"members": 2, "file_imports": 3})
    assert cut.path == "b/z.py"
    assert cut.text == "imports a/x.py: b → a is the cycle's lightest edge (1 import)"


def test_size_phase_measures_files_and_definitions() -> None:
    documents = [
        document("big.py", "run", 10, 152),
        document("big.py", "Big", 160, 190, ChunkKind.CLASS),
        stored_document("big.py", "Big.method", 200, 260, ChunkKind.METHOD, 1, parent="Big"),
        stored_document("big.py", "Big.method", 261, 330, ChunkKind.METHOD, 2, parent="Big"),
        document("big.py", "<module>", 1, 900, ChunkKind.MODULE),
        document("small.py", "short", 1, 30),
    ]
    files = [
        file_summary("big.py", lines=812),
        file_summary("small.py", lines=100),
        file_summary("README.md", lines=900, language="markdown"),
    ]
    [phase] = plan_milestones(documents, hierarchy(files), RepoGraph())
    assert phase.title == SIZE
    assert phase.goal.startswith(
        "The repository has 1 file over 500 lines and 2 definitions over 60 lines."
    )
    assert texts(phase) == {
        "big.py": "812 lines: move its largest definitions (run, Big) into modules of their own",
        "run in big.py": "143 lines (function): extract its steps into functions of their own",
        "Big.method in big.py": "131 lines (method): extract its steps into functions of their own",
    }
    anchors = {item.label: item.anchor for item in phase.items}
    assert anchors == {
        "big.py": "",
        "run in big.py": chunk_anchor("run"),
        "Big.method in big.py": chunk_anchor("Big.method"),
    }
    real = {chunk_anchor(d.chunk.symbol) for d in documents}
    assert all(item.anchor in real for item in phase.items if item.anchor)


def test_size_phase_is_absent_under_the_thresholds() -> None:
    documents = [document("a.py", "f", 1, plans.LONG_DEFINITION_LINES)]
    files = [file_summary("a.py", lines=plans.LARGE_FILE_LINES)]
    assert phases(plan_milestones(documents, hierarchy(files), RepoGraph())) == {}


def test_coupling_phase_measures_fan_out_fan_in_and_callers() -> None:
    """A definition's callers count only from the project's own code, in other files: a test
    calling the public API is no coupling, nor a function calling its neighbour."""
    own_callers = [document(f"app/m{i}.py", "caller", 1, 5) for i in range(12)]
    test_callers = [document(f"tests/test_{i}.py", "test_it", 1, 5) for i in range(30)]
    callers = [d.chunk.id for d in own_callers]
    documents = [document("core/util.py", "helper", 1, 5), document("core/util.py", "neighbour", 7, 9), document("core/api.py", "Public", 1, 5, ChunkKind.CLASS), *own_callers, *test_callers]
    graph = RepoGraph(
        module_deps={"hub": ["m1", "m2", "m3", "m4", "m5", "m6"], "quiet": ["m1"]},
        callers={
            "core/util.py#helper": [*callers, "core/util.py#neighbour"],
            "core/util.py#missing": callers,
            "core/api.py#Public": [d.chunk.id for d in test_callers] + callers[:3],
        },
    )
    files = [file_summary(f"tests/test_{i}.py", file_role=FileRole.TEST) for i in range(30)]
    modules = [
        module("core", used_by=("m1", "m2", "m3", "m4", "m5")),
        module("leaf", used_by=("m1",)),
    ]
    [phase] = plan_milestones(documents, hierarchy(files, modules), graph)
    assert phase.title == COUPLING
    assert [(i.label, i.module) for i in phase.items[:2]] == [("hub", "hub"), ("core", "core")]
    assert phase.items[0].text.startswith("imports 6 modules (m1, m2, m3 …): ")
    assert phase.items[1].text.startswith("used by 5 modules (m1, m2, m3 …): ")
    helper = phase.items[2]
    assert (helper.label, helper.path, helper.anchor) == ("helper in core/util.py", "core/util.py", chunk_anchor("helper"))
    assert helper.text.startswith("called from 12 places in 12 other files of the project's code (app/m0.py, app/m1.py, app/m10.py …)")
    assert len(phase.items) == 3, "a chunk not indexed, and a class called from tests, are no hotspot"


def test_coupling_phase_is_absent_below_the_thresholds() -> None:
    documents = [document("core/util.py", "helper", 1, 5)]
    graph = RepoGraph(
        module_deps={"hub": ["m1", "m2", "m3", "m4"]}, callers={"core/util.py#helper": ["a#b"] * 9}
    )
    modules = [module("core", used_by=("m1", "m2", "m3", "m4"))]
    assert plan_milestones(documents, hierarchy(modules=modules), graph) == []


def test_documentation_phase_lists_undocumented_public_files_largest_first() -> None:
    files = [
        file_summary("app/small.py", lines=40, has_docs=False, public_api=("one",)),
        file_summary(
            "app/big.py", lines=340, has_docs=False, public_api=("load", "save", "Store", "merge")
        ),
        file_summary("app/documented.py", lines=450, has_docs=True, public_api=("run",)),
        file_summary("app/private.py", lines=400, has_docs=False),
        file_summary(
            "tests/test_app.py", lines=480, has_docs=False, public_api=("test_load",), file_role=FileRole.TEST
        ),
    ]
    [phase] = plan_milestones([], hierarchy(files), RepoGraph())
    assert phase.title == DOCUMENTATION
    assert phase.goal.startswith("2 files expose public names")
    assert [(i.label, i.path, i.text) for i in phase.items] == [
        (
            "app/big.py",
            "app/big.py",
            "340 lines, 4 public names (load, save, Store…) and no doc comment",
        ),
        ("app/small.py", "app/small.py", "40 lines, 1 public name (one) and no doc comment"),
    ]


def test_phases_come_in_order_and_are_capped() -> None:
    documents = [document(f"f{i}.py", "run", 1, 100) for i in range(15)]
    files = [
        file_summary(f"f{i}.py", lines=600 + i, has_docs=False, public_api=("run",))
        for i in range(15)
    ]
    graph = cycle_graph()
    graph.module_deps["hub"] = ["a", "b", "c", "d", "e"]
    plan = plan_milestones(documents, hierarchy(files), graph)
    assert [p.title for p in plan] == [CYCLES, SIZE, COUPLING, DOCUMENTATION]
    assert all(len(p.items) <= plans.MAX_ITEMS for p in plan)
    size = phases(plan)[SIZE]
    assert [i.text.split(":")[0] for i in size.items][:5] == [
        "614 lines",
        "613 lines",
        "612 lines",
        "611 lines",
        "610 lines",
    ]
    assert sum(i.anchor != "" for i in size.items) == 5, (
        "files and definitions share the room"
    )
    assert phases(plan)[DOCUMENTATION].items[0].label == "f14.py"


def test_tests_vendored_and_generated_code_are_no_hotspots() -> None:
    files = [
        file_summary("gen/parser.py", lines=900, file_role=FileRole.GENERATED),
        file_summary("tests/test_big.py", lines=900, has_docs=False, public_api=("test_x",), file_role=FileRole.TEST),
        file_summary("vendor/lib.py", lines=50, file_role=FileRole.VENDORED),
        file_summary("core/api.py", lines=40),
    ]
    documents = [document("gen/parser.py", "parse", 1, 400), document("tests/test_big.py", "test_x", 1, 300)]
    modules = [
        replace(module("tests"), files=["tests/test_big.py"]),
        replace(module("core", used_by=("tests", "m1", "m2", "m3", "m4")), files=["core/api.py"]),
    ]
    graph = RepoGraph(module_deps={"tests": ["core", "m1", "m2", "m3", "m4", "m5"]})
    assert plan_milestones(documents, hierarchy(files, modules), graph) == []
    modules[1].used_by.append("m5")
    [phase] = plan_milestones(documents, hierarchy(files, modules), graph)
    assert [(i.label, i.text.split(" (")[0]) for i in phase.items] == [("core", "used by 5 modules")]
