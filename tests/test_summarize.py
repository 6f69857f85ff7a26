"""The extractive summarizer: short prose from docstrings, the code and detected effects,
and nothing where nothing true can be said."""

from __future__ import annotations

from helpers import dedent, source_file

from refdoc_site.core.config import ChunkSettings
from refdoc_site.core.records import ChunkSummary
from refdoc_site.core.text import MAX_PROSE, clip, split_identifier
from refdoc_site.indexing.analyze import SyntaxAnalyzer
from refdoc_site.indexing.chunk import chunk_file
from refdoc_site.indexing.summarize import ExtractiveSummarizer

FIELDS = ("responsibility", "inputOutput", "sideEffects", "mainDependencies", "notes")


def summaries(path: str, language: str, text: str) -> dict[str, ChunkSummary]:
    """Chunk, analyze and summarize inline source; summaries by chunk symbol."""
    text = dedent(text)
    source = source_file(path, language, text)
    chunks = chunk_file(source, text, ChunkSettings())
    analysis = SyntaxAnalyzer().analyze(source, text, chunks)
    summarizer = ExtractiveSummarizer()
    return {c.symbol: summarizer.summarize(c, analysis.metadata[c.id]) for c in chunks}


def assert_prose(summary: ChunkSummary) -> None:
    """Every field is empty (the page hides it) or one clipped line of sentences."""
    for name in FIELDS:
        value = getattr(summary, name)
        if not value:
            continue
        assert value.strip(), f"{name} is only blanks"
        assert len(value) <= MAX_PROSE, f"{name} is {len(value)} characters"
        assert "\n" not in value
        assert value[0].isupper(), f"{name} does not start a sentence: {value!r}"
        assert value.endswith((".", "…")), f"{name} is not a sentence: {value!r}"


def test_responsibility_is_the_docstring_first_sentence():
    found = summaries(
        "app/users.py",
        "python",
        '''
        def load_users(path):
            """Load every user record from a CSV file. Rows without an id are dropped.

            The second paragraph is never used.
            """
            return [row for row in read(path) if row.get("id")]
        ''',
    )
    summary = found["load_users"]
    assert_prose(summary)
    assert summary.responsibility.startswith("Load every user record from a CSV file.")
    assert "second paragraph" not in summary.responsibility
    assert summary.inputOutput == "", "a signature's parameters as prose restate the signature"
    assert summary.source == "extractive"


def test_long_docstring_is_clipped_to_200_characters():
    sentence = "This function does " + "a great many careful things " * 20 + "today."
    found = summaries(
        "long.py",
        "python",
        f'''
        def busy(value):
            """{sentence}"""
            return value
        ''',
    )
    summary = found["busy"]
    assert_prose(summary)
    assert summary.responsibility.startswith("This function does a great many")
    assert summary.responsibility.endswith("…")
    assert len(summary.responsibility) <= 200


def test_without_a_docstring_the_summary_says_what_the_code_returns_never_the_name():
    assert split_identifier("parseHTTPResponse_v2") == ["parse", "http", "response", "v2"]
    found = summaries(
        "names.py",
        "python",
        """
        class ProgressBar:
            def get_eta(self):
                return self.length / self.avg

            def get_user_name(self, user):
                return user

            def with_label(self, label):
                self.label = label
                return self

            def is_done(self):
                return self.pos >= self.length

            def copy(self):
                return ProgressBar(self.length)
        """,
    )
    assert found["ProgressBar.get_eta"].responsibility == "Returns self.length / self.avg."
    assert found["ProgressBar.get_user_name"].responsibility == "", "returning a parameter says nothing"
    assert found["ProgressBar.with_label"].responsibility == "Returns the instance itself, so calls chain."
    assert found["ProgressBar.is_done"].responsibility == "Returns whether self.pos >= self.length."
    assert found["ProgressBar.copy"].responsibility == "Returns a new ProgressBar."
    for symbol, summary in found.items():
        assert_prose(summary)
        assert not summary.responsibility.startswith(("Handles", "Gets", "Type ", "Constructor")), (symbol, summary)


def test_detected_effects_appear_in_side_effects():
    found = summaries(
        "effects.py",
        "python",
        """
        import subprocess
        import urllib.request


        def save_report(path, text):
            with open(path, "w") as handle:
                handle.write(text)


        def run_linter(path):
            return subprocess.run(["lint", path], check=False)


        def download(url):
            return urllib.request.urlopen(url).read()


        def add(a, b):
            return a + b
        """,
    )
    for summary in found.values():
        assert_prose(summary)
    assert "files" in found["save_report"].sideEffects.lower()
    assert "runs other programs" in found["run_linter"].sideEffects.lower()
    assert "network" in found["download"].sideEffects.lower()
    assert found["add"].sideEffects == "", "no effect is said as nothing, not as 'None detected.'"
    assert found["add"].mainDependencies == ""
    assert found["add"].notes == "", "a line count is on the page already"
    assert "subprocess" in found["run_linter"].mainDependencies


def test_a_raise_appears_in_notes():
    found = summaries(
        "check.py",
        "python",
        '''
        def require_positive(value):
            """Reject numbers below one."""
            if value < 1:
                raise ValueError("value must be positive")
            return value


        def quiet(value):
            return value
        ''',
    )
    loud = found["require_positive"]
    assert_prose(loud)
    assert "raise" in loud.notes
    assert loud.responsibility == "Reject numbers below one."
    assert "raise" not in found["quiet"].notes


