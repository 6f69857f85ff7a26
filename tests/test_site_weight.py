"""A site linear in the code: a page's navigation does not grow with the number of modules,
every page is still reachable from the home page, and code carries no markup the theme
draws no differently."""

from __future__ import annotations

import html
import posixpath
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import material
import pytest
from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.core.pages import module_page
from refdoc_site.rendering.nav import module_tree
from refdoc_site.rendering.page_weight import (
    UNREAD_THEME_FOLDERS,
    unread_theme_files_removed,
    ICON_SHEET,
    INLINE_ICON,
    UNSTYLED_TOKENS,
    RUN,
    code_runs_compacted,
    line_numbers,
    line_numbers_compacted,
    squeezed_white_space,
    unstyled_spans_removed,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from site_weight import nav_bytes, site_weight  # noqa: E402

GROUP = 3
"""Modules per folder: `app/g0/m0`, `app/g0/m1`, `app/g0/m2`, `app/g1/m3`, …"""


def nested_repo(root: Path, modules: int) -> Path:
    """`modules` modules nested two folders deep, one small Python file each."""
    files = {
        f"app/g{index // GROUP}/m{index}/work.py": f'''
            def step_{index}(value):
                """Step {index} of the work."""
                return value + {index}
        '''
        for index in range(modules)
    }
    return write_repo(root, files)


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[int, Path]:
    built = {}
    for count in (3, 30):
        work = tmp_path_factory.mktemp(f"nested{count}")
        repo = nested_repo(work / "repo", count)
        assert main(["build", str(repo), "--out", str(work / "out")]) == 0
        built[count] = work / "out"
    return built


def page_html(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def nav_links(page: str) -> list[str]:
    start = page.index('<nav class="md-nav md-nav--primary"')
    return re.findall(r'href="([^"]+)"', page[start:start + nav_bytes(page)])


def test_a_file_page_navigation_does_not_grow_with_the_modules(sites: dict[int, Path]) -> None:
    small, large = (page_html(sites[n], "files/app/g0/m0/work.py") for n in (3, 30))
    assert nav_links(small) == nav_links(large)
    # Only a folder's title (`app/g0` merged when it is app's only folder) and Material's
    # blank lines per hidden entry differ.
    assert nav_bytes(large) < nav_bytes(small) * 1.05


def test_a_module_page_navigation_holds_its_own_branch_only(sites: dict[int, Path]) -> None:
    page = page_html(sites[30], "modules/app/g0/m0")
    links = [unquote(link) for link in nav_links(page)]
    modules_linked = {link for link in links if "/modules/" in link or link.startswith("../m")}
    # Its own folder's modules (m0..m2) and one link per other folder, not all 30 modules.
    assert len(modules_linked) <= GROUP + 30 // GROUP + 1, links
    assert not any(link.rstrip("/").endswith("m29") for link in links), links
    assert any(link.rstrip("/").endswith("m1") for link in links), links


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links += [value for name, value in attrs if name == "href" and value]


def reachable_pages(site: Path) -> set[str]:
    """Every page reached from the home page by following its links, and theirs."""
    seen, queue = {"index.html"}, ["index.html"]
    while queue:
        page = queue.pop()
        parser = _Links()
        parser.feed((site / page).read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
            if not target.endswith(".html"):
                target = posixpath.join(target, "index.html")
            if target not in seen and (site / target).is_file():
                seen.add(target)
                queue.append(target)
    return seen


def test_every_page_is_reachable_from_the_home_page(sites: dict[int, Path]) -> None:
    site = sites[30]
    pages = {path.relative_to(site).as_posix() for path in site.rglob("*.html")} - {"404.html"}
    assert len(pages) > 60
    assert reachable_pages(site) >= pages


def test_folders_nest_and_chains_without_a_module_merge() -> None:
    names = ["(root)", "lib", "lib/db", "lib/db/models", "src/main/java/app", "src/main/java/cli"]
    tree = module_tree([(name, module_page(name)) for name in names])
    assert [node.title for node in tree] == ["(root)", "lib", "src/main/java"]
    lib, merged = tree[1], tree[2]
    assert lib.page == module_page("lib") and list(lib.children) == ["db"]
    assert lib.children["db"].children["models"].page == module_page("lib/db/models")
    assert merged.page is None and list(merged.children) == ["app", "cli"]


def test_code_keeps_its_text_without_unstyled_spans(sites: dict[int, Path]) -> None:
    page = page_html(sites[3], "files/app/g0/m1/work.py")
    assert not re.search(r'<span class="(?:' + "|".join(UNSTYLED_TOKENS) + ')">', page)
    code = re.search(r"<code data-refdoc-lines=\"1 3\"[^>]*>(.*?)</code></pre>", page, re.S)[1]
    assert "return value + 1" in html.unescape(re.sub(r"<[^>]+>", "", code))
    assert unstyled_spans_removed('<span class="n">a&lt;b</span><span class="k">def</span>') == 'a&lt;b<span class="k">def</span>'


def test_indentation_goes_but_code_and_scripts_keep_their_white_space() -> None:
    page = '<nav>\n    <a href="x">\n      X\n    </a>\n</nav>\n  <PRE class="a">  x\n\n    y</PRE>\n  <script>\n  var a\n  b()\n</script>\n  <p>a  b</p>'
    assert squeezed_white_space(page) == (
        '<nav>\n<a href="x">\nX\n</a>\n</nav>\n<PRE class="a">  x\n\n    y</PRE>\n<script>\n  var a\n  b()\n</script>\n<p>a  b</p>'
    )


def test_a_numbered_block_says_its_numbers_as_pygments_wrote_them() -> None:
    import markdown

    fence = "```python linenums=\"98\"\n" + "".join(f"x{n} = {n}\n" for n in range(5)) + "```\n"
    written = code_runs_compacted(unstyled_spans_removed(markdown.markdown(fence, extensions=["pymdownx.highlight", "pymdownx.superfences"])))
    numbers = re.search(r'<td class="linenos"><div class="linenodiv"><pre>([^<]*)</pre>', written)[1]
    assert numbers == line_numbers(98, 5) == " 98\n 99\n100\n101\n102"  # padded to the widest, as the script pads
    compact = line_numbers_compacted(written)
    assert "linenos" not in compact and '<pre><code data-refdoc-lines="98 5" data-refdoc-hl="' in compact
    assert html.unescape(re.sub(r"<[^>]+>", "", compact)).strip() == "\n".join(f"x{n} = {n}" for n in range(5))
    odd = written.replace(" 99\n", " 77\n")
    assert line_numbers_compacted(odd) == odd  # numbers that skip are left as written


def test_every_page_draws_its_icons_from_the_one_sheet(sites: dict[int, Path]) -> None:
    site = sites[3]
    sheet = (site / ICON_SHEET).read_text(encoding="utf-8")
    pages = sorted(set(site.rglob("*.html")) - {site / "404.html"})  # MkDocs' 404 page is not put through the hooks
    assert len(pages) > 10
    for path in pages:
        page = path.read_text(encoding="utf-8")
        assert not INLINE_ICON.search(page), path
        assert "var palette=" not in page, path  # the palette's script is the shared file's
        used = re.findall(r'<use href="([^"#]+)#(i[0-9a-f]+)"/>', page)
        assert len(used) >= 5, path
        for href, name in used:
            assert (path.parent / href).resolve() == (site / ICON_SHEET).resolve(), (path, href)
            assert f'<symbol id="{name}" ' in sheet
        script = re.search(r'<script src="([^"]+/shared/[0-9a-f]+\.js)"></script>', page)
        assert "var palette=__md_get(" in (path.parent / script[1]).read_text(encoding="utf-8")


def test_the_site_holds_no_theme_file_that_nothing_requests(sites: dict[int, Path]) -> None:
    """No source map, no Lunr language file (Material's theme ships both: 2.2 MB of django's
    site), and no script still naming a map; the search scripts the worker loads are there."""
    site = sites[3]
    assert (Path(material.__file__).parent / "templates" / UNREAD_THEME_FOLDERS[0]).is_dir()  # the theme does ship them
    assert not list(site.rglob("*.map"))
    assert not (site / UNREAD_THEME_FOLDERS[0]).exists()
    scripts = list((site / "assets").rglob("*.js"))
    assert any(path.parent.name == "workers" for path in scripts)  # Lunr's core, which the site's worker loads
    for path in scripts:
        assert "sourceMappingURL=" not in path.read_text(encoding="utf-8"), path


def test_taking_out_unread_files_keeps_the_rest_and_is_idempotent(tmp_path: Path) -> None:
    (tmp_path / "assets/javascripts/lunr/min").mkdir(parents=True)
    (tmp_path / "assets/javascripts/lunr/min/lunr.fr.min.js").write_text("x" * 100, encoding="utf-8")
    (tmp_path / "assets/javascripts/bundle.1.min.js").write_text("run();\n//# sourceMappingURL=bundle.1.min.js.map\n", encoding="utf-8")
    (tmp_path / "assets/javascripts/bundle.1.min.js.map").write_text("m" * 50, encoding="utf-8")
    (tmp_path / "assets/refdoc").mkdir(parents=True)
    own = "var a = 1; // sourceMappingURL= is a word here\nrun();\n"
    (tmp_path / "assets/refdoc/own.js").write_text(own, encoding="utf-8")
    assert unread_theme_files_removed(tmp_path) == 100 + 50 + len("\n//# sourceMappingURL=bundle.1.min.js.map")
    assert (tmp_path / "assets/javascripts/bundle.1.min.js").read_text(encoding="utf-8") == "run();\n"
    assert (tmp_path / "assets/refdoc/own.js").read_text(encoding="utf-8") == own
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == ["assets/javascripts/bundle.1.min.js", "assets/refdoc/own.js"]
    assert unread_theme_files_removed(tmp_path) == 0


def test_the_left_out_spans_have_no_style_of_their_own_in_material() -> None:
    stylesheets = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
    css = "".join(path.read_text(encoding="utf-8") for path in stylesheets.glob("*.min.css"))
    for token in UNSTYLED_TOKENS:
        rules = re.findall(r"([^{}]*\.highlight \." + token + r"(?=[,{])[^{}]*)\{([^}]*)\}", css)
        if token == "n":
            # Names are drawn in the code's own colour, in both palettes.
            assert {body for _, body in rules} == {"color:var(--md-code-hl-name-color)"}
            assert set(re.findall(r"--md-code-hl-name-color:([^;}]+)", css)) == {"var(--md-code-fg-color)"}
        else:
            assert rules == [], token


def test_the_benchmark_measures_site_and_navigation(sites: dict[int, Path]) -> None:
    weight = site_weight(sites[30])
    assert weight.pages > 60 and weight.files > weight.pages
    assert 0 < weight.nav_bytes_mean <= weight.nav_bytes_max < 10_000
    assert weight.file_page_bytes_mean > 0
    assert weight.total_bytes == sum(path.stat().st_size for path in sites[30].rglob("*") if path.is_file())


PLUGINS = 100
"""Sibling modules in one folder (`app/plugins/p0` … `p99`), as homeassistant's ~1,400
integrations under `homeassistant/components/`."""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """100 sibling plugin modules; every third imports the `sensor` plugin, every fifth `light`."""
    work = tmp_path_factory.mktemp("plugins")
    files = {"app/plugins/sensor/base.py": "def reading():\n    return 1\n", "app/plugins/light/base.py": "def glow():\n    return 2\n"}
    for index in range(PLUGINS):
        uses = ["from app.plugins.sensor.base import reading"] * (index % 3 == 0) + ["from app.plugins.light.base import glow"] * (index % 5 == 0)
        files[f"app/plugins/p{index:02d}/work.py"] = "\n".join([*uses, "", f"def step_{index}(value):", f'    """Step {index}."""', f"    return value + {index}", ""])
    repo = write_repo(work / "repo", files)
    assert main(["build", str(repo), "--out", str(work / "out")]) == 0
    return work / "out"


def nav_reachable(site: Path) -> set[str]:
    """The pages reached from the home page by following navigation links only."""
    seen, queue = {"index.html"}, ["index.html"]
    while queue:
        page = queue.pop()
        for link in nav_links((site / page).read_text(encoding="utf-8")):
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
            target = target if target.endswith(".html") else posixpath.join(target, "index.html")
            if target not in seen and (site / target).is_file():
                seen.add(target)
                queue.append(target)
    return seen


def test_a_module_among_many_siblings_carries_a_bounded_navigation(plugin_site: Path) -> None:
    page = page_html(plugin_site, "modules/app/plugins/p42")
    siblings = {link for link in nav_links(page) if re.search(r"(?:^|/)p\d\d/$", link)}
    # The groups of the component hierarchy, not the 100 siblings: at most a budget of
    # entries at the folder's level and another inside the group the page is in.
    assert 0 < len(siblings) <= 2 * 30, sorted(siblings)
    assert nav_bytes(page) < 30_000
    assert "→ " in html.unescape(page[page.index('<nav class="md-nav md-nav--primary"'):])  # the map's groups


def test_every_sibling_module_is_still_reached_through_the_navigation(plugin_site: Path) -> None:
    reached = nav_reachable(plugin_site)
    assert {f"modules/app/plugins/p{index:02d}/index.html" for index in range(PLUGINS)} <= reached


def _drawn(page: str) -> list[tuple[str, str]]:
    """What a code block shows, character by character with its class, as a browser draws the
    spans in it or the script draws them from its runs (refdoc-page.js' paintRuns)."""
    block = re.search(r"<code( data-refdoc-hl=\"([^\"]*)\")?>(.*?)</code>", page, re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", block[3]))
    if block[1] is None:
        drawn = []
        for match in re.finditer(r'<span class="([a-z0-9]+)">([^<]*)</span>|([^<]+)', block[3]):
            drawn += [(match[1] or "", c) for c in html.unescape(match[2] if match[1] else match[3])]
        return drawn
    units = text.encode("utf-16-le")
    drawn, at = [], 0
    for css, length in RUN.findall(block[2]):
        drawn += [(css, c) for c in units[2 * at:2 * (at + int(length))].decode("utf-16-le")]
        at += int(length)
    return drawn + [("", c) for c in units[2 * at:].decode("utf-16-le")]


def test_code_runs_draw_every_token_as_its_span_did() -> None:
    original = (
        '<div class="highlight"><pre><span></span><code><span class="k">def</span> <span class="nf">f</span>'
        '<span class="p">(</span>a<span class="p">):</span>\n    <span class="k">return</span> '
        '<span class="s2">&quot;&lt;😀&gt;&quot;</span> <span class="o">+</span> <span class="o">-</span>a\n</code></pre></div>'
    )
    compact = code_runs_compacted(original)
    assert "<span" not in compact and 'data-refdoc-hl="' in compact
    drawn, before = _drawn(compact), _drawn(original)
    assert "".join(c for _, c in drawn) == "".join(c for _, c in before)  # the same text
    # every visible character keeps its class; white space may take a neighbour's colour
    assert [pair for pair in drawn if not pair[1].isspace()] == [pair for pair in before if not pair[1].isspace()]
    assert "o.3" in compact  # `+ -`: one run of operators, the space between them taken in
    assert len(compact) < len(original) * 0.75


def test_code_runs_leave_nested_markup_and_inline_code_alone() -> None:
    nested = '<pre><code><span class="hll"><span class="k">def</span></span>\n</code></pre>'
    assert code_runs_compacted(nested) == nested
    inline = "<p>See <code>a &lt; b</code>.</p>"
    assert code_runs_compacted(inline) == inline
    beside = '<pre><code><span class="gi">+a</span> <span class="gi">+b</span></code></pre>'
    assert 'data-refdoc-hl="gi.2.1gi.2"' in code_runs_compacted(beside)  # a background keeps its bounds


def test_a_file_page_carries_its_code_as_runs_within_a_bound(sites: dict[int, Path]) -> None:
    page = page_html(sites[3], "files/app/g0/m1/work.py")
    blocks = re.findall(r"<pre>(?:(?!</pre>).)*<code (?:data-refdoc-lines=\"[^\"]*\" )?data-refdoc-hl=\"[^\"]*\">.*?</code></pre>", page, re.S)
    assert blocks and not re.search(r"<code[^>]*>[^<]*<span", page)
    for block in blocks:
        text = html.unescape(re.sub(r"<[^>]+>", "", block))
        # markup and runs at most the text's own size again (Pygments' spans were twice it)
        assert len(block.encode()) <= 2 * len(text.encode()) + 200, block


def test_the_site_engine_runs_without_the_stored_documents(tmp_path: Path, monkeypatch) -> None:
    """The engine converts every page while whatever the build holds stays held: the
    documents (homeassistant's 92,000 chunks and their vectors) are let go before it."""
    from refdoc_site.core.config import Config
    from refdoc_site.pipeline import Workspace, build, render_phase

    held = []
    publish = render_phase.publish
    monkeypatch.setattr(render_phase, "publish", lambda workspace: held.append(workspace._state) or publish(workspace))
    workspace = Workspace.create(nested_repo(tmp_path / "repo", 2), Config(), tmp_path / "store", tmp_path / "out")
    built = build(workspace)
    assert held == [None] and (built.site_dir / "index.html").is_file()
    assert len(workspace.load_state().documents) >= 2  # read again by whatever needs them next
