"""Every page carries a meta description (its first paragraph of prose), escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from helpers import write_repo

from refdoc_site.cli import main
from refdoc_site.rendering.page_meta import DESCRIPTION_CHARS, page_description
from refdoc_site.rendering.render import page_labels

HOSTILE = 'def greet(name):\n    """Say hello "quoted"><script>alert(1)</script> & <b>bold</b> to `name`."""\n    return name\n'


class _Descriptions(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "meta" and values.get("name") == "description":
            self.found.append(values.get("content") or "")


def descriptions(page: Path) -> list[str]:
    parser = _Descriptions()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def test_the_first_prose_paragraph_is_the_description_without_its_marks() -> None:
    page = "# `app/util.py`\n\n| a | b |\n|---|---|\n\n```py\ncode\n```\n\nDefines [`normalize`](x.md#y): **lower-cases** a\nname.\n\nMore.\n"
    assert page_description(page) == "Defines normalize: lower-cases a name."
    assert page_description("# Title\n\n- a list\n") == ""
    assert len(page_description("Word " * 100)) <= DESCRIPTION_CHARS


def test_every_page_kind_has_one_description_and_markup_in_it_stays_text(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {
        "pyproject.toml": '[project]\nname = "greeter"\ndescription = "Greets people by name."\n',
        "app/greet.py": HOSTILE,
        "app/cli.py": "from app.greet import greet\n\ndef main():\n    return greet('x')\n",
    })
    out = tmp_path / "site"
    assert main(["build", str(repo), "--out", str(out)]) == 0
    pages = {
        "overview": out / "index.html",
        "file": out / "files" / "app" / "greet.py" / "index.html",
        "decisions": out / "decisions" / "index.html",
        "plan": out / "plans" / "milestones" / "index.html",
        # Lists of summaries: their sentence of introduction is their description.
        "module summaries": out / "summaries" / "modules" / "index.html",
    }
    pages["file summaries"] = out / "summaries" / "files" / "index.html"  # checked last: it had none
    pages["module"] = next(p for p in (out / "modules").rglob("index.html"))
    for kind, page in pages.items():
        found = descriptions(page)
        assert len(found) == 1 and found[0].strip(), (kind, found)
    assert "Greets people by name." in descriptions(pages["overview"])[0]
    # Its own introduction, not the first module's text.
    assert descriptions(pages["module summaries"])[0].strip() == page_labels("en")["module_summaries_intro"]
    html = pages["file"].read_text(encoding="utf-8")
    head = html.split("</head>", 1)[0]
    assert "<script>alert" not in head and not re.search(r"<b>bold", head)
    assert 'content="Defines greet: Say hello &quot;quoted&quot;' in head  # a quote cannot end the attribute