def test_an_undocumented_raise_is_said_with_what_it_raises():
    found = summaries(
        "check.js",
        "javascript",
        """
        function requirePositive(value) {
          if (value < 1) {
            throw new RangeError("value must be positive");
          }
          return value;
        }
        """,
    )
    assert found["requirePositive"].responsibility == "Throws RangeError."


def test_strings_and_comments_are_not_read_as_effects():
    found = summaries(
        "quiet.py",
        "python",
        '''
        def describe():
            """Mention subprocess.run and open() only in prose."""
            # requests.get(url) would be a network call
            return "subprocess.run(['x'])"
        ''',
    )
    assert found["describe"].sideEffects == ""


def test_summary_is_prose_not_a_copy_of_the_code():
    found = summaries(
        "code.py",
        "python",
        """
        def compute_total(items):
            total = 0
            for item in items:
                total += item.price * item.quantity
            return total
        """,
    )
    summary = found["compute_total"]
    assert_prose(summary)
    assert "total += " not in summary.responsibility
    assert summary.responsibility == "", "a returned local and a name's words say nothing"


def test_clip_never_exceeds_the_limit():
    text = "word " * 100
    assert len(clip(text, 50)) <= 50
    assert clip("short text", 50) == "short text"


def test_rule_lines_are_not_taken_for_prose() -> None:
    from refdoc_site.core.config import ChunkSettings
    from refdoc_site.core.records import Metadata, SourceFile
    from refdoc_site.indexing.chunk import chunk_file
    from refdoc_site.indexing.summarize import ExtractiveSummarizer

    source = "def handle(x):\n    # --- parsing ----------------------------------\n    # Keep the original order of the keys.\n    return x\n"
    chunk = next(c for c in chunk_file(SourceFile("m.py", "python", len(source), "h"), source, ChunkSettings()) if c.symbol == "handle")
    responsibility = ExtractiveSummarizer().summarize(chunk, Metadata()).responsibility
    assert "---" not in responsibility
    assert "Keep the original order" not in responsibility  # a comment inside the body says what one line does


README_WITH_NOISE = """
Ky&ensp;¯\\_(ツ)_/¯
==================

[![build](https://img.shields.io/badge/build-passing-green)](https://ci.example.org) [![npm]](https://npmjs.example.org)

<div align="center">
Our open source work is supported by the community.<br>Special thanks to:
</div>

```js
import ky from 'ky';
```

> Ky is a tiny HTTP client based on the <b>Fetch API</b>.
"""


def test_readme_badges_html_blocks_code_and_heading_rules_are_not_prose() -> None:
    found = summaries("README.md", "markdown", README_WITH_NOISE)
    responsibility = next(iter(found.values())).responsibility
    assert responsibility.startswith("Ky is a tiny HTTP client based on the Fetch API."), responsibility


def test_generic_types_in_a_docstring_are_kept() -> None:
    found = summaries("m.py", "python", '''
        def index(rows):
            """Build a Map<String, Row> of the rows by key."""
            return {}
    ''')
    assert found["index"].responsibility == "Build a Map<String, Row> of the rows by key."


def test_crate_docs_lead_with_their_first_sentence_not_their_badges() -> None:
    from refdoc_site.core.text import first_sentences

    crate_doc = (
        "[![github]](https://github.example.org/x)&ensp;[![docs]](https://docs.example.org/x)\n\n"
        "[github]: https://img.example.org/badge/github\n[docs]: https://img.example.org/badge/docs\n\n"
        "<br>\n\n"
        "This library provides [x::Error][Error], an error type for applications.\n"
    )
    assert first_sentences(crate_doc, 160) == "This library provides x::Error, an error type for applications."


def test_a_settings_file_is_summarised_by_its_top_level_entries() -> None:
    workflow = summaries(".github/workflows/ci.yml", "config", """
        name: CI
        on:
          - push
          - pull_request
        jobs:
          test:
            runs-on: ubuntu-latest
    """)
    assert next(iter(workflow.values())).responsibility == "Settings in ci.yml: name, on, jobs."
    docker = summaries("Dockerfile", "config", """
        FROM python:3.12-slim
        COPY . /app
        RUN pip install /app
        ENTRYPOINT ["refdoc-site"]
    """)
    assert next(iter(docker.values())).responsibility == "Settings in Dockerfile: FROM, COPY, RUN, ENTRYPOINT."


def test_licence_lines_inside_a_chunk_are_not_its_description() -> None:
    found = summaries("args.go", "go", """
        // Copyright 2013-2023 The Example Authors
        //
        // Licensed under the Apache License, Version 2.0 (the "License");
        // you may not use this file except in compliance with the License.
        package cobra

        import "fmt"

        // PositionalArgs checks the positional arguments of a command line.
        type PositionalArgs func(args []string) error

        var names = []string{"alpha", "beta", "gamma", "delta", "epsilon"}

        func Hello() { fmt.Println("hello") }
    """)
    module = found["(module)"].responsibility
    assert "Licen" not in module and "you may not" not in module, module


def test_a_comment_inside_a_definition_is_never_its_summary() -> None:
    found = summaries("sessions.py", "python", """
        class SessionInterface:
            def save_session(self, app, session, response):
                # Add a "Vary: Cookie" header if the session was accessed at all.
                if session.accessed:
                    response.vary.add("Cookie")
                response.set_cookie(app.name, session.sign())
    """)
    assert "Vary" not in found["SessionInterface.save_session"].responsibility
