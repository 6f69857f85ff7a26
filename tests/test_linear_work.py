"""The per-file work stays linear in a file's size, checked by what the code does, not by a
clock (`benchmarks/scaling.py` measures the seconds): the row-owner map that used to walk
a chunk's every row per chunk gives what its definition says, calls and called names read
in one pass give what the patterns that restarted at every name gave, and a file the
parser would re-read from each position is windowed and analysed by the regular
expressions instead."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

import pytest
from helpers import dedent, source_file, write_repo
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.cpu_budget import CpuBudget
from refdoc_site.core.records import Chunk, ChunkKind
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import COMMENT_MARKER_RE, chunk_file, strip_comment_markers
from refdoc_site.indexing.regex_tier import calls_in, file_imports, imported_name, strip_strings_and_comments
from refdoc_site.indexing.text_chunks import _heading
from refdoc_site.indexing.tree_sitter_tier import (
    _chunks_owning_rows,
    _innermost_chunk_by_row,
    as_written,
)
from refdoc_site import languages
from refdoc_site.cli import main
from refdoc_site.core.store import Store
from refdoc_site.languages import PARSE_REFUSED, language_named, parse, parse_refusal, patterns, tree_matches
from refdoc_site.languages.patterns import NOT_CALLS
from refdoc_site.writing.docstrings import ROLE_TITLE, parse_docstring

SPANS = st.lists(st.tuples(st.integers(1, 40), st.integers(0, 12)), max_size=25)
"""(first line, extra lines) of chunks in a file of up to about 50 lines."""


def chunks_of(spans: list[tuple[int, int]]) -> list[Chunk]:
    return [
        Chunk(f"f.py#c{index}", "f.py", "python", ChunkKind.FUNCTION, f"c{index}", f"c{index}", "", start, start + extra, "")
        for index, (start, extra) in enumerate(spans)
    ]


def innermost_by_definition(chunks: list[Chunk], rows: int) -> list[str | None]:
    """Per row, of the chunks around it the one with the fewest lines (of equal ones, the last listed)."""
    owners: list[str | None] = []
    for row in range(rows):
        around = [(c.end_line - c.start_line, -index, c.id) for index, c in enumerate(chunks) if c.start_line - 1 <= row <= c.end_line - 1]
        owners.append(min(around)[2] if around else None)
    return owners


@settings(max_examples=300, deadline=None)
@given(spans=SPANS, rows=st.integers(0, 55))
def test_innermost_chunk_by_row_is_the_smallest_chunk_around_each_row(spans, rows):
    chunks = chunks_of(spans)
    owners = _innermost_chunk_by_row(chunks, rows)
    assert [c.id if c else None for c in owners] == innermost_by_definition(chunks, rows)


@settings(max_examples=300, deadline=None)
@given(spans=SPANS, rows=st.sets(st.integers(0, 55)))
def test_chunks_owning_rows_are_the_innermost_around_any_row(spans, rows):
    # an error inside a function breaks that function, not the module or class around it
    chunks = chunks_of(spans)
    innermost = innermost_by_definition(chunks, 56)
    expected = {innermost[row] for row in rows if innermost[row] is not None}
    assert _chunks_owning_rows(_innermost_chunk_by_row(chunks, 56), rows) == expected


def unterminated_comments(functions: int) -> str:
    """A script whose first `/*` never closes: tree-sitter's error recovery re-reads the
    rest of the file from each position after it."""
    return "".join(f"function f{i}() {{ /* open {i}\n  return g{i}(); }}\n" for i in range(functions))


def test_a_file_too_costly_to_parse_is_windowed_and_analysed_by_regex():
    text = unterminated_comments(3000)
    assert parse(language_named("javascript"), text) is None
    source = source_file("app.js", "javascript", text)
    chunks = chunk_file(source, text, ChunkSettings())
    assert {c.kind for c in chunks} == {ChunkKind.WINDOW}
    assert chunks[0].start_line == 1 and chunks[-1].end_line == text.count("\n")
    analysis = SyntaxAnalyzer().analyze(source, text, chunks)
    assert set(analysis.metadata) == {c.id for c in chunks}
    assert all(m.sources.get("calls") == "regex" for m in analysis.metadata.values())


def test_a_parse_over_its_cpu_time_is_stopped(monkeypatch: pytest.MonkeyPatch):
    """The read budget does not see a text that makes the parser work without re-reading;
    the CPU budget, checked as the parser goes, stops any parse that runs over it."""
    text = "def f(x):\n    return g(x)\n" * 20_000
    spec = language_named("python")
    parse.cache_clear()
    assert parse(spec, text) is not None and parse_refusal(spec, text) == ""
    monkeypatch.setattr(languages, "PARSE_CPU_SECONDS", -1.0)
    parse.cache_clear()
    assert parse(spec, text) is None
    assert parse_refusal(spec, text) == PARSE_REFUSED
    parse.cache_clear()


def test_a_chain_nested_past_65535_levels_is_queried_in_linear_time():
    """A 1 MB chain of `key=key=…` nests 250,000 deep; past 65,535 levels tree-sitter's
    query cursor goes quadratic (300 KB: 41 s for one query; 1 MB: over the deadline). Matches start no deeper than
    `QUERY_MAX_START_DEPTH`, which no honest definition, call or import reaches."""
    text = "key=" * 250_000 + "\nfunction f() { return require('m'); }\n"
    spec = language_named("javascript")
    parse.cache_clear()
    assert parse(spec, text) is not None
    assert finishes(lambda: [tree_matches(spec, text, kind) for kind in ("definitions", "calls", "imports")])
    parse.cache_clear()


def test_a_file_too_costly_to_parse_is_counted_in_the_store_and_in_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    repo = write_repo(tmp_path / "repo", {"app.js": unterminated_comments(3000), "ok.js": "function f() { return 1; }\n"})
    assert main(["index", str(repo)]) == 0
    assert "1 file too costly to parse, chunked in windows; see refdoc-site stats" in capsys.readouterr().out
    files = Store(repo / ".refdoc").load().files
    assert files["app.js"].unparsed == PARSE_REFUSED and files["ok.js"].unparsed == ""
    assert main(["stats", str(repo)]) == 0
    shown = capsys.readouterr().out
    assert "1 file too costly to parse, chunked in windows (over the parser's read or CPU budget):\n  app.js" in shown


def test_an_ordinary_file_keeps_its_tree_and_its_text():
    text = "function f() { /* closed */ return g(); }\n" * 200
    tree = parse(language_named("javascript"), text)
    assert tree is not None and not tree.root_node.has_error
    assert tree.root_node.children[0].text == b"function f() { /* closed */ return g(); }"


def test_a_chunk_lists_the_imports_it_uses_in_import_order():
    text = dedent(
        """
        import zlib
        import base64
        import json

        def pack(value):
            return zlib.compress(base64.b64encode(json.dumps(value).encode()))

        def load(blob):
            return json.loads(blob)
        """
    )
    source = source_file("pack.py", "python", text)
    chunks = chunk_file(source, text, ChunkSettings())
    analysis = SyntaxAnalyzer().analyze(source, text, chunks)
    imports = {c.name: analysis.metadata[c.id].imports for c in chunks}
    assert imports["pack"] == ["zlib", "base64", "json"]
    assert imports["load"] == ["json"]


CALL_IN_ONE_PATTERN = re.compile(r"(?<![\w$])((?:[A-Za-z_$][\w$]*\s*(?:\.|::|->)\s*)*[A-Za-z_$][\w$]*)\s*(?:<[\w\s,<>]*>)?\s*\(")
"""How calls were read before: one pattern, which reads a long dotted run that is no call
again from each name in it (a 40 kB line of `a.a.a…`: 30 s)."""
DOTTED_TAIL_SEARCH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
CODE_PIECES = st.lists(
    st.sampled_from(["a", "b1", "$", "_x", ".", "::", "->", "?.", " ", "\n", "(", ")", "<", ">", ",", "1", "é", "if"]),
    max_size=40,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(body=CODE_PIECES)
def test_calls_in_reads_the_calls_the_single_pattern_read(body):
    expected = [re.sub(r"\s+", "", m.group(1)).replace("::", ".").replace("->", ".") for m in CALL_IN_ONE_PATTERN.finditer(body)]
    expected = list(dict.fromkeys(name for name in expected if name.rsplit(".", 1)[-1] not in NOT_CALLS))
    assert calls_in(body) == expected


@settings(max_examples=500, deadline=None)
@given(expression=CODE_PIECES)
def test_as_written_keeps_the_trailing_dotted_name(expression):
    name = re.sub(r"\s+", "", expression).replace("?.", ".").replace("::", ".").replace("->", ".")
    match = DOTTED_TAIL_SEARCH.search(name)
    assert as_written(expression) == (match.group(0) if match else "")


def test_an_unclosed_block_comment_or_string_runs_to_the_end_of_the_text():
    assert calls_in(strip_strings_and_comments("a(); /* b(); /* c();\nd();", "javascript")) == ["a"]
    assert calls_in(strip_strings_and_comments('a()\nx = """b()\nc()', "python")) == ["a"]
    assert calls_in(strip_strings_and_comments("a(); /* b(); */ c();", "javascript")) == ["a", "c"]


