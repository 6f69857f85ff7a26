"""Shared test helpers: small repositories written into a temporary directory."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import re
import shutil
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SHOP_FIXTURE = Path(__file__).parent / "fixtures" / "golden_repo"
"""The golden test's small multi-language repository."""
TESTS_MERMAID = Path(__file__).parent / "js" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
"""Mermaid as npm installs it for the tests (its module build beside it), when it is."""

HEARTBEAT_LINE = re.compile(r"[\w .-]+: (?:.*, )?\d+s so far")
"""A line `core/progress.heartbeat` prints after a few seconds without one: on a loaded
machine any build may print it, so a test of a build's exact stderr leaves it out."""


def without_heartbeats(stderr: str) -> str:
    """`stderr` without the heartbeat's lines, stripped."""
    return "\n".join(line for line in stderr.splitlines() if not HEARTBEAT_LINE.fullmatch(line)).strip()


CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which the browser tests and the search benchmark drive (never a download)."""
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]
"""Headless as root, with no connection of Chromium's own (this machine's network is closed)."""


def require_chromium() -> None:
    """Skip the calling test module without Debian's Chromium; in CI, fail it instead."""
    import pytest

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: scripts/test.sh installs it; the browser tests must run in CI", pytrace=False)
        pytest.skip("needs Debian's chromium (scripts/test.sh installs it as root)", allow_module_level=True)


@contextmanager
def launched_chromium() -> Iterator:
    """Debian's Chromium, headless, driven by playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A page left before its last request was answered drops the connection: no error."""


@contextmanager
def served_folder(root: Path) -> Iterator[str]:
    """Serve `root` from 127.0.0.1 on a free port; yields `http://127.0.0.1:PORT/`."""
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()


@contextmanager
def served_build(repo: Path, root: Path, sub_path: str, engine: str = "mkdocs") -> Iterator[str]:
    """Build `repo`'s site (with `engine`) into `root/sub_path` and serve `root`, as a pull
    request preview is served; yields the site's URL."""
    from refdoc_site.cli import main

    assert main(["build", str(repo), "--out", str(root / sub_path), "--engine", engine]) == 0
    with served_folder(root) as url:
        yield f"{url}{sub_path}/"


@contextmanager
def served_shop_site(work: Path, sub_path: str, engine: str = "mkdocs") -> Iterator[str]:
    """The shop fixture built into `work` (its diagrams drawn by the tests' Mermaid, when
    npm installed it) and served under `sub_path`; yields the site's URL."""
    # lazy: helpers is imported by tests that never build a site
    import pytest

    from refdoc_site.rendering.site import MERMAID_ENV

    repo = work / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    with pytest.MonkeyPatch.context() as patch:
        if TESTS_MERMAID.is_file():
            patch.setenv(MERMAID_ENV, str(TESTS_MERMAID))
        with served_build(repo, work / "served", sub_path, engine) as url:
            yield url


def dedent(text: str) -> str:
    """Inline source: dedented, without the leading newline of the triple quote."""
    return textwrap.dedent(text).lstrip("\n")


HOSTILE_SOURCES = {
    "<img src=x onerror=alert(2)>/widget.py": '''
        def widget():
            """Spin the widget <img src=x onerror=alert(4)> [now](javascript:alert(5))."""
            return 1
    ''',
    "fence\n```\n<img src=x onerror=alert(3)>/fenced.py": '''
        def fenced_widget():
            """Spin the fenced widget."""
            return 1
    ''',
    "README.md": "# Widgets\n\n## Spin `x` <img src=x onerror=alert(6)> widgets\n\nSpin the widget with care.\n",
}
"""Paths with markup and a newline opening a fence, a docstring with markup and a link, a
heading (a section's symbol) whose backticks would end the code span it is shown in."""


