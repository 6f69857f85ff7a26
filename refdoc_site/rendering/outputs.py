"""The output folder: which folders a site may be published to, and how a new site replaces
the previous one without ever deleting a folder refdoc-site did not write.

Publishing replaces the whole output folder, so the folder `--out` names must be one
whose loss costs nothing: a new or empty folder, or a site refdoc-site published before.
That is recognised by a marker at the site's root, `.refdoc-site.json` (tool, version,
who wrote it). The marker lives in the folder rather than as a record in the store
because it is the folder that gets deleted: a store can be cleared, moved or swapped
with `--store`, and a record of a path says nothing about what lies there now, while
the marker travels with the very folder it vouches for. MkDocs and GitHub Pages' Jekyll
publish no dot-file, so the marker costs the site nothing.

A new site is built in a fresh folder beside the output (`OUT.building-PID-…`), checked
whole, marked, and swapped in; the previous one is moved aside (`OUT.old-PID-…`) and
deleted only because it carries the marker.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..core.errors import OutputFolderError, SiteBuildError
from ..core.kill_points import kill_point
from ..core.pages import SITE_MARKER
from ..core.processes import process_start_time, signals_deferred
from ..core.store import read_tagged_json
from ..search.site_search import DATA_DIR

log = logging.getLogger("refdoc_site")

TOOL_NAME = "refdoc-site"
LEGACY_SIGNATURE = (f"{DATA_DIR}/chunks.json", "assets/refdoc/search-worker.js")
"""Files only a refdoc-site site holds: a site published before the marker existed."""
SITE_FILES = ("index.html", "404.html", f"{DATA_DIR}/config.json")
"""What every published site has besides its pages: the home page, the page for a wrong
address, and the search data (its config names the rest, one file or many pieces)."""
DEFAULT_OUT_NAME = "public"


def check_out_dir(out: Path, repo: Path, store: Path) -> None:
    """Refuse, in one line, an output folder whose replacement would lose anything.

    Paths are resolved. Refused: the repository and its ancestors, the store and its
    ancestors, a folder inside the store other than the default `STORE/site`, a file, and
    a non-empty folder that is not a refdoc-site site. A folder inside the repository is
    fine when it is new, empty or a site of ours (`REPO/public`).
    """
    reason = _out_refusal(out, repo, store)
    if reason:
        raise OutputFolderError(f"--out {out}: refusing: {reason}")


def _out_refusal(out: Path, repo: Path, store: Path) -> str:
    choose = f"choose an empty or new folder such as {repo / DEFAULT_OUT_NAME}"
    if out == repo:
        return f"it is the repository being documented; {choose}"
    if out in repo.parents:
        return f"it contains the repository being documented ({repo}); {choose}"
    if out == store or out in store.parents:
        return f"it {'is' if out == store else 'contains'} the store ({store}); {choose}"
    if store in out.parents and out != store / "site":
        return f"it is inside the store ({store}), which refdoc-site rewrites; {choose}, or leave --out out for {store / 'site'}"
    if out.exists() and not out.is_dir():
        return f"it is a file, not a folder; {choose}"
    foreign = _foreign_entry(out)
    if foreign:
        return f"it holds files refdoc-site did not write (such as {foreign}); {choose}, or empty this one yourself"
    return ""


def check_store_dir(store: Path, repo: Path) -> None:
    """Refuse a store that is the repository or holds it: the store is pruned from discovery,
    and its folders are rewritten. (A store inside the output is refused by `check_out_dir`.)"""
    own = f"choose a folder of its own such as {repo / '.refdoc'}"
    if store == repo:
        reason = f"it is the repository being documented; {own}"
    elif store in repo.parents:
        reason = f"it contains the repository being documented ({repo}); {own}"
    elif store.exists() and not store.is_dir():
        reason = f"it is a file, not a folder; {own}"
    else:
        return
    raise OutputFolderError(f"--store {store}: refusing: {reason}")


def is_refdoc_output(folder: Path) -> bool:
    """Whether `folder` is a site refdoc-site published (marked, or from before the marker)."""
    return _read_marker(folder) is not None or all((folder / name).is_file() for name in LEGACY_SIGNATURE)


def _foreign_entry(folder: Path) -> str:
    """The name of an entry that makes `folder` unsafe to replace; empty if it is safe."""
    if not folder.is_dir() or is_refdoc_output(folder):
        return ""
    return next((entry.name for entry in sorted(folder.iterdir())), "")


def missing_site_files(site: Path, pages: list[str]) -> list[str]:
    """The files a whole site must have that `site` lacks: the HTML of every rendered page
    (where MkDocs puts it with `use_directory_urls`), the home and 404 pages, the search data."""
    # lazy: mkdocs takes ~0.15 s; only a built site is checked
    from mkdocs.structure.files import File

    expected = list(SITE_FILES)
    expected += [File(page, src_dir=None, dest_dir="", use_directory_urls=True).dest_uri for page in pages]
    return [name for name in expected if not (site / name).is_file()]


def raise_if_incomplete(site: Path, pages: list[str], out: Path) -> None:
    missing = missing_site_files(site, pages)
    if missing:
        raise SiteBuildError(
            f"{site}: the built site lacks {len(missing)} of its files (such as {missing[0]}); "
            f"the previous site at {out} is kept; run the build again, and report it if it recurs"
        )


@contextmanager
def staging_folder(out: Path) -> Iterator[Path]:
    """A new folder beside `out`, made by this process and marked; removed unless swapped in."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{out.name}.building-{os.getpid()}-", dir=out.parent))
    _write_marker(staging, "building")
    try:
        yield staging
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def swap_in(staging: Path, out: Path) -> None:
    """Make the checked `staging` folder the output, retiring the previous one if it is ours.

    The previous output moves onto a fresh empty folder made for it (POSIX rename replaces
    an empty directory), so no existing `OUT.old` of anyone else is ever touched.
    """
    kill_point("site built beside the output")
    if not out.exists():
        os.rename(staging, out)
        kill_point("site renamed into place, not yet marked")
        _write_marker(out, "site")
        return
    foreign = _foreign_entry(out)
    if foreign:  # changed since the build began
        raise OutputFolderError(f"--out {out}: refusing: it now holds files refdoc-site did not write (such as {foreign}); the new site is not published")
    _write_marker(out, "retired")  # before it moves: killed after the move, it is a leftover remove_leftovers knows
    kill_point("previous site marked retired")
    retired = Path(tempfile.mkdtemp(prefix=f"{out.name}.old-{os.getpid()}-", dir=out.parent))
    with signals_deferred():  # an interruption between the two renames would leave no site
        os.replace(out, retired)
        try:
            os.rename(staging, out)
        except OSError:
            os.rename(retired, out)
            _write_marker(out, "site")
            raise
    kill_point("site swapped in, the previous one not yet removed")
    _write_marker(out, "site")
    shutil.rmtree(retired)


