"""Discovery: which files are indexed, which are skipped and why; git is never needed."""

from __future__ import annotations

import os
import subprocess

import pytest
from helpers import write_repo

from refdoc_site.core.config import Config
from refdoc_site.core.reading import read_text
from refdoc_site.core.records import SkippedFile, SkipReason
from refdoc_site.core.redact import Redactor
from refdoc_site.core.repository import TrackedFiles
from refdoc_site.indexing.discover import PRUNED_FOLDER, discover
from refdoc_site.indexing.unindexed import UnindexedFile, unindexed_files


def run(repo, **config):
    found = discover(repo, Config(**config))
    indexed = [f.path for f in found.files]
    skipped = {s.path: s for s in found.skipped}
    return found, indexed, skipped


def test_gitignore_nested_and_negation_without_git(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")  # no git (or anything else) can be run
    repo = write_repo(
        tmp_path,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n*.txt\n",
            "app.py": "x = 1\n",
            "debug.log": "noise\n",
            "keep.log": "kept\n",
            "notes.txt": "ignored text\n",
            "build/out.py": "y = 2\n",
            "sub/.gitignore": "generated_*.py\n!important.txt\n",
            "sub/mod.py": "z = 3\n",
            "sub/generated_stuff.py": "w = 4\n",
            "sub/important.txt": "re-included by the nested file\n",
            "sub/other.txt": "still ignored by the root file\n",
            "other/generated_here.py": "not under sub, so not ignored\n",
        },
    )
    assert not (repo / ".git").exists()
    found, indexed, skipped = run(repo)
    assert indexed == ["app.py", "other/generated_here.py", "sub/important.txt", "sub/mod.py"]
    assert skipped["debug.log"].reason is SkipReason.IGNORED
    assert skipped["sub/generated_stuff.py"].reason is SkipReason.IGNORED
    assert skipped["sub/other.txt"].reason is SkipReason.IGNORED
    assert skipped["notes.txt"].reason is SkipReason.IGNORED
    # keep.log is re-included: not ignored, only skipped for having no supported type
    assert skipped["keep.log"].reason is SkipReason.UNSUPPORTED
    # an ignored directory is pruned: nothing under it is even listed
    assert not any(path.startswith("build/") for path in indexed + list(skipped))


def test_negated_file_is_indexed_when_included(tmp_path):
    repo = write_repo(
        tmp_path,
        {".gitignore": "*.log\n!keep.log\n", "debug.log": "a\n", "keep.log": "b\n", "app.py": "x = 1\n"},
    )
    _, indexed, skipped = run(repo, include=("*.log", "*.py"))
    assert indexed == ["app.py", "keep.log"]
    assert skipped["debug.log"].reason is SkipReason.IGNORED


def test_include_and_exclude_globs(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "src/app.py": "x = 1\n",
            "src/vendor/lib.py": "y = 1\n",
            "src/util.js": "export const a = 1;\n",
            "tests/test_app.py": "z = 1\n",
            "README.md": "# Hi\n",
        },
    )
    _, indexed, skipped = run(repo, include=("src/**",), exclude=("src/vendor/", "*.js"))
    assert indexed == ["src/app.py"]
    assert skipped["src/util.js"].detail == "exclude glob"
    assert skipped["tests/test_app.py"].detail == "not included"
    assert skipped["README.md"].detail == "not included"
    assert "src/vendor/lib.py" not in skipped  # the excluded directory is pruned


def test_binary_oversized_minified_and_lock_files_are_skipped_with_reasons(tmp_path):
    long_line = "var a=" + ",".join(f"v{i}={i}" for i in range(800)) + ";\n"
    repo = write_repo(
        tmp_path,
        {
            "good.py": "def f():\n    return 1\n",
            "blob.py": b"\x89PNG\r\n\x1a\n\x00\x00\x00rest",
            "big.py": "x = 1\n" * 100,
            "vendor/jquery.min.js": "var a=1;\n",
            "dist/app.js": long_line,
            "package-lock.json": '{"lockfileVersion": 3}\n',
            "poetry.lock": "[[package]]\n",
        },
    )
    found, indexed, skipped = run(repo, max_file_size=200)
    assert indexed == ["good.py"]
    assert skipped["blob.py"].reason is SkipReason.BINARY
    assert "NUL" in skipped["blob.py"].detail
    assert skipped["big.py"].reason is SkipReason.OVERSIZED
    assert "max_file_size 200" in skipped["big.py"].detail
    # the minified checks run on files under the size limit
    _, indexed, skipped = run(repo, max_file_size=1_000_000)
    assert "big.py" in indexed
    assert skipped["vendor/jquery.min.js"].reason is SkipReason.MINIFIED
    assert skipped["dist/app.js"].reason is SkipReason.MINIFIED
    assert skipped["package-lock.json"].reason is SkipReason.GENERATED
    assert skipped["poetry.lock"].reason is SkipReason.GENERATED
    assert found.skip_counts()["binary"] == 1


