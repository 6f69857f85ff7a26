"""The change map (`refdoc-site diff --base REV`, `build --base REV`): what a revision changed
against a base, from a two-commit repository built here; the bounded comment, the page in a
strict MkDocs build, and names from the code escaped in both."""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.config import Config
from refdoc_site.pipeline import Base, Workspace, build, changes, index, summarize
from refdoc_site.rendering.changes import change_sections, changes_page, comment_markdown
from refdoc_site.rendering.render import page_labels
from refdoc_site.understanding.changes import (
    AffectedCaller,
    BoundaryChange,
    ChangeMap,
    ChangeStatus,
    CycleChange,
    DefinitionChange,
    FileChange,
)

BASE = {
    "refdoc.yml": "module_depth: 1\n",
    "pkg/core.py": '''
        """Core helpers."""


        def helper(x):
            """Add one."""
            return x + 1


        def stable():
            return 2


        def old_api():
            """Going away."""
            return 3
        ''',
    "pkg/util.py": '''
        from pkg import core


        def use():
            return core.stable()
        ''',
    "pkg/report.py": '''
        from pkg import core


        def summary():
            return core.helper(0)
        ''',
    "alpha/a.py": '''
        from beta import b


        def start():
            return b.finish()
        ''',
    "beta/b.py": '''
        def finish():
            return 0
        ''',
    "web/app.js": '''
        export function render(items) {
          return items.map(String);
        }
        ''',
}
HEAD = {
    # helper changed, old_api removed, new_api added
    "pkg/core.py": '''
        """Core helpers."""


        def helper(x):
            """Add two."""
            return x + 2


        def stable():
            return 2


        def new_api():
            return 5
        ''',
    # a new call to the changed helper from another file
    "pkg/util.py": '''
        from pkg import core


        def use():
            return core.stable() + core.helper(3)
        ''',
    # a subprocess call (a security boundary) and an import back into alpha (a cycle)
    "beta/b.py": '''
        import subprocess

        from alpha import a


        def finish():
            return 0


        def shell(command):
            return subprocess.run(command, shell=True)
        ''',
}


def git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments], check=True, capture_output=True)


def two_commit_repo(root: Path, base: dict[str, str] = BASE, head: dict[str, str] = HEAD, *forced: str) -> Path:
    """A repository with `base` committed, then `head` written over it (and `forced` added
    with `git add -f`) and committed."""
    repo = write_repo(root, base)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    write_repo(repo, head)
    git(repo, "add", "-A")
    if forced:
        git(repo, "add", "-f", *forced)
    git(repo, "commit", "-qm", "head")
    return repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    return two_commit_repo(tmp_path_factory.mktemp("change-map") / "repo")


def workspace(repo: Path, store: Path, out: Path | None = None) -> Workspace:
    return Workspace.create(repo, Config(module_depth=1), store, out)


@pytest.fixture(scope="module")
def change_map(repo, tmp_path_factory) -> ChangeMap:
    return changes(workspace(repo, tmp_path_factory.mktemp("store")), Base("HEAD~1"))


def test_the_map_lists_exactly_the_definitions_added_changed_and_removed(change_map) -> None:
    found = {(d.id, d.status) for d in change_map.definitions}
    assert found == {
        ("pkg/core.py#helper", ChangeStatus.CHANGED),
        ("pkg/core.py#old_api", ChangeStatus.REMOVED),
        ("pkg/core.py#new_api", ChangeStatus.ADDED),
        ("pkg/util.py#use", ChangeStatus.CHANGED),
        ("beta/b.py#shell", ChangeStatus.ADDED),
    }
    assert {(f.path, f.status) for f in change_map.files} == {
        ("pkg/core.py", ChangeStatus.CHANGED), ("pkg/util.py", ChangeStatus.CHANGED), ("beta/b.py", ChangeStatus.CHANGED)
    }
    assert change_map.modules == ["beta", "pkg"]


def test_callers_of_the_changed_function_are_affected_the_untouched_one_first(change_map) -> None:
    callers = [(c.id, c.calls, c.edited) for c in change_map.callers]
    assert callers == [
        ("pkg/report.py#summary", ["pkg/core.py#helper"], False),
        ("pkg/util.py#use", ["pkg/core.py#helper"], True),
    ]


def test_the_subprocess_call_and_the_import_cycle_are_gained(change_map) -> None:
    assert [(b.id, b.gained) for b in change_map.boundaries] == [("beta/b.py#shell", True)]
    assert "subprocess" in change_map.boundaries[0].reason
    assert [(c.modules, c.gained) for c in change_map.cycles] == [(["alpha", "beta"], True)]