def finishes(work, seconds: float = 30.0) -> bool:
    """Whether `work()` ends, without error, within a generous deadline: run in a forked
    child, so a regular expression that would take hours fails the test instead of hanging it."""
    child = multiprocessing.get_context("fork").Process(target=work, daemon=True)
    child.start()
    child.join(seconds)
    if child.is_alive():
        child.kill()
        child.join()
        return False
    return child.exitcode == 0


OLD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
"""How an ATX heading was read: every split of a run of blanks in the title was tried
(time growing with the cube of the run; 2,000 blanks took 110 s)."""
HEADING_PIECES = st.lists(st.sampled_from(["#", "##", " ", "\t", "a", "b c", "\u00a0", "\r"]), max_size=14).map("".join)


@settings(max_examples=500, deadline=None)
@given(line=HEADING_PIECES)
def test_a_heading_reads_as_the_old_expression_read_it(line):
    old = OLD_HEADING.match(line)
    heading = _heading([line], 0)
    assert (heading is None) == (old is None)
    if old:
        assert heading == (0, len(old.group(1)), old.group(2).strip())


def test_a_heading_with_a_long_run_of_blanks_is_read_in_linear_time():
    line = "# a" + " " * 100_000 + "b"
    text = f"intro\n\n{line}\n\nbody\n"
    source = source_file("notes.md", "markdown", text)
    assert finishes(lambda: chunk_file(source, text, ChunkSettings()))
    assert _heading([line], 0)[2] == line[2:]