def test_invalid_utf8_is_read_with_replacement_and_a_warning(tmp_path):
    repo = write_repo(tmp_path, {"latin.py": b"# caf\xe9\nname = 'Jos\xe9'\n", "ok.py": "x = 1\n"})
    found, indexed, _ = run(repo)
    assert indexed == ["latin.py", "ok.py"]
    record = next(f for f in found.files if f.path == "latin.py")
    assert record.decode_errors
    assert not next(f for f in found.files if f.path == "ok.py").decode_errors
    assert len(found.warnings) == 1
    assert found.warnings[0].startswith("latin.py: ")
    assert "UTF-8" in found.warnings[0]
    text = read_text(repo, "latin.py", Redactor()).text
    assert "caf\ufffd" in text and "Jos\ufffd" in text


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symlinks unsupported")
def test_symlinks_out_of_the_repository_are_not_followed(tmp_path):
    outside = write_repo(tmp_path / "outside", {"secret.py": "TOKEN = 1\n", "pkg/leak.py": "x = 1\n"})
    repo = write_repo(tmp_path / "repo", {"app.py": "x = 1\n", "real/inner.py": "y = 1\n"})
    try:
        os.symlink(outside / "secret.py", repo / "secret.py")
        os.symlink(outside / "pkg", repo / "linked_pkg", target_is_directory=True)
        os.symlink(repo / "app.py", repo / "alias.py")  # inside: harmless
    except OSError:
        pytest.skip("cannot create symlinks here")
    _, indexed, skipped = run(repo)
    assert "secret.py" not in indexed
    assert skipped["secret.py"].reason is SkipReason.SYMLINK_OUTSIDE
    assert not any("leak" in path for path in indexed + list(skipped))
    assert not any(path.startswith("linked_pkg") for path in indexed)
    assert "app.py" in indexed and "real/inner.py" in indexed


def test_paths_with_spaces_and_non_ascii_are_discovered(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "docs/my notes.md": "# Notes\n\nSome notes.\n",
            "src/données/café.py": "def servir():\n    return 'café'\n",
        },
    )
    found, indexed, _ = run(repo)
    assert indexed == ["docs/my notes.md", "src/données/café.py"]
    languages = {f.path: f.language for f in found.files}
    assert languages == {"docs/my notes.md": "markdown", "src/données/café.py": "python"}
    assert "café" in read_text(repo, "src/données/café.py", Redactor()).text


def test_store_and_always_pruned_directories_are_not_indexed(tmp_path):
    repo = write_repo(
        tmp_path,
        {
            "app.py": "x = 1\n",
            "node_modules/lib/index.js": "module.exports = 1;\n",
            ".refdoc/state.py": "x = 1\n",
            "custom_store/x.py": "x = 1\n",
        },
    )
    found = discover(repo, Config(), extra_pruned=(repo / "custom_store",))
    assert [f.path for f in found.files] == ["app.py"]



def test_the_repositorys_own_refdoc_yml_is_not_indexed_even_when_included(tmp_path):
    repo = write_repo(tmp_path, {
        "refdoc.yml": "plans: [\"add rate limiting\"]\n",
        "deploy/refdoc.yml": "name: a settings file of the project's own\n",
        "app.py": "x = 1\n",
    })
    found = discover(repo, Config(include=("**",)))
    assert [f.path for f in found.files] == ["app.py", "deploy/refdoc.yml"]
    assert [(s.path, s.reason) for s in found.skipped] == [("refdoc.yml", SkipReason.OWN_CONFIG)]


def test_a_site_refdoc_site_built_inside_the_repository_is_not_indexed(tmp_path):
    """A CI job builds into `_publish/site` in its checkout, then runs `diff` there: the
    built site (its marker at the root) is not the repository's code."""
    repo = write_repo(
        tmp_path / "repo",
        {
            "app.py": "def run():\n    return 1\n",
            "_publish/site/.refdoc-site.json": '{"tool": "refdoc-site"}\n',
            "_publish/site/index.html": "<html></html>\n",
            "_publish/site/assets/search.js": "function search() { return []; }\n",
            "_publish/notes.js": "function kept() {}\n",
        },
    )
    _, indexed, skipped = run(repo)
    assert set(indexed) == {"app.py", "_publish/notes.js"}
    assert skipped["_publish/site/"].reason is SkipReason.BUILT_SITE  # counted, with a reason