def test_a_given_base_store_gives_the_same_map(repo, change_map, tmp_path) -> None:
    base_tree = tmp_path / "base"
    base_tree.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD~1"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
    base_store = tmp_path / "base-store"
    index(workspace(base_tree, base_store))
    summarize(workspace(base_tree, base_store))
    given = changes(workspace(repo, tmp_path / "store"), Base("main", base_store))
    assert (given.definitions, given.callers, given.boundaries, given.cycles) == (
        change_map.definitions, change_map.callers, change_map.boundaries, change_map.cycles
    )


def test_the_comment_puts_the_gained_boundary_first_and_links_the_preview(change_map) -> None:
    text = comment_markdown(change_map, "en", "https://example.org/pr-7/")
    labels = page_labels("en")
    headings = [line.strip("*") for line in text.splitlines() if line.startswith("**")]
    assert headings[:5] == [
        labels["change_boundaries_gained"], labels["change_cycles_gained"], labels["change_stale"],  # the plan cites edited code
        labels["change_api_removed"], labels["change_api_changed"],
    ]
    assert "[`shell`](https://example.org/pr-7/files/beta/b.py/#chunk-shell)" in text
    assert "`old_api` (pkg/core.py)" in text  # removed: no page to link


def big_change(count: int, name: str = "name") -> ChangeMap:
    definitions = [
        DefinitionChange(f"src/f{i}.py#{name}{i}", f"src/f{i}.py", f"{name}{i}", "function", "src", status, public=i % 2 == 0)
        for i in range(count) for status in [list(ChangeStatus)[i % 3]]
    ]
    return ChangeMap(
        "origin/main",
        files=[FileChange(f"src/f{i}.py", "src", ChangeStatus.CHANGED) for i in range(count)],
        definitions=definitions,
        modules=["src"],
        callers=[AffectedCaller(f"src/g{i}.py#c{i}", f"src/g{i}.py", f"c{i}", [definitions[i].id], False) for i in range(count)],
        boundaries=[BoundaryChange(f"src/b{i}.py#b{i}", f"src/b{i}.py", f"b{i}", "subprocess", i % 2 == 0) for i in range(count)],
        cycles=[CycleChange([f"m{i}", f"n{i}"], True) for i in range(count)],
    )


@pytest.mark.parametrize("name", ["name", "x" * 5000])
def test_a_big_change_stays_under_the_bound_most_important_first(name: str) -> None:
    changes_map = big_change(3000, name)
    text = comment_markdown(changes_map, "en", "https://example.org/")
    lines = text.splitlines()
    assert len(lines) <= 60 and len(text) <= 65_000
    labels = page_labels("en")
    assert lines[4] == f"**{labels['change_boundaries_gained']}**"
    total = sum(len(section.items) for section in change_sections(changes_map, labels))
    shown = sum(1 for line in lines if line.startswith("- "))
    assert lines[-1] == f"[and {total - shown} more](https://example.org/changes/)"


def test_hostile_names_are_text_in_the_page_and_the_comment() -> None:
    hostile = '<script>alert(1)</script>`](javascript:x)'
    changes_map = ChangeMap(
        "<b>base</b>",
        files=[FileChange(f"{hostile}.py", hostile, ChangeStatus.ADDED)],
        definitions=[DefinitionChange(f"{hostile}.py#{hostile}", f"{hostile}.py", hostile, "function", hostile, ChangeStatus.ADDED, True)],
        modules=[hostile],
        boundaries=[BoundaryChange(f"{hostile}.py#{hostile}", f"{hostile}.py", hostile, hostile, True)],
        cycles=[CycleChange([hostile, "b"], True)],
    )
    for text in (changes_page(changes_map, "en", {"modules/b.md"}), comment_markdown(changes_map, "en", "https://example.org/")):
        rendered = markdown.markdown(text, extensions=["attr_list", "md_in_html", "tables"])
        elements = TagCollector()
        elements.feed(rendered)
        assert "script" not in elements.tags and "b" not in elements.tags
        assert not any(href.startswith("javascript") for href in elements.hrefs)


class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)
        self.hrefs += [value or "" for name, value in attrs if name == "href"]


def test_build_with_base_has_a_what_changed_page_under_strict_mkdocs(repo, tmp_path) -> None:
    space = workspace(repo, tmp_path / "store", tmp_path / "site")
    build(space, base=Base("HEAD~1"))
    page = (tmp_path / "site" / "changes" / "index.html").read_text(encoding="utf-8")
    assert "Security boundaries gained" in page and 'href="../files/beta/b.py/#chunk-shell"' in page
    assert "What changed" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    build(space)  # no base: the page goes
    assert not (tmp_path / "site" / "changes").exists()


