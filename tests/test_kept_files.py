"""A folder written over the last render's files (core/kept_files.py): the same bytes stay
as they were, a changed file is a new one (a link to the old keeps the old bytes), and
what was not written is gone, so the folder holds what a clear-and-write would."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import stored_document

from refdoc_site.core.kept_files import KeptFolder
from refdoc_site.search.site_search import write_search_data


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_same_bytes_stay_a_change_is_a_new_file_and_the_rest_goes(tmp_path: Path) -> None:
    root = tmp_path / "data"
    first = KeptFolder(root)
    for name, data in {"a.bin": b"one", "deep/b.bin": b"two", "deep/er/c.bin": b"three"}.items():
        first.write(name, data)
    first.finish()
    before = {name: (root / name).stat() for name in ("a.bin", "deep/b.bin")}
    os.link(root / "deep/b.bin", tmp_path / "published-b.bin")  # as the site links it

    second = KeptFolder(root)
    second.write("a.bin", b"one")
    second.write("deep/b.bin", b"TWO")
    second.write("new.bin", b"four")
    assert second.finish() == 1  # deep/er/c.bin, and its folder with it
    assert _tree(root) == {"a.bin": b"one", "deep/b.bin": b"TWO", "new.bin": b"four"}
    assert not (root / "deep/er").exists()
    assert second.kept == 1
    kept = (root / "a.bin").stat()
    assert (kept.st_ino, kept.st_mtime_ns) == (before["a.bin"].st_ino, before["a.bin"].st_mtime_ns)
    assert (root / "deep/b.bin").stat().st_ino != before["deep/b.bin"].st_ino
    assert (tmp_path / "published-b.bin").read_bytes() == b"two"


def test_a_folder_holding_a_link_is_cleared_first(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"keep me")
    root = tmp_path / "data"
    root.mkdir()
    (root / "terms").symlink_to(outside, target_is_directory=True)
    (root / "a.bin").write_bytes(b"one")
    folder = KeptFolder(root)
    folder.write("terms/secret.txt", b"keep me")  # the same bytes as the file the link reaches
    folder.finish()
    assert not (root / "terms").is_symlink() and not (root / "a.bin").exists()
    assert folder.kept == 0
    assert (outside / "secret.txt").read_bytes() == b"keep me"


def _document(number: int, text: str):
    content = f'def f{number}():\n    """{text}"""\n    return {number}\n'
    return stored_document(f"pkg/m{number % 7}.py", f"f{number}", 1, 3, content=content, responsibility=text)


def test_search_data_written_over_the_last_equals_a_fresh_write(tmp_path: Path) -> None:
    words = ["parse", "render", "token", "cache", "route", "queue", "retry", "socket"]
    documents = [_document(n, f"{words[n % 8]} the {words[(n * 3) % 8]} of item {n}") for n in range(120)]
    written = tmp_path / "over"
    write_search_data(documents, written, shard_min_chunks=0)
    inodes = {p: p.stat().st_ino for p in written.rglob("*") if p.is_file()}
    changed = documents[:5] + [_document(500, "a new socket retry")] + documents[6:110]
    write_search_data(changed, written, shard_min_chunks=0)
    fresh = tmp_path / "fresh"
    write_search_data(changed, fresh, shard_min_chunks=0)
    assert _tree(written) == _tree(fresh)
    same = sum(1 for p, inode in inodes.items() if p.exists() and p.stat().st_ino == inode)
    assert 0 < same < len(inodes)


def test_a_file_made_from_the_same_bytes_is_not_made_again(tmp_path: Path) -> None:
    root, record = tmp_path / "data", tmp_path / "made.json"
    made = []

    def make(source: bytes) -> bytes:
        made.append(source)
        return source.upper()

    first = KeptFolder(root, record)
    first.write_made("a.json.gz", b"one", make)
    first.write_made("b.json.gz", b"two", make)
    first.finish()
    assert record.is_file() and made == [b"one", b"two"]

    second = KeptFolder(root, record)
    assert not record.exists()  # read and let go: a render stopped half way leaves none
    second.write_made("a.json.gz", b"one", make)
    second.write_made("b.json.gz", b"TWO!", make)
    second.finish()
    assert made == [b"one", b"two", b"TWO!"] and second.kept == 1
    assert _tree(root) == {"a.json.gz": b"ONE", "b.json.gz": b"TWO!"}

    # without the record, the bytes are compared: made again, kept as they are
    record.unlink()
    third = KeptFolder(root, record)
    third.write_made("a.json.gz", b"one", make)
    assert made[-1] == b"one" and third.kept == 1


def test_a_file_made_under_the_same_key_is_not_made_again(tmp_path: Path) -> None:
    root, record = tmp_path / "data", tmp_path / "made.json"
    made = []

    def maker(data: bytes):
        return lambda: made.append(data) or data

    first = KeptFolder(root, record)
    first.write_keyed("terms/ka.json.gz", "k1", maker(b"alpha"))
    first.write_keyed("terms/kb.json.gz", "k2", maker(b"beta"))
    first.finish()
    second = KeptFolder(root, record)
    second.write_keyed("terms/ka.json.gz", "k1", maker(b"never made"))
    second.write_keyed("terms/kb.json.gz", "k3", maker(b"BETA"))
    second.finish()
    assert made == [b"alpha", b"beta", b"BETA"] and second.kept == 1
    assert _tree(root) == {"terms/ka.json.gz": b"alpha", "terms/kb.json.gz": b"BETA"}
    # a key is no digest of bytes: the same name made from bytes is not taken for it
    third = KeptFolder(root, record)
    third.write_made("terms/ka.json.gz", b"k1", lambda source: b"made")
    assert _tree(root)["terms/ka.json.gz"] == b"made"


def test_a_piece_changed_in_the_store_is_made_again_though_its_record_matches(tmp_path: Path, monkeypatch) -> None:
    """The record of what the pieces were made from is trusted only while the project is as
    the last render wrote it (render_phase.py clears the search data otherwise)."""
    from helpers import write_repo

    from refdoc_site.cli import main
    from refdoc_site.search.ranking import settings
    from refdoc_site.search.site_search import DATA_DIR

    monkeypatch.setitem(settings()["shards"], "min_chunks", 0)  # this small site in pieces
    repo = write_repo(tmp_path / "repo", {"app.py": 'def run():\n    """Run the app."""\n    return 1\n', "README.md": "# App\n"})
    out = tmp_path / "out"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    pieces = repo / ".refdoc" / "mkdocs" / "docs" / DATA_DIR
    piece = next(p for p in sorted(pieces.glob("terms/*.gz")))
    good = piece.read_bytes()
    piece.write_bytes(bytes(len(good)))  # the same size, other bytes
    assert main(["build", str(repo), "--out", str(out)]) == 0
    import gzip
    assert gzip.decompress(piece.read_bytes()) == gzip.decompress(good)
    assert piece.read_bytes() == good and (out / DATA_DIR / piece.relative_to(pieces)).read_bytes() == good
