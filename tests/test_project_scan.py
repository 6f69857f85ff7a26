"""The render's record of what it wrote (rendering/project_files.py) reads again only the
files whose status moved since the render's first look: the same record as reading all."""

from __future__ import annotations

import os
import time
from pathlib import Path

from refdoc_site.rendering.project_files import project_files, scan_project


def _project(root: Path) -> None:
    for name, text in {"docs/index.md": "# Home\n", "docs/files/a.md": "# A\n", "mkdocs.yml": "site_name: x\n", "hooks/h.py": "x = 1\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_file_written_since_the_first_look_is_read_again(tmp_path: Path, monkeypatch) -> None:
    _project(tmp_path)
    first = scan_project(tmp_path)
    time.sleep(0.05)  # past the clock's tick: a write now has another change time
    page = tmp_path / "docs/files/a.md"
    status = page.stat()
    page.write_text("# B\n", encoding="utf-8")  # the same size, in place
    os.utime(page, ns=(status.st_atime_ns, status.st_mtime_ns))  # and its time put back
    (tmp_path / "docs/new.md").write_text("new\n", encoding="utf-8")
    (tmp_path / "hooks/h.py").unlink()
    os.symlink(tmp_path / "mkdocs.yml", tmp_path / "hooks/h.py")
    assert project_files(tmp_path, first) == project_files(tmp_path)
    assert project_files(tmp_path, first)["hooks/h.py"] == ""


def test_an_unchanged_file_keeps_its_digest_without_being_read(tmp_path: Path, monkeypatch) -> None:
    import refdoc_site.rendering.project_files as module

    _project(tmp_path)
    first = scan_project(tmp_path)
    read = []
    original = module._file_digest
    monkeypatch.setattr(module, "_file_digest", lambda path: read.append(path.name) or original(path))
    time.sleep(0.05)
    (tmp_path / "docs/index.md").write_text("# Home, again\n", encoding="utf-8")
    assert project_files(tmp_path, first) == {path: sha for path, (_, sha) in scan_project(tmp_path).items()}
    assert read.count("index.md") == 2 and read.count("a.md") == 1  # a.md: only by the scan from nothing