def test_diff_writes_the_comment_and_refuses_an_unknown_revision(repo, tmp_path, capsys) -> None:
    comment = tmp_path / "comment.md"
    assert main(["diff", str(repo), "--store", str(tmp_path / "store"), "--base", "HEAD~1", "--markdown", str(comment)]) == 0
    assert comment.read_text(encoding="utf-8").startswith("### What changed")
    assert "3 files, 2 definitions added, 2 changed, 1 removed" in capsys.readouterr().out
    assert main(["diff", str(repo), "--store", str(tmp_path / "store"), "--base", "no-such-branch"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("refdoc-site: --base no-such-branch: not a commit") and "\n" not in error
    assert main(["diff", str(repo), "--store", str(tmp_path / "store")]) == 2
    assert "--base REV" in capsys.readouterr().err


GITHUB_LINKS = re.compile(r"(?i)@[a-z0-9]|#\d|\bgh-\d|www\.|https?://")
"""What GitHub makes a mention, an issue reference or an autolink of, in a comment's text."""


def outside_code_and_targets(markdown_text: str) -> str:
    """A comment's text without its code spans and link targets (GitHub reads neither)."""
    return re.sub(r"\]\([^)]*\)", "]", re.sub(r"`[^`]*`", "", markdown_text))


def test_names_in_the_comment_mention_and_link_nothing() -> None:
    """A pull request can name a folder after a team or a domain: in the comment its path is
    text GitHub notifies no one of and links nowhere."""
    paths = ["@acme/security-team/notify.py", "www.github-login.example/verify.py", "docs/#12 GH-7 x@evil.example/https:/evil.example/a.py"]
    changes_map = ChangeMap(
        "main",
        files=[FileChange(path, path.rsplit("/", 1)[0], ChangeStatus.ADDED) for path in paths],
        definitions=[DefinitionChange(f"{path}#notify", path, "notify", "function", "m", ChangeStatus.REMOVED, True) for path in paths],
        modules=["m"],
        callers=[AffectedCaller(f"{paths[0]}#c", paths[0], "c", ["@acme/x.py#@everyone"], False)],
    )
    comment = comment_markdown(changes_map, "en", "https://example.org/pr-7/")
    shown = outside_code_and_targets(comment)
    assert "notify.py" in shown and "verify.py" in shown
    assert GITHUB_LINKS.findall(shown) == [], comment
    assert GITHUB_LINKS.search(outside_code_and_targets("- `a` (@acme/team/x.py www.x.example #3)"))  # the check sees them


RUNNER = '''
    import subprocess


    def execute(command):
        return subprocess.run(command, shell=True)
    '''
EVASIVE = {
    "a/.refdoc-site.json": "{}\n",
    "a/runner.py": RUNNER,
    "c/runner.py": "# " + "x" * 6000 + "\n" + RUNNER,
    "d/.gitignore": "runner.py\n",
    "d/runner.py": RUNNER,
    "e/.refdoc-site.json": '{"tool": "refdoc-site", "version": "1", "state": "site"}\n',
    "e/index.html": "<html></html>\n",
    "e/assets/site.css": "body {}\n",
    "e/runner.py": RUNNER,
    "f/runner.py": RUNNER,
    "node_modules/tool/runner.py": RUNNER,
    "refdoc.yml": "module_depth: 1\nexclude: ['f/**']\n",
}
"""The same subprocess call hidden the ways a pull request could try, besides a plain
marker: one long comment line (minified), a `.gitignore` with `git add -f`, a folder with
a site's shape, an exclude glob in the revision's own refdoc.yml, and `node_modules/`."""


def test_files_the_index_skips_still_show_in_the_change_map_with_their_boundaries(tmp_path, capsys) -> None:
    repo = two_commit_repo(tmp_path / "repo", {"app.py": "def run():\n    return 1\n"}, EVASIVE, "d/runner.py")
    space = Workspace.create(repo, Config(module_depth=1, exclude=("f/**",)), tmp_path / "store")
    found = changes(space, Base("HEAD~1"))
    hidden = ["c/runner.py", "e/runner.py", "f/runner.py", "node_modules/tool/runner.py"]
    gained = {b.path for b in found.boundaries if b.gained and "subprocess" in b.reason}
    assert gained == {"a/runner.py", "d/runner.py", *hidden}
    files = {f.path: f.not_indexed for f in found.files}
    assert {path: files.get(path) for path in ["a/runner.py", "d/runner.py", *hidden]} == {
        "a/runner.py": "", "d/runner.py": "", "c/runner.py": "minified", "e/runner.py": "built site", "f/runner.py": "ignored",
        "node_modules/tool/runner.py": "ignored",
    }
    comment = comment_markdown(found, "en", "https://example.org/pr-7/")
    for path in hidden:
        assert f"- `{path}`: subprocess (\\`subprocess.run\\`); not indexed: " in comment, comment
    assert "(" + str(sum(1 for f in found.files if f.not_indexed)) + " not indexed)" in comment
    page = changes_page(found, "en", {"files/a/runner.py.md"})
    assert "`c/runner.py`: added; not indexed: minified" in page
    assert main(["diff", str(repo), "--store", str(tmp_path / "store"), "--base", "HEAD~1"]) == 0
    assert "not indexed" in capsys.readouterr().out
