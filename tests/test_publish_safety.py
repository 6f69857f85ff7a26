"""Publishing never deletes what refdoc-site did not write: `--out` and `--store` naming the
repository, a folder holding it, the store or someone's files are refused before anything
is written; the swap leaves foreign folders alone; an incomplete site is never swapped in,
and a published site missing pages is rebuilt. An empty repository says why in one line."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from helpers import exited_pid, without_heartbeats, write_repo

from refdoc_site.cli import main
from refdoc_site.core.pages import SITE_MARKER
from refdoc_site.pipeline import index_phase, render_phase

SOURCES = {
    "shop/cart.py": '''
        def add_item(cart, item):
            """Put an item in the cart."""
            cart.append(item)
    ''',
    "shop/prices.py": '''
        def total(cart):
            """Sum the prices of a cart."""
            return sum(item.price for item in cart)
    ''',
    "README.md": "# Shop\n\nA tiny shop.\n",
}


def listing(root: Path) -> dict[str, str]:
    """Every file and folder under `root`, with a hash of each file's bytes."""
    found = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in dirnames:
            found[os.path.relpath(os.path.join(directory, name), root) + "/"] = ""
        for name in filenames:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, root)] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return found


def page_html(out: Path, page: str) -> Path:
    """Where MkDocs (use_directory_urls) publishes the Markdown page `page`."""
    stem = page.removesuffix(".md")
    return out / ("index.html" if stem == "index" else f"{stem}/index.html")


def rendered_pages(store: Path) -> list[str]:
    return json.loads((store / render_phase.RENDERED_NAME).read_text(encoding="utf-8"))["pages"]


def assert_site_whole(out: Path, store: Path) -> None:
    pages = rendered_pages(store)
    assert pages and "index.md" in pages
    assert [page for page in pages if not page_html(out, page).is_file()] == []
    assert (out / "404.html").is_file() and (out / "search/refdoc/index.json").is_file()


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    """`tmp_path/repo` (with a committed-looking `.git` folder) beside someone's `notes/`."""
    write_repo(tmp_path / "repo", SOURCES | {".git/HEAD": "ref: refs/heads/main\n"})
    write_repo(tmp_path / "notes", {"todo.txt": "buy milk\n"})
    return tmp_path


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("repo", "it is the repository being documented"),
        (".", "it contains the repository being documented"),
        ("notes", "it holds files refdoc-site did not write (such as todo.txt)"),
        ("repo/.refdoc", "it is the store"),
        ("repo/shop", "it holds files refdoc-site did not write (such as cart.py)"),
        ("repo/.refdoc/mkdocs", "it is inside the store"),
        ("repo/README.md", "it is a file, not a folder"),
    ],
)
def test_out_naming_anything_but_a_site_of_ours_is_refused_and_nothing_is_touched(work, capsys, out, reason) -> None:
    assert main(["build", str(work / "repo"), "--out", str(work / "public")]) == 0  # a store and a site exist
    before = listing(work)
    capsys.readouterr()

    assert main(["build", str(work / "repo"), "--out", str(work / out)]) == 2

    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith(f"refdoc-site: --out {(work / out).resolve()}: refusing: {reason}")
    assert "choose an empty or new folder such as" in errors[0]
    assert listing(work) == before


def test_a_refused_first_build_writes_no_store(work) -> None:
    before = listing(work)
    assert main(["build", str(work / "repo"), "--out", str(work / "repo")]) == 2
    assert listing(work) == before  # no `.refdoc/`, no lock, no staging folder


