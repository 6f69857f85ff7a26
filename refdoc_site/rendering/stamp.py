"""The build stamp: every page's footer names the commit the site was built from and that
commit's date, and the sitemap dates each page by it, so a rebuild of the same commit
anywhere gives the same bytes (no wall clock; outside git no stamp, and pages dated by
`NO_COMMIT_DATE`)."""

from __future__ import annotations

import html
from typing import Any

from urllib.parse import urlsplit

from .render import Labels, fill, link_target

STAMP_COMMIT_LENGTH = 12
COMMIT_DATE_KEY = "refdoc_commit_date"
"""The `extra:` key of `mkdocs.yml` that holds the commit's date for `on_pre_page`."""
NO_COMMIT_DATE = "1970-01-01"
"""A page's date without a commit: the start of Unix time, as reproducible builds date what
has no date (MkDocs needs one: it also stamps `sitemap.xml.gz` with it)."""


def build_stamp(labels: Labels, commit: str, commit_date: str, repo_url: str) -> str:
    """The footer's HTML (Material prints `copyright` as HTML): the short commit, linked to
    the commit on the repository's host when its URL is known; "" outside git."""
    if not commit or not commit_date:
        return ""
    short = html.escape(commit[:STAMP_COMMIT_LENGTH])
    if repo_url:
        target = html.escape(f"{repo_url.rstrip('/')}/commit/{commit}", quote=True)
        short = f'<a href="{target}"><code>{short}</code></a>'
    else:
        short = f"<code>{short}</code>"
    return fill(str(labels["built_from"]), commit=short, date=html.escape(commit_date[:10]))


def issue_form(labels: Labels, commit: str, repo_url: str) -> dict[str, str]:
    """What the pages' "This is wrong" links need (refdoc-page.js): the host's new-issue
    form, its flavour (GitLab names the fields otherwise), the built commit and the link's
    label; {} without a repository URL, so the pages carry no link that leads nowhere."""
    if not repo_url.startswith(("https://", "http://")):
        return {}
    base = link_target(repo_url.rstrip("/"))
    gitlab = "gitlab" in urlsplit(repo_url).netloc.lower()
    return {
        "url": f"{base}/-/issues/new" if gitlab else f"{base}/issues/new",
        "form": "gitlab" if gitlab else "github",
        "commit": commit,
        "label": str(labels["report_wrong"]),
    }


def on_pre_page(page: Any, config: Any, **_: object) -> Any:
    """MkDocs' hook before a page is read: its date is the commit's, not the day of the
    build (MkDocs' default); the sitemap prints it."""
    page.update_date = (config.extra or {}).get(COMMIT_DATE_KEY) or NO_COMMIT_DATE
    return page
