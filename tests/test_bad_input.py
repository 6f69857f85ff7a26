"""Bad input end to end: a real build over files that are binary, undecodable, failing,
empty, hostile or oddly named still publishes a site for everything else."""

from __future__ import annotations

import posixpath
import subprocess
import sys
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.pipeline import index_phase

HREF = re.compile(r'href="([^"]+)"')


def file_page_html(out: Path, path: str) -> Path:
    """Where MkDocs publishes the page of repository file `path`."""
    return out / "files" / path / "index.html"


def resolve_href(page: Path, href: str) -> Path:
    """The file a relative link on a built page points at."""
    target = unquote(urlsplit(href).path)
    resolved = Path(posixpath.normpath(posixpath.join(page.parent.as_posix(), target)))
    return resolved / "index.html" if target.endswith("/") or resolved.is_dir() else resolved


def test_build_survives_bad_files_and_escapes_hostile_text(tmp_path, monkeypatch, capsys):
    repo = write_repo(
        tmp_path / "repo",
        {
            "good.py": '''
                """Arithmetic helpers."""


                def add(a, b):
                    """Add two numbers."""
                    return a + b
            ''',
            "image.py": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
            "latin.py": b"# caf\xe9 au lait\ndef brew(cup):\n    return cup\n",
            "explode.py": "def boom():\n    return 1\n",
            "empty.py": "",
            "hostile.py": '''
                def greet(name):
                    """Say hello <script>alert(1)</script> to **name**."""
                    return "<script>alert(2)</script>" + name
            ''',
        },
    )
    real_chunk_file = index_phase.chunk_file

    def chunk_file_failing_for_one(source, text, settings):
        if source.path == "explode.py":
            raise RuntimeError("simulated chunker crash")
        return real_chunk_file(source, text, settings)

    monkeypatch.setattr(index_phase, "chunk_file", chunk_file_failing_for_one)
    out = tmp_path / "site"
    code = main(["build", str(repo), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err

    # the failure is counted and printed; the binary file is skipped, not failed
    assert "1 failed" in captured.out
    assert "explode.py" in captured.err and "simulated chunker crash" in captured.err
    assert "image.py" not in captured.err

    # every other file has its page; the failing and binary ones do not
    for path in ("good.py", "latin.py", "hostile.py", "empty.py"):
        assert file_page_html(out, path).is_file(), path
    assert not file_page_html(out, "explode.py").exists()
    assert not file_page_html(out, "image.py").exists()
    assert (out / "index.html").is_file()

    good = file_page_html(out, "good.py").read_text(encoding="utf-8")
    assert "Add two numbers." in good
    latin = file_page_html(out, "latin.py").read_text(encoding="utf-8")
    assert "brew" in latin

    # the docstring's markup is shown as text, never as a live element
    hostile = file_page_html(out, "hostile.py").read_text(encoding="utf-8")
    assert "<script>alert" not in hostile
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile
    for built in out.rglob("*.html"):
        assert "<script>alert" not in built.read_text(encoding="utf-8"), built


def test_odd_file_names_get_pages_that_the_module_page_links_to(tmp_path, capsys):
    repo = write_repo(
        tmp_path / "repo",
        {
            "src/données/café.py": '''
                def servir(tasse):
                    """Serve one cup."""
                    return tasse
            ''',
            "src/données/base.py": "def socle():\n    return 0\n",
            "docs/my notes.md": "# My notes\n\nNotes with a space in the file name.\n",
        },
    )
    out = tmp_path / "site"
    code = main(["build", str(repo), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err

    cafe = file_page_html(out, "src/données/café.py")
    notes = file_page_html(out, "docs/my notes.md")
    assert cafe.is_file() and notes.is_file()
    assert "Serve one cup." in cafe.read_text(encoding="utf-8")

    module_pages = [p for p in (out / "modules").rglob("index.html") if "données" in p.as_posix()]
    assert len(module_pages) == 1, sorted(p.as_posix() for p in (out / "modules").rglob("*.html"))
    module_html = module_pages[0]
    targets = {resolve_href(module_html, href).resolve() for href in HREF.findall(module_html.read_text(encoding="utf-8"))
               if not href.startswith(("http:", "https:", "#", "mailto:"))}
    assert cafe.resolve() in targets
    assert file_page_html(out, "src/données/base.py").resolve() in targets

    # the café page links back to its module, and that link resolves too
    back = [resolve_href(cafe, href) for href in HREF.findall(cafe.read_text(encoding="utf-8"))
            if "modules/" in unquote(href)]
    assert back and all(target.is_file() for target in back)


DEEP = 5_000
"""Nesting past Python's recursion limit in every parser the manifests go through."""


def test_deeply_nested_manifests_are_one_warning_each_and_the_build_goes_on(tmp_path, capsys, caplog):
    nested = "[" * DEEP + "]" * DEEP
    repo = write_repo(
        tmp_path / "repo",
        {
            "app.py": "def run():\n    return 1\n",
            "package.json": f'{{"name": "deep", "dependencies": {nested}}}',
            "pyproject.toml": f'[project]\nname = "deep"\ndependencies = {nested}\n',
            "Cargo.toml": f'[package]\nname = "deep"\n[dependencies]\nserde = {nested}\n',
            "lib/pyproject.toml": '[project]\nname = "lib"\ndependencies = ' + "[\n" * DEEP + "]\n" * DEEP,
        },
    )
    code = main(["build", str(repo), "--out", str(tmp_path / "site")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err and "RecursionError" not in captured.err
    warned = [record.getMessage() for record in caplog.records if "nested too deeply to read" in record.getMessage()]
    assert sorted(line.split(":", 1)[0].split(" ", 1)[0] for line in warned) == ["Cargo.toml", "lib/pyproject.toml", "package.json", "pyproject.toml"], warned
    assert all("\n" not in line for line in warned)
    assert (tmp_path / "site" / "index.html").is_file()


TERMINAL_HOSTILE_NAME = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mred"
"""Retitles the terminal, clears it and turns the text red, if printed raw."""


def test_names_reach_the_terminal_escaped(tmp_path):
    """A warning and the stats name files whose names hold escape sequences, a newline and a
    bidi override: each shows as its escapes, on its own line, and does nothing."""
    repo = write_repo(tmp_path / "repo", {"app.py": "def run():\n    return 1\n"})
    (repo / f"{TERMINAL_HOSTILE_NAME}.py").write_bytes(b"def red():\n    return '\xff'\n")
    (repo / "invoice\u202egpj.py").write_bytes(b"def invoice():\n    return '\xfe'\n")
    (repo / "fake\nrefdoc-site: all good.py").write_bytes(b'PASSWORD = "hunter2-Sup3rSecret!"\n')
    cli = [sys.executable, "-m", "refdoc_site"]
    indexed = subprocess.run([*cli, "index", str(repo)], capture_output=True, text=True, check=False)
    stats = subprocess.run([*cli, "stats", str(repo)], capture_output=True, text=True, check=False)
    assert indexed.returncode == 0 and stats.returncode == 0, indexed.stderr + stats.stderr
    printed = indexed.stdout + indexed.stderr + stats.stdout + stats.stderr
    assert "\x1b" not in printed and "\x07" not in printed and "\u202e" not in printed
    assert "\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mred.py: not valid UTF-8" in indexed.stderr
    assert "invoice\\u202egpj.py: not valid UTF-8" in indexed.stderr
    assert "fake\\nrefdoc-site: all good.py" in stats.stdout
    assert not any(line.startswith("refdoc-site: all good") for line in printed.splitlines())
