"""Lighthouse's accessibility and SEO scores of a built site, one row per page kind.

    python benchmarks/a11y.py                      # flask 3.0.3's sdist, built with MkDocs
    python benchmarks/a11y.py --site SITE_DIR      # a site already built
    python benchmarks/a11y.py --form-factor desktop

Targets: accessibility ≥ 95 and SEO ≥ 95 on every page kind. The site is served by
`python -m http.server` on 127.0.0.1 under `/docs/` (a sub-path, as a project site is);
Lighthouse drives Debian's Chromium (CHROME_PATH, default /usr/bin/chromium). Lighthouse
is found at --lighthouse, REFDOC_LIGHTHOUSE, `~/.cache/refdoc-site/lighthouse` or on PATH:

    npm install --prefix ~/.cache/refdoc-site/lighthouse --no-save lighthouse@12.8.2

Not a test: one page takes ~20 s. Failed audits are printed under the table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "benchmarks" / ".cache"
CORPUS = "flask==3.0.3"
SUB_PATH = "docs"
TARGET = 95
CACHED_LIGHTHOUSE = Path.home() / ".cache/refdoc-site/lighthouse/node_modules/.bin/lighthouse"
TESTS_MERMAID = ROOT / "tests/js/node_modules/mermaid/dist/mermaid.min.js"
PAGE_KINDS = {
    "overview": [""],
    "module": ["modules/src/flask/", "modules/app/", "modules/refdoc_site/"],
    "file": ["files/src/flask/app.py/", "files/app/service.py/", "files/refdoc_site/cli.py/"],
    "prose doc": ["files/docs/quickstart.rst/", "docs/quickstart/", "files/docs/configuration.md/", "files/README.md/"],
    "decisions": ["decisions/"],
    "milestones": ["plans/milestones/"],
    "system summary": ["summaries/system/"],
    "file summaries": ["summaries/files/"],
}
"""Each kind's page: the first candidate the site has (flask's first, then the shop's and
this repository's own)."""
CHANGES_PAGE = "changes/"
CATEGORIES = ("accessibility", "seo")


def lighthouse_command(given: str | None) -> str:
    for candidate in (given, os.environ.get("REFDOC_LIGHTHOUSE"), str(CACHED_LIGHTHOUSE), shutil.which("lighthouse")):
        if candidate and Path(candidate).is_file():
            return candidate
    sys.exit("lighthouse not found: npm install --prefix ~/.cache/refdoc-site/lighthouse --no-save lighthouse@12.8.2, or pass --lighthouse")


def flask_repo(cache: Path) -> Path:
    """flask 3.0.3's sdist (docs, tests and examples included), unpacked once into `cache`."""
    unpacked = cache / "a11y-flask"
    if (unpacked / "flask-3.0.3" / "pyproject.toml").is_file():
        return unpacked / "flask-3.0.3"
    download = cache / "a11y-download"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(download), CORPUS]
    print("  $", " ".join(command), flush=True)
    subprocess.run(command, check=True, capture_output=True)
    sdist = next(download.glob("flask-3.0.3.tar.gz"))
    with tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
    return unpacked / "flask-3.0.3"


def build(repo: Path, site: Path) -> None:
    environment = dict(os.environ)
    if TESTS_MERMAID.is_file():
        environment.setdefault("REFDOC_MERMAID_JS", str(TESTS_MERMAID))
    command = [sys.executable, "-m", "refdoc_site", "build", str(repo), "--out", str(site)]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=environment)
    print(f"  built {repo.name} in {time.perf_counter() - started:.0f} s", flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pages(site: Path) -> dict[str, str]:
    found = {}
    for kind, candidates in PAGE_KINDS.items():
        page = next((c for c in candidates if (site / c / "index.html").is_file()), None)
        if page is not None:
            found[kind] = page
    if (site / CHANGES_PAGE / "index.html").is_file():
        found["what changed"] = CHANGES_PAGE
    return found


def audit(lighthouse: str, url: str, form_factor: str, report: Path) -> dict:
    command = [
        lighthouse, url, f"--only-categories={','.join(CATEGORIES)}", "--output=json",
        f"--output-path={report}", "--quiet", "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
    ]
    if form_factor == "desktop":
        command.append("--preset=desktop")
    environment = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    subprocess.run(command, check=True, capture_output=True, env=environment, timeout=300)
    return json.loads(report.read_text(encoding="utf-8"))


def failed_audits(result: dict) -> list[str]:
    """The audits of the two categories that did not pass, with the nodes they name."""
    ids = {ref["id"] for name in CATEGORIES for ref in result["categories"][name]["auditRefs"] if ref["weight"] > 0}
    failed = []
    for audit_id in sorted(ids):
        item = result["audits"][audit_id]
        if item.get("score") is not None and item["score"] < 1:
            items = (item.get("details") or {}).get("items") or []
            failed.append(f"{audit_id} ({len(items)} items)")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build flask 3.0.3's sdist)")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--form-factor", choices=("mobile", "desktop"), default="mobile")
    parser.add_argument("--lighthouse")
    arguments = parser.parse_args()
    lighthouse = lighthouse_command(arguments.lighthouse)
    with tempfile.TemporaryDirectory(prefix="refdoc-a11y-") as temporary:
        served = Path(temporary) / "served"
        site = served / SUB_PATH
        if arguments.site is not None:
            shutil.copytree(arguments.site, site)
        else:
            arguments.cache.mkdir(parents=True, exist_ok=True)
            build(flask_repo(arguments.cache), site)
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(served)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(1)
            rows = []
            for kind, page in pages(site).items():
                url = f"http://127.0.0.1:{port}/{SUB_PATH}/{page}"
                result = audit(lighthouse, url, arguments.form_factor, Path(temporary) / "report.json")
                scores = [round(100 * result["categories"][name]["score"]) for name in CATEGORIES]
                rows.append((kind, page, *scores, failed_audits(result)))
                print(f"  {kind}: {scores}", flush=True)
        finally:
            server.terminate()
            server.wait()
    print(f"\nLighthouse ({arguments.form_factor}), target ≥ {TARGET}\n")
    print("| page kind | page | accessibility | SEO |")
    print("| --- | --- | ---: | ---: |")
    for kind, page, accessibility, seo, _ in rows:
        print(f"| {kind} | `/{SUB_PATH}/{page}` | {accessibility} | {seo} |")
    for kind, _, _, _, failed in rows:
        if failed:
            print(f"\n{kind}: failed audits: {', '.join(failed)}")
    below = [row[0] for row in rows if min(row[2], row[3]) < TARGET]
    print(f"\n{'below target: ' + ', '.join(below) if below else 'every page kind meets the target'}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