def write_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (repo-relative path → text or bytes) under `root`; returns `root`.

    Text is dedented, so triple-quoted sources may be indented like the test itself.
    """
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(dedent(content), encoding="utf-8")
    return root


def stored_document(
    path: str,
    symbol: str,
    start: int,
    end: int,
    kind=None,
    part: int = 0,
    content: str = "",
    parent: str = "",
    responsibility: str = "",
):
    """A stored `Document` for a Python definition, as the index would write it (a function
    unless `kind` says otherwise; a window of a split one when `part` is given)."""
    from refdoc_site.core.records import Chunk, ChunkKind, ChunkSummary, Document, Metadata

    chunk = Chunk(
        id=f"{path}#{symbol}" + (f"~{part}" if part else ""),
        path=path,
        language="python",
        kind=kind or ChunkKind.FUNCTION,
        name=symbol.rsplit(".", 1)[-1],
        symbol=symbol,
        signature=f"def {symbol}()",
        start_line=start,
        end_line=end,
        content=content,
        parent=parent,
        part=part,
    )
    return Document(chunk, ChunkSummary(responsibility, "", "", "", ""), Metadata(), [], "2024-01-01T00:00:00Z")


def file_summary(
    path: str,
    lines: int = 50,
    has_docs: bool = True,
    public_api: tuple[str, ...] = (),
    language: str = "python",
    file_role=None,
):
    """A file's stored summary with no prose, in the module named by its first folder."""
    from refdoc_site.core.records import FileRole, FileSummary

    return FileSummary(
        path=path,
        module=path.split("/")[0],
        language=language,
        text="",
        role="",
        public_api=list(public_api),
        imports=[],
        external_imports=[],
        lines=lines,
        chunk_ids=[],
        has_docs=has_docs,
        file_role=file_role or FileRole.SOURCE,
    )


def hierarchy(files: list | None = None, modules: list | None = None):
    """A `Hierarchy` of these file and module summaries under an empty system summary."""
    from refdoc_site.core.records import Hierarchy, SystemSummary

    system = SystemSummary(text="", layers=[], cycles=[], languages={})
    return Hierarchy(system, {m.name: m for m in modules or []}, {f.path: f for f in files or []})


def exited_pid() -> int:
    """The pid of a process that has run and been reaped: a holder that is gone."""
    import subprocess
    import sys

    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(process.stdout)


def source_file(path: str, language: str, text: str):
    """A `SourceFile` record for inline text, as discovery would make it."""
    from refdoc_site.core.records import SourceFile

    data = text.encode("utf-8")
    return SourceFile(path, language, len(data), hashlib.sha256(data).hexdigest())


SHOP_SOURCES = {
    "accounts/members.py": '''
        def close_membership(member):
            """Close a membership and revoke its access tokens."""
            tokens.revoke(member.id)
            member.active = False


        def open_membership(email: str):
            """Open a membership for a new email address."""
            return members.add(email)
    ''',
    "billing/invoice.py": '''
        def render_invoice(invoice) -> bytes:
            """Format an invoice as a PDF document."""
            return pdf.render(invoice)


        def send_reminder(customer) -> None:
            """Email a payment reminder to a customer."""
            mail.send(customer)
    ''',
}
"""Two modules of a small shop, for the tests of the API providers."""


def indexed_shop(root: Path, config=None):
    """A copy of the golden fixture under `root`, indexed and summarized: (workspace, hierarchy)."""
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, index, summarize

    repo = root / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    workspace = Workspace.create(repo, config or Config(site_name="Shop"), root / "store", root / "site")
    index(workspace)
    return workspace, summarize(workspace)


@contextmanager
def running(served) -> Iterator[str]:
    """A `serving.app.Served` serving in a thread; yields its URL and stops it after."""
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    try:
        yield served.url
    finally:
        served.server.shutdown()
        thread.join(10)


def built_shop(work: Path) -> Path:
    """A copy of the golden fixture at `work/shop`, built with the CLI into `work/out` (its
    store in `work/shop/.refdoc`); returns the repository."""
    from refdoc_site.cli import main

    repo = work / "shop"
    shutil.copytree(SHOP_FIXTURE, repo)
    assert main(["build", str(repo), "--out", str(work / "out")]) == 0
    return repo