@pytest.mark.parametrize("store", ["repo", "."])
def test_a_store_that_is_the_repository_or_holds_it_is_refused(work, capsys, store) -> None:
    before = listing(work)
    assert main(["index", str(work / "repo"), "--store", str(work / store)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"refdoc-site: --store {(work / store).resolve()}: refusing: it ")
    assert "the repository being documented" in error and "\n" not in error
    assert listing(work) == before


def test_store_refusal_names_the_store_option(work, capsys) -> None:
    assert main(["index", str(work / "repo"), "--store", str(work)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"refdoc-site: --store {work.resolve()}: refusing: it contains the repository being documented "
        f"({(work / 'repo').resolve()}); choose a folder of its own such as {(work / 'repo' / '.refdoc').resolve()}"
    )


def test_out_inside_the_repository_is_fine_when_new_or_a_previous_site(work) -> None:
    repo, out = work / "repo", work / "repo" / "public"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    marker = json.loads((out / SITE_MARKER).read_text(encoding="utf-8"))
    assert marker["tool"] == "refdoc-site"
    (repo / "shop" / "cart.py").write_text("def remove_item(cart, item):\n    cart.remove(item)\n", encoding="utf-8")

    assert main(["build", str(repo), "--out", str(out)]) == 0  # a previous site of ours is replaced

    assert "remove_item" in (out / "files/shop/cart.py/index.html").read_text(encoding="utf-8")
    assert not (out / "files/public").exists()  # the site is not documented as a source
    assert_site_whole(out, repo / ".refdoc")
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".refdoc", "README.md", "public", "shop"]


def test_a_site_from_before_the_marker_is_recognised_and_replaced(work) -> None:
    repo, out = work / "repo", work / "public"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    (out / SITE_MARKER).unlink()
    (repo / "shop" / "prices.py").write_text("def total(cart):\n    return 0\n", encoding="utf-8")

    assert main(["build", str(repo), "--out", str(out)]) == 0

    assert (out / SITE_MARKER).is_file()


def test_the_swap_leaves_foreign_old_and_building_folders_alone(work) -> None:
    repo, out = work / "repo", work / "public"
    for name in ("public.old", "public.building"):
        write_repo(work / name, {"keep.txt": f"{name} is mine\n"})
    assert main(["build", str(repo), "--out", str(out)]) == 0
    (repo / "shop" / "cart.py").write_text("def empty(cart):\n    cart.clear()\n", encoding="utf-8")
    assert main(["build", str(repo), "--out", str(out)]) == 0  # retires the first site

    for name in ("public.old", "public.building"):
        assert (work / name / "keep.txt").read_text(encoding="utf-8") == f"{name} is mine\n"
    assert sorted(p.name for p in work.iterdir()) == ["notes", "public", "public.building", "public.old", "repo"]


def test_an_incomplete_site_is_not_swapped_in_and_the_previous_one_stays(work, monkeypatch, capsys) -> None:
    repo, out = work / "repo", work / "public"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    before = listing(out)
    real_build_site = render_phase.build_site

    def losing_a_page(config_path, site_dir=None, engine="mkdocs", **options):
        real_build_site(config_path, site_dir, engine, **options)
        (Path(site_dir) / "files/shop/prices.py/index.html").unlink()

    monkeypatch.setattr(render_phase, "build_site", losing_a_page)
    (repo / "shop" / "prices.py").write_text("def total(cart):\n    return 1\n", encoding="utf-8")
    capsys.readouterr()

    assert main(["build", str(repo), "--out", str(out)]) == 2

    error = without_heartbeats(capsys.readouterr().err)
    assert "the built site lacks 1 of its files (such as files/shop/prices.py/index.html)" in error
    assert f"the previous site at {out.resolve()} is kept" in error and "\n" not in error
    assert listing(out) == before
    assert sorted(p.name for p in work.iterdir()) == ["notes", "public", "repo"]  # no staging folder left


def test_a_published_site_missing_a_page_is_rebuilt(work, capsys) -> None:
    repo, out = work / "repo", work / "public"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    (out / "files/shop/cart.py/index.html").unlink()

    assert main(["build", str(repo), "--out", str(out)]) == 0  # nothing changed in the repository

    assert_site_whole(out, repo / ".refdoc")


def test_a_leftover_staging_folder_of_a_dead_build_is_removed_and_not_indexed(work) -> None:
    dead_pid = exited_pid()
    repo, out = work / "repo", work / "repo" / "public"
    leftover = repo / f"public.building-{dead_pid}-x1y2"
    write_repo(leftover, {"assets/app.py": "def stale():\n    return 1\n"})
    marker = {"tool": "refdoc-site", "state": "building", "pid": dead_pid, "host": socket.gethostname()}
    (leftover / SITE_MARKER).write_text(json.dumps(marker), encoding="utf-8")
    unmarked = repo / f"public.building-{dead_pid}-mine"
    write_repo(unmarked, {"keep.py": "KEEP = 1\n"})

    assert main(["build", str(repo), "--out", str(out)]) == 0

    assert not leftover.exists()
    assert not (out / "files" / leftover.name).exists()  # removed before discovery
    assert (out / "files" / unmarked.name / "keep.py/index.html").is_file()
    assert (unmarked / "keep.py").is_file()  # no marker: not ours to delete


def test_an_empty_repository_is_told_why_in_one_line(tmp_path, capsys) -> None:
    repo = write_repo(tmp_path / "empty", {"data/blob.dat": "not code\n", "logo.dat": "x\n"})

    assert main(["build", str(repo), "--out", str(tmp_path / "out")]) == 2

    error = capsys.readouterr().err.strip()
    assert error == (
        f"refdoc-site: {repo.resolve()}: nothing to index: 0 source files found (2 skipped: unsupported type 2); "
        "check .gitignore and include/exclude in refdoc.yml"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # no site, and no store left behind
    assert sorted(p.name for p in repo.iterdir()) == ["data", "logo.dat"]


def test_a_folder_without_files_is_told_so(tmp_path, capsys) -> None:
    (tmp_path / "nothing").mkdir()
    assert main(["index", str(tmp_path / "nothing")]) == 2
    assert "nothing to index: the folder holds no files" in capsys.readouterr().err


def test_a_repository_whose_every_file_fails_keeps_its_store_and_says_so(work, monkeypatch, capsys) -> None:
    repo = work / "repo"
    assert main(["index", str(repo)]) == 0
    before = listing(repo / ".refdoc")

    def unreadable(source, text, settings):
        raise ValueError("no grammar today")

    monkeypatch.setattr(index_phase, "chunk_file", unreadable)
    (repo / "shop" / "cart.py").write_text("def add_item(cart, item):\n    cart.insert(0, item)\n", encoding="utf-8")
    capsys.readouterr()

    assert main(["index", str(repo), "--chunk-size", "300"]) == 2  # new settings: every file is processed again

    error = capsys.readouterr().err.strip()
    assert error.startswith(f"refdoc-site: {repo.resolve()}: nothing indexed: all 3 source files failed (README.md: ValueError: no grammar today")
    assert listing(repo / ".refdoc") == before


# --- a store that comes with the repository ---------------------------------------------------


SEEDED = "seeded-into-the-store"
SEEDS = {
    "pwn.md": f"# {SEEDED}\n\n<script>alert(1)</script>\n",
    "evil.html": f"<script>alert('{SEEDED}')</script>\n",
}


def seed_store(store: Path) -> None:
    """Finding 5's repro: an extra page, raw HTML, and the overview edited to run a script."""
    docs = store / "mkdocs" / "docs"
    for name, text in SEEDS.items():
        (docs / name).write_text(text, encoding="utf-8")
    with (docs / "index.md").open("a", encoding="utf-8") as overview:
        overview.write(f"\n<script>document.title = '{SEEDED}'</script>\n")
    chunks = docs / "search" / "refdoc" / "chunks.json"  # the search data is written over, not cleared
    data = chunks.read_bytes()
    chunks.write_bytes(SEEDED.encode() + data[len(SEEDED):])  # the same size: only its bytes tell


def published(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and SEEDED.encode() in p.read_bytes())


def git(repo: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments], check=True, capture_output=True)


@pytest.mark.parametrize("how", ["tarball without git", "own store, edited", "committed to git"])
def test_a_store_that_comes_with_the_repository_puts_no_page_into_the_site(how: str, tmp_path: Path, caplog) -> None:
    first = write_repo(tmp_path / "r9", {"app.py": "def run():\n    return 1\n", "README.md": "# App\n"})
    assert main(["build", str(first), "--out", str(tmp_path / "first")]) == 0
    seed_store(first / ".refdoc")
    repo = first
    if how == "tarball without git":
        repo = tmp_path / "r9c"
        shutil.copytree(first, repo, symlinks=True)  # `cp -a`: the store travels with the folder
    elif how == "committed to git":
        git(first, "init", "-q")
        git(first, "add", "-A")
        git(first, "commit", "-qm", "ship the store")
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING, logger="refdoc_site"):
        assert main(["build", str(repo), "--out", str(out)]) == 0
    assert published(out) == [] and not (out / "evil.html").exists() and not (out / "pwn").exists()
    assert_site_whole(out, repo / ".refdoc")
    store = repo / ".refdoc"
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    if how == "own store, edited":  # this machine's stamp: the records are reused, the files checked
        assert [w for w in warnings if "differ from" in w] == [
            f"{store / 'mkdocs'}: 4 files differ from what the last render wrote (such as docs/evil.html); "
            "the pages are written again and the others removed"
        ]
    else:
        reason = ("git tracks it: it came with the repository" if how == "committed to git"
                  else "no git tells whether it came with the repository, and it bears no stamp of this machine")
        assert f"{store}: {reason}, so it is not trusted: its files are deleted and it is built again" in warnings


