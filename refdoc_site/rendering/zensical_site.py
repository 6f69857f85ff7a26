"""The site built by Zensical (`engine: zensical`), from the `mkdocs.yml` MkDocs builds.

Zensical reads `mkdocs.yml` and Material's theme overrides, but not the three things the
MkDocs build relies on beyond them, so this module supplies each:

- Its search box needs its own index and worker protocol: the theme override
  (templates/zensical/) puts refdoc-site's box in the header instead, driven by
  `zensical-search.js` and answered by the same worker as with MkDocs. That worker takes
  lunr.js from Material's search worker, shipped as `assets/refdoc/lunr-host.js`.
- It runs no MkDocs hooks (`hooks:`): the page-weight post-processing (page_weight.py) is
  applied here to every page it wrote, and the pages' Markdown copies (llms.py) are
  written here when `mkdocs.yml` asks for them.
- It writes only inside the project (`site_dir` must be under it) and keeps a cache
  there (`.cache/`), so it builds into the project's `site/`, which stays as it wrote it
  for its next incremental build, and the pages are copied from there into the folder
  the publish step made.

It runs as `python -m zensical build --strict` in a child process: a failure is its
exit status and message.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from ..core.errors import SiteBuildError
from ..search.ranking import ASSETS
from .llms import MARKDOWN_COPIES_KEY, write_markdown_copies
from .page_weight import code_runs_compacted, icons_written, line_numbers_compacted, shared_parts_referenced, squeezed_white_space, unread_theme_files_removed, unstyled_spans_removed, write_shared_files

ZENSICAL = "zensical"
INSTALL_HINT = "pip install 'refdoc-site[zensical]'"
SCRIPTS_DIR = "assets/refdoc"
UI_FILES = ("zensical-search.js", "zensical-search.css")
LUNR_HOST = "lunr-host.js"
MATERIAL_WORKERS = Path("templates/assets/javascripts/workers")
SITE_DIR_LINE = re.compile(r"^site_dir:(.*)$", re.M)
COPIES_LINE = re.compile(r"^\s+" + MARKDOWN_COPIES_KEY + r":\s*(\w+)\s*$", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PROBLEM = re.compile(r"^\s*(?:Warning|Error):\s*(.+)$")
WHERE = re.compile(r"\[\s*([^\]\s]+:\d+(?::\d+)?)\s*\]")


def zensical_installed() -> bool:
    return importlib.util.find_spec(ZENSICAL) is not None


def require_zensical() -> None:
    """A one-line error saying how to install Zensical when it is missing."""
    if not zensical_installed():
        raise SiteBuildError(f"engine: zensical: the zensical package is not installed; install it with {INSTALL_HINT}, or set engine: mkdocs")


def zensical_assets(docs_dir: Path) -> None:
    """Copy the search box's script and style, and lunr's host, into `docs/assets/refdoc/`."""
    target = docs_dir / SCRIPTS_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name in UI_FILES:
        shutil.copyfile(ASSETS / name, target / name)
    shutil.copyfile(material_search_worker(), target / LUNR_HOST)


def material_search_worker() -> Path:
    """Material's search worker script (mkdocs-material is a dependency): it carries lunr.js."""
    spec = importlib.util.find_spec("material")
    folders = list(spec.submodule_search_locations or []) if spec else []
    found = sorted(p for folder in folders for p in (Path(folder) / MATERIAL_WORKERS).glob("search.*.min.js"))
    if not found:
        raise SiteBuildError("engine: zensical: Material's search worker (templates/assets/javascripts/workers/search.*.min.js of mkdocs-material) is missing; reinstall mkdocs-material")
    return found[-1]


def configured_site_dir(config_path: Path) -> Path:
    """`mkdocs.yml`'s `site_dir`, relative to the project (write_project writes one)."""
    match = SITE_DIR_LINE.search(config_path.read_text(encoding="utf-8"))
    value = yaml.safe_load(match[1]) if match else "site"
    return config_path.parent / str(value)


def build_with_zensical(config_path: Path, site_dir: Path | None = None) -> int:
    """Build with Zensical into the project's `site_dir`, then (when `site_dir` is given)
    copy it there, and lighten its pages as MkDocs' hooks do; returns the pages written."""
    require_zensical()
    command = [sys.executable, "-m", ZENSICAL, "build", "--config-file", config_path.name, "--strict"]
    result = subprocess.run(command, cwd=config_path.parent, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SiteBuildError(f"{config_path}: zensical build --strict failed: {problems(result.stdout + result.stderr, result.returncode)}")
    built = configured_site_dir(config_path)
    if site_dir is not None and site_dir.resolve() != built.resolve():
        shutil.copytree(built, site_dir, dirs_exist_ok=True)
    else:
        site_dir = built
    copies = COPIES_LINE.search(config_path.read_text(encoding="utf-8"))
    if copies is None or copies[1] == "true":
        write_markdown_copies(config_path.parent / "docs", site_dir)
    return lightened(site_dir)


def problems(output: str, status: int) -> str:
    """Zensical's first warnings, each with the page and line it names (its report draws
    them in colour over several lines); else its last line, or the exit status."""
    found: list[str] = []
    lines = ANSI.sub("", output).splitlines()
    for number, line in enumerate(lines):
        problem = PROBLEM.match(line)
        if problem and len(found) < 3:
            where = next((m[1] for later in lines[number + 1 : number + 4] if (m := WHERE.search(later))), "")
            found.append(f"{where}: {problem[1]}" if where else problem[1])
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return "; ".join(found) or last or f"exit status {status}"


def lightened(site_dir: Path) -> int:
    """Apply page_weight.py's passes to every page of `site_dir` (MkDocs runs them as
    hooks); returns how many pages there are. A folder may bear a page's name: the file
    page of a repository's `404.html` is `files/…/404.html/index.html`."""
    pages = sorted(path for path in site_dir.rglob("*.html") if path.is_file())
    shared = icons_written(site_dir)  # Zensical rewrites only the pages that changed
    for page in pages:
        text = page.read_text(encoding="utf-8")
        lighter = shared_parts_referenced(squeezed_white_space(line_numbers_compacted(code_runs_compacted(unstyled_spans_removed(text)))), shared)
        if lighter != text:
            page.write_text(lighter, encoding="utf-8")
    if shared:
        write_shared_files(site_dir, shared)
    unread_theme_files_removed(site_dir, folders=())  # its source maps; its own search reads its own files
    return len(pages)