def remove_leftovers(out: Path) -> None:
    """Delete the staging and retired folders that killed builds left beside `out`: only
    those marked by a refdoc-site process of this machine that no longer runs, and empty
    ones named after a process that no longer runs."""
    pattern = re.compile(rf"{re.escape(out.name)}\.(building|old)-(\d+)-")
    if not out.parent.is_dir():
        return
    for sibling in out.parent.iterdir():
        named = pattern.match(sibling.name)
        if not named or not sibling.is_dir() or sibling.is_symlink():
            continue
        if not any(sibling.iterdir()) and process_start_time(int(named[2])) is None:
            sibling.rmdir()  # made for a previous site that the kill stopped short of moving there
            continue
        marker = _read_marker(sibling)
        if marker is None or marker.get("host") != socket.gethostname():
            continue
        if process_start_time(int(marker.get("pid", 0))) is None:
            log.warning(f"{sibling}: removing this folder left by an interrupted refdoc-site build")
            shutil.rmtree(sibling, ignore_errors=True)


def _write_marker(folder: Path, state: str) -> None:
    """The marker; a folder being built or retired also names the process that owns it (for
    `remove_leftovers`), while a published site's says only what it is, so that two builds
    of one commit are the same bytes."""
    marker: dict[str, object] = {"tool": TOOL_NAME, "version": __version__, "state": state}
    if state != "site":
        marker |= {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    (folder / SITE_MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")


def _read_marker(folder: Path) -> dict | None:
    return read_tagged_json(folder / SITE_MARKER, "tool", TOOL_NAME)