@pytest.mark.parametrize("command", [["query", "run", "{repo}"], ["stats", "{repo}"]])
def test_a_command_that_only_reads_refuses_a_store_that_came_with_the_repository(command: list[str], tmp_path: Path, capsys) -> None:
    """`query`, `ask`, `stats`, `serve` and `mcp` delete nothing: a committed store is refused
    with one line, and its files stay; the operator's own store is read."""
    repo = write_repo(tmp_path / "r9", {"app.py": "def run():\n    return 1\n"})
    assert main(["index", str(repo)]) == 0
    command = [word.format(repo=repo) for word in command]
    assert main(command) == 0  # untracked: the operator's own
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "ship the store")
    capsys.readouterr()
    assert main(command) == 2  # a RefdocError
    error = capsys.readouterr().err
    assert f"{repo / '.refdoc'}: git tracks it: it came with the repository, so it is not read" in error
    assert len(error.strip().splitlines()) == 1 and (repo / ".refdoc" / "index.jsonl").exists()


def test_the_own_store_of_a_folder_without_git_is_reused(tmp_path: Path, capsys) -> None:
    """This machine's stamp lets the next build reuse the store: nothing is indexed again."""
    repo = write_repo(tmp_path / "repo", SOURCES)
    assert main(["build", str(repo), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert main(["build", str(repo), "--out", str(tmp_path / "out")]) == 0
    assert "0 processed, 3 unchanged" in capsys.readouterr().out
