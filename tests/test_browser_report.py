"""The "This is wrong" links (templates/shared/refdoc-page.js), in headless Chromium: on a
definition of a built site whose repository URL is known, the link opens the host's
new-issue form prefilled with that definition's page, section and the built commit; a site
without a repository URL has no such link."""

from __future__ import annotations

import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import require_chromium, served_build, write_repo

from refdoc_site.rendering.zensical_site import zensical_installed

require_chromium()

ENGINES = ("mkdocs", pytest.param("zensical", marks=pytest.mark.skipif(not zensical_installed(), reason="needs Zensical: pip install 'refdoc-site[zensical]' (the test extra has it)")))

REPO_URL = "https://github.com/acme/wheel"
SOURCES = {
    "refdoc.yml": f"repo_url: {REPO_URL}\n",
    "wheel/__init__.py": "",
    "wheel/core.py": 'def spin(speed: int) -> int:\n    """Spin the wheel <b>fast</b>."""\n    return speed * 2\n',
}


def _committed(root):
    repo = write_repo(root, SOURCES)
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "wheel"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True)
    return repo, subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module", params=ENGINES)
def built(request, tmp_path_factory):
    work = tmp_path_factory.mktemp("browser-report")
    repo, commit = _committed(work / "wheel")
    with served_build(repo, work / "served", "preview", request.param) as url:
        yield url, commit


def test_the_link_on_a_definition_opens_a_new_issue_with_its_page_section_and_commit(browser, built) -> None:
    """On the MkDocs site and on the Zensical one (both load refdoc-page.js)."""
    site_url, commit = built
    context = browser.new_context()
    opened = []
    context.route("https://github.com/**", lambda route: (opened.append(route.request.url), route.fulfill(body="new issue form")))
    page = context.new_page()
    assert page.goto(site_url + "files/wheel/core.py/").ok
    link = page.locator("#chunk-spin a.refdoc-wrong")
    assert link.inner_text() == "This is wrong"
    with context.expect_page() as popup:
        link.click()
    url = popup.value.url
    assert opened and opened[-1] == url
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{REPO_URL}/issues/new"
    fields = parse_qs(parts.query)
    assert "spin" in fields["title"][0] and "files/wheel/core.py/" in fields["title"][0]
    body = fields["body"][0]
    assert "**Page:** files/wheel/core.py/ (" in body and "/files/wheel/core.py/#chunk-spin)" in body
    assert "**Section:** spin (#chunk-spin)" in body
    assert f"**Commit:** {commit}" in body
    assert "Spin the wheel <b>fast</b>." in body, "the claim is the section's text, as text"
    assert f"- {REPO_URL}/blob/{commit}/wheel/core.py#L1-L3" in body, "its evidence: the source lines it cites"
    assert len(url) <= 7000
    overview = context.new_page()
    assert overview.goto(site_url).ok
    headings = overview.locator("article h2").count()
    assert headings > 2 and overview.locator("article h2 a.refdoc-wrong").count() == headings, "every section of the overview"
    context.close()


def test_a_site_without_a_repository_url_has_no_link(browser, tmp_path) -> None:
    repo = write_repo(tmp_path / "plain", {k: v for k, v in SOURCES.items() if k != "refdoc.yml"})
    with served_build(repo, tmp_path / "served", "plain") as url:
        page = browser.new_page()
        assert page.goto(url + "files/wheel/core.py/").ok
        assert page.locator("#chunk-spin").count() == 1 and page.locator("a.refdoc-wrong").count() == 0
        page.close()