def old_strip_comment_markers(text: str) -> str:
    return "\n".join(re.sub(r"\s*\*/\s*$", "", COMMENT_MARKER_RE.sub("", line)).rstrip() for line in text.splitlines()).strip()


COMMENT_PIECES = st.lists(st.sampled_from(["/*", "*/", "*", "//", "#", "--", " ", "\t", "x", "\n", "/", "**/"]), max_size=16).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=COMMENT_PIECES)
def test_comment_markers_come_off_as_the_old_expression_took_them(text):
    assert strip_comment_markers(text) == old_strip_comment_markers(text)


def test_a_comment_with_a_long_run_of_blanks_is_cleaned_in_linear_time():
    comment = "// see" + " " * 100_000 + "below"
    assert finishes(lambda: strip_comment_markers(comment))
    assert strip_comment_markers("/* done   */") == "done"


OLD_IMPORTS = {
    "python": (
        re.compile(r"^[ \t]*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", re.M),
        re.compile(r"^[ \t]*from\s+(\.*[\w.]*)\s+import\s+\(?([\w\s,*]+?)\)?\s*$", re.M),
    ),
    "javascript": (re.compile(r"""^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]""", re.M),),
}
"""The import expressions before: a line of blanks in a `from` import could be split every
way (5,000 blanks: 2.8 s), and each `export` without `from` read on to the end of the
text (5,000 lines of `export a`: 44 s)."""


def old_imports(language: str, text: str) -> list[str] | None:
    """What the old expressions read; None where one read a `from … import (` whose first
    line holds nothing, which it gave up on (module and all) and the new one reads on from."""
    found = []
    for index, pattern in enumerate(OLD_IMPORTS[language]):
        for match in pattern.finditer(text):
            if language == "python" and index == 1:
                module, names = match.group(1), match.group(2)
                if module and not names.strip() and "(" in match.group(0):
                    return None
                if not module or not names.strip():
                    continue  # `from  import x`, `from a import` and nothing: not Python; the new expression skips them
                members = [imported_name(n) for n in names.replace("\n", " ").split(",")]  # the regexes differ, not this
                joiner = "" if module.endswith(".") else "."
                found += [module] + [f"{module}{joiner}{m}" for m in members if m and m != "*"]
            elif language == "python":
                found += [part.split(" as ")[0].strip() for part in match.group(1).split(",")]
            else:
                found.append(match.group(1))
    return list(dict.fromkeys(t for t in found if t and not t.startswith("__future__")))