def test_a_marker_alone_does_not_hide_a_folder(tmp_path):
    """A pull request cannot hide code by dropping a `.refdoc-site.json` beside it: a folder
    is a built site only when the marker is one and the folder has a site's shape."""
    repo = write_repo(
        tmp_path / "repo",
        {
            "app.py": "def run():\n    return 1\n",
            "a/.refdoc-site.json": "{}\n",
            "a/runner.py": "def execute():\n    return 1\n",
            "f/.refdoc-site.json": '{"tool": "refdoc-site"}\n',
            "f/runner.py": "def execute():\n    return 1\n",
        },
    )
    found, indexed, _ = run(repo)
    assert {"a/runner.py", "f/runner.py"} <= set(indexed)
    assert [w for w in found.warnings if "not the marker of a site" in w] == [
        "a/.refdoc-site.json: not the marker of a site refdoc-site built; the folder is indexed",
        "f/.refdoc-site.json: not the marker of a site refdoc-site built; the folder is indexed",
    ]


def test_a_file_git_tracks_is_indexed_whatever_gitignore_says(tmp_path):
    """git ignores only untracked files: one added with `git add -f`, or in an ignored
    folder, is the repository's, and a tracked file of a built site is listed with it."""
    repo = write_repo(
        tmp_path / "repo",
        {
            ".gitignore": "runner.py\nbuild/\n",
            "app.py": "def run():\n    return 1\n",
            "runner.py": "def execute():\n    return 1\n",
            "build/tool.py": "def tool():\n    return 1\n",
            "build/untracked.py": "def loose():\n    return 1\n",
            "site/.refdoc-site.json": '{"tool": "refdoc-site"}\n',
            "site/index.html": "<html></html>\n",
            "site/assets/app.js": "function app() {}\n",
            "site/runner.py": "def execute():\n    return 1\n",
        },
    )
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-f", "app.py", "runner.py", "build/tool.py", "site/runner.py"], check=True)
    found = discover(repo, Config(), tracked=TrackedFiles.of(repo))
    indexed = [f.path for f in found.files]
    skipped = {s.path: s for s in found.skipped}
    assert {"runner.py", "build/tool.py"} <= set(indexed) and "build/untracked.py" not in indexed
    assert (skipped["site/"].reason, skipped["site/runner.py"].reason) == (SkipReason.BUILT_SITE, SkipReason.BUILT_SITE)
    assert "site/assets/app.js" not in skipped  # untracked: part of no change
    everything = discover(repo, Config(), tracked=TrackedFiles(everything=True))
    assert "build/untracked.py" in [f.path for f in everything.files]
    assert {"site/runner.py", "site/assets/app.js", "site/index.html"} <= {s.path for s in everything.skipped}


def test_skipped_files_are_hashed_and_scanned_for_the_change_map_but_never_a_secret(tmp_path):
    repo = write_repo(
        tmp_path / "repo",
        {
            "c/runner.py": "# " + "x" * 3000 + "\nimport subprocess\n\n\ndef run(c):\n    return subprocess.run(c, shell=True)\n",
            "node_modules/tool/.env": "STRIPE_KEY=sk_live_0123456789abcdefghijklmn\n",
            "vendor/big.py": "def big():\n    return 1\n",
        },
    )
    skipped = [
        SkippedFile("c/runner.py", SkipReason.MINIFIED, "long lines"),
        SkippedFile("node_modules/tool/.env", SkipReason.IGNORED, PRUNED_FOLDER),
        SkippedFile("vendor/big.py", SkipReason.IGNORED, ".gitignore"),  # untracked: no part of a change
        SkippedFile("site/", SkipReason.BUILT_SITE, "a site"),
    ]
    redactor = Redactor.from_config(Config())
    listed = unindexed_files(repo, skipped, redactor, {})
    assert [(f.path, f.reason) for f in listed] == [("c/runner.py", "minified")]
    assert listed[0].boundary.startswith("subprocess") and len(listed[0].sha256) == 64
    kept = {"c/runner.py": UnindexedFile("c/runner.py", "minified", listed[0].sha256, "kept from the last run")}
    assert unindexed_files(repo, skipped, redactor, kept)[0].boundary == "kept from the last run"