ASK_SOURCES = {
    "shop/orders.py": '''
        """Orders: placing an order checks the stock, charges the card and ships the parcel."""

        from shop.payments import charge_card


        def place_order(cart, card):
            """Place an order for the cart: check the stock, charge the card, then ship."""
            check_stock(cart)
            receipt = charge_card(card, cart.total)
            return ship_parcel(cart, receipt)


        def check_stock(cart):
            """Raise when an item of the cart is out of stock."""
            for item in cart.items:
                if item.stock < item.quantity:
                    raise ValueError("out of stock")


        def ship_parcel(cart, receipt):
            """Hand the parcel to the courier with the receipt."""
            return {"cart": cart, "receipt": receipt}
    ''',
    "shop/payments.py": '''
        """Payments through the card processor."""


        def charge_card(card, amount):
            """Charge the card the amount, in cents, and return the receipt."""
            if amount <= 0:
                raise ValueError("nothing to charge")
            return {"card": card.number[-4:], "amount": amount}


        def refund_payment(receipt):
            """Give the money of a receipt back to the card."""
            return {"refunded": receipt["amount"]}
    ''',
    "README.md": '''
        # Shop

        ## Refunds

        A refund gives the whole payment back to the card it was charged to.
    ''',
}
"""A small shop whose orders call its payments, with a README section: what `ask` is tested on."""


OVERLOADED_SOURCES = {"box.py": '''
    import typing as t


    class Box:
        """A box of items."""

        @t.overload
        def get(self, key: int) -> int: ...

        @t.overload
        def get(self, key: str) -> str: ...

        def get(self, key):
            """Fetch the item stored under key from the box."""
            return key
    '''}
"""A method declared twice with `@overload` before its implementation: three chunks of one
name in one file (`box.py#Box.get`, `…@10`, `…@13`), which `ask` and `mcp` treat as one definition."""


def check_mermaid_only_on_a_diagram_page(tab, site_url: str) -> None:
    """In a browser `tab` (conftest.py): neither a file page nor the overview, whose map is
    an SVG drawn at build time (rendering/component_map.py), loads Mermaid."""
    from refdoc_site.rendering.component_map import graphviz

    for page in ("files/app/service.py/", ""):
        tab.goto(site_url + page, wait_until="load")
        tab.wait_for_timeout(500)
        assert tab.query_selector("pre.mermaid, div.mermaid") is None
    assert not [url for url in tab.requests if "mermaid" in url]
    if graphviz():
        assert tab.query_selector(".refdoc-map svg a") is not None


def check_search_data_waits_for_the_box(tab, site_url: str, box: str, search_data: tuple[str, ...]) -> None:
    """In a browser `tab`: nothing of `search_data` is fetched until a pointer is over the
    search `box` (a selector); then the index is."""
    tab.goto(site_url, wait_until="load")
    tab.wait_for_timeout(1500)
    assert [url for url in tab.requests if any(part in url for part in search_data)] == []
    tab.hover(box)
    tab.wait_for_selector("html[data-refdoc-search]", state="attached", timeout=10_000)
    assert any(url.startswith(f"{site_url}search/refdoc/index.json") for url in tab.requests)


def built_overview(tmp_path: Path, files: dict[str, str], site_name: str = "Tiny", language: str = "en"):
    """A repository of `files` indexed, summarized and rendered (no Mermaid): its stored
    orientation and its overview's Markdown."""
    from unittest.mock import patch

    from refdoc_site.core.config import Config
    from refdoc_site.core.serial import from_json
    from refdoc_site.core.workspace import ORIENTATION_NAME
    from refdoc_site.pipeline import Workspace, index, render, summarize
    from refdoc_site.understanding.orientation import Orientation

    repo = write_repo(tmp_path / "repo", files)
    workspace = Workspace.create(repo, Config(site_name=site_name, language=language), tmp_path / "store", tmp_path / "site")
    index(workspace)
    summarize(workspace)
    with patch("refdoc_site.pipeline.render_phase.find_mermaid", return_value=None):
        render(workspace)
    orientation = from_json(Orientation, workspace.store.read_json(ORIENTATION_NAME))
    return orientation, (workspace.project_dir / "docs" / "index.md").read_text(encoding="utf-8")
