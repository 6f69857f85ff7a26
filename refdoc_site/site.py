"""Site stage: the MkDocs project around the rendered pages, and the MkDocs build.

`mkdocs.yml` comes from `mkdocs.yml.template`. Every asset is local: Material's web fonts
are off, and Mermaid diagrams are drawn only when a local Mermaid script is available
(else they show as text), so a published site requests nothing from another host.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from .errors import SiteBuildError
from .render import html_text, yaml_string
from .resources import mkdocs_template, templates_dir

MERMAID_ENV = "REFDOC_MERMAID_JS"
MERMAID_ASSET = "assets/javascripts/mermaid.min.js"
MERMAID_SEARCH_PATHS = (
    Path("node_modules/mermaid/dist/mermaid.min.js"),
    Path.home() / ".cache/refdoc-site/node_modules/mermaid/dist/mermaid.min.js",
)


def find_mermaid(repo: Path, configured: str) -> Path | None:
    """A local `mermaid.min.js`: configured, from the environment, or in a node_modules."""
    candidates = [Path(configured)] if configured else []
    if os.environ.get(MERMAID_ENV):
        candidates.append(Path(os.environ[MERMAID_ENV]))
    candidates += [repo / p if not p.is_absolute() else p for p in MERMAID_SEARCH_PATHS]
    return next((c for c in candidates if c.is_file()), None)


def write_project(
    project_dir: Path,
    site_dir: Path,
    *,
    site_name: str,
    site_url: str,
    language: str,
    modules: list[tuple[str, str]],
    mermaid_script: Path | None,
    plans: list[tuple[str, str]] = (),
) -> Path:
    """Write `mkdocs.yml` (and local assets) next to the rendered `docs/`."""
    docs_dir = project_dir / "docs"
    overrides = project_dir / "overrides"
    overrides.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(templates_dir() / "material" / "main.html", overrides / "main.html")
    scripts = []
    if mermaid_script is not None:
        target = docs_dir / MERMAID_ASSET
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mermaid_script, target)
        scripts.append(MERMAID_ASSET)
    environment = Environment(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters.update(html_text=html_text, yaml_string=yaml_string)
    template = environment.from_string(mkdocs_template().read_text(encoding="utf-8"))
    config_path = project_dir / "mkdocs.yml"
    config_path.write_text(
        template.render(
            site_name=site_name,
            site_url=site_url,
            site_dir=str(site_dir.resolve()),
            language=language,
            modules=modules,
            plans=plans,
            extra_javascript=scripts,
        ),
        encoding="utf-8",
    )
    return config_path


def build_site(config_path: Path) -> None:
    """Run `mkdocs build --strict` in this process; a warning fails the build."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError

    logger = logging.getLogger("mkdocs")
    collector = _WarningCollector()
    logger.addHandler(collector)
    try:
        config = load_config(config_file=str(config_path), strict=True)
        build(config)
    except (Abort, ConfigurationError) as error:
        detail = "; ".join(collector.messages[:3]) or str(error)
        raise SiteBuildError(f"{config_path}: mkdocs build --strict failed: {detail}") from None
    finally:
        logger.removeHandler(collector)


class _WarningCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