PYTHON_IMPORT_PIECES = st.lists(
    st.sampled_from(["from ", "import ", "from a import ", " ", "\t", "\n", "a", "b.c", ".", "(", ")", ",", "*", " as ", "x", "  "]),
    max_size=14,
).map("".join)
JS_IMPORT_PIECES = st.lists(
    st.sampled_from(["import ", "export ", "import {", "} from ", "from ", "'m'", '"n"', ";", " ", "\n", "a", ",", "`"]),
    max_size=14,
).map("".join)


@settings(max_examples=800, deadline=None)
@given(text=PYTHON_IMPORT_PIECES)
def test_python_imports_read_as_the_old_expressions_read_them(text):
    expected = old_imports("python", text)
    assume(expected is not None)
    assert file_imports("python", text) == expected


@settings(max_examples=800, deadline=None)
@given(text=JS_IMPORT_PIECES)
def test_javascript_imports_read_as_the_old_expression_read_them(text):
    new = [m.group(1) for m in patterns.IMPORTS["javascript"][0].finditer(text)]
    assert list(dict.fromkeys(new)) == old_imports("javascript", text)


def test_imports_of_hostile_lines_are_read_in_linear_time():
    blanks = " " * 100_000
    texts = {
        "python": [f"from a import b{blanks}c(", f"from{blanks}x", f"from a import{blanks}b(", f"from a import b{blanks}){blanks}c"],
        "javascript": ["export a\n" * 12_000],
    }
    for language, hostile in texts.items():
        for text in hostile:
            assert finishes(lambda: file_imports(language, text)), (language, text[:20])
    assert file_imports("javascript", "export a\n" * 3 + "import {\n  b\n} from 'm'\n") == ["m"]


OLD_ROLE_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$")
ROLE_PIECES = st.lists(st.sampled_from(["<", ">", " ", "\t", "\n", "a", "b.c", "~", "x y"]), max_size=14).map("".join)


@settings(max_examples=800, deadline=None)
@given(role=ROLE_PIECES)
def test_a_role_title_reads_as_the_old_expression_read_it(role):
    old, new = OLD_ROLE_TITLE.match(role), ROLE_TITLE.match(role)
    assert (old and old.groups()) == (new and new.groups())


def test_a_docstring_role_with_a_long_run_of_blanks_is_parsed_in_linear_time():
    docstring = "Uses :class:`a" + " " * 100_000 + "b`."
    assert finishes(lambda: parse_docstring(docstring))
    assert ROLE_TITLE.match("the context <click.Context>").groups() == ("the context", "click.Context")


@pytest.mark.parametrize("line", [
    "# a" + " " * 100_000 + "b",  # a Markdown heading: `(.+?)\s*#*$`
    ":param a " + " " * 100_000 + "x",  # a Sphinx field without its closing colon
    "Args:\n    a" + " " * 100_000 + "!: x",  # a Google entry
    "Parameters\n----------\na" + " " * 100_000 + "!: x",  # a NumPy entry
])
def test_a_docstring_with_a_long_run_of_blanks_is_parsed_in_linear_time(line: str):
    """Each took minutes (4,000 blanks: about a second each; the time grew with the square)."""
    assert finishes(lambda: parse_docstring(line), seconds=20.0)


def test_call_arguments_are_read_within_half_the_parse_budget(monkeypatch: pytest.MonkeyPatch):
    """Reading a call's arguments walks up to its call node, and a node's parent is found
    from the root down: in an error-recovered tree that grew with the square of the file
    (unclosed doc fences in JavaScript: 68 s per MB). Past half the parse's CPU budget the
    remaining calls are still found, of unknown arity."""
    from refdoc_site.indexing import tree_sitter_tier

    text = "function f() {\n" + "  g(1, 'a');\n" * 500 + "}\n"
    source = source_file("app.js", "javascript", text)
    chunks = chunk_file(source, text, ChunkSettings())
    sites = [s for found in tree_sitter_tier.call_sites("javascript", text, chunks).values() for s in found]
    assert len(sites) == 500 and all(s.arguments == ("number", "string") for s in sites)
    monkeypatch.setattr(tree_sitter_tier, "parse_seconds", lambda size: -1.0)
    sites = [s for found in tree_sitter_tier.call_sites("javascript", text, chunks).values() for s in found]
    assert len(sites) == 500 and sum(s.arguments is None for s in sites) >= 500 - CpuBudget.EVERY
