"""What well-known third-party packages are for, and the names they are imported under.

The decision log turns a dependency manifest into sentences such as "Uses mkdocs and
mkdocs-material for the documentation site". A manifest only names packages, so the
purpose comes from this table; packages missing here are described by the files that
import them instead. Keys are normalised per ecosystem the way `understanding/evidence/` does it:
Python names lower-cased with runs of `-_.` folded to `-` (PEP 503), npm names
lower-cased, Go module paths without a trailing `/vN`, Rust crates with `_` as `-`.

A package's purpose is a key of the label tables' `dependency_purposes` (templates/labels),
which phrase it in the site's language ("the documentation site"). Several packages share a
purpose on purpose: the purpose is what groups them into one decision entry.
"""

from __future__ import annotations

WEB_FRAMEWORK = "web_framework"
WEB_SERVER = "web_server"
HTTP_CLIENT = "http_client"
TESTING = "testing"
CODE_QUALITY = "code_quality"
DATABASE = "database"
CLI = "cli"
TEMPLATING = "templating"
CONFIG_FORMATS = "config_formats"
VALIDATION = "validation"
NUMERICS = "numerics"
DOCS_SITE = "docs_site"
MARKUP_PARSING = "markup_parsing"
CODE_PARSING = "code_parsing"
TERMINAL = "terminal"
USER_INTERFACE = "user_interface"
BUNDLING = "bundling"
ASYNC_RUNTIME = "async_runtime"
SERIALIZATION = "serialization"
ERRORS = "errors"
LOGGING = "logging"
BACKGROUND_JOBS = "background_jobs"
IMAGES = "images"
MACHINE_LEARNING = "machine_learning"

PURPOSES: dict[str, str] = {
    # Python
    "django": WEB_FRAMEWORK,
    "flask": WEB_FRAMEWORK,
    "fastapi": WEB_FRAMEWORK,
    "starlette": WEB_FRAMEWORK,
    "uvicorn": WEB_SERVER,
    "gunicorn": WEB_SERVER,
    "requests": HTTP_CLIENT,
    "httpx": HTTP_CLIENT,
    "aiohttp": HTTP_CLIENT,
    "urllib3": HTTP_CLIENT,
    "pytest": TESTING,
    "pytest-cov": TESTING,
    "hypothesis": TESTING,
    "tox": TESTING,
    "ruff": CODE_QUALITY,
    "black": CODE_QUALITY,
    "flake8": CODE_QUALITY,
    "mypy": CODE_QUALITY,
    "pylint": CODE_QUALITY,
    "sqlalchemy": DATABASE,
    "psycopg2": DATABASE,
    "psycopg2-binary": DATABASE,
    "pymongo": DATABASE,
    "alembic": DATABASE,
    "click": CLI,
    "typer": CLI,
    "jinja2": TEMPLATING,
    "mako": TEMPLATING,
    "pyyaml": CONFIG_FORMATS,
    "tomli": CONFIG_FORMATS,
    "toml": CONFIG_FORMATS,
    "pydantic": VALIDATION,
    "marshmallow": VALIDATION,
    "attrs": VALIDATION,
    "numpy": NUMERICS,
    "pandas": NUMERICS,
    "scipy": NUMERICS,
    "scikit-learn": MACHINE_LEARNING,
    "torch": MACHINE_LEARNING,
    "mkdocs": DOCS_SITE,
    "mkdocs-material": DOCS_SITE,
    "sphinx": DOCS_SITE,
    "beautifulsoup4": MARKUP_PARSING,
    "lxml": MARKUP_PARSING,
    "tree-sitter": CODE_PARSING,
    "rich": TERMINAL,
    "tqdm": TERMINAL,
    "celery": BACKGROUND_JOBS,
    "redis": BACKGROUND_JOBS,
    "pillow": IMAGES,
    "loguru": LOGGING,
    "structlog": LOGGING,
    # npm
    "express": WEB_FRAMEWORK,
    "koa": WEB_FRAMEWORK,
    "fastify": WEB_FRAMEWORK,
    "next": WEB_FRAMEWORK,
    "@nestjs/core": WEB_FRAMEWORK,
    "react": USER_INTERFACE,
    "vue": USER_INTERFACE,
    "svelte": USER_INTERFACE,
    "@angular/core": USER_INTERFACE,
    "axios": HTTP_CLIENT,
    "node-fetch": HTTP_CLIENT,
    "jest": TESTING,
    "mocha": TESTING,
    "vitest": TESTING,
    "@playwright/test": TESTING,
    "cypress": TESTING,
    "eslint": CODE_QUALITY,
    "prettier": CODE_QUALITY,
    "typescript": CODE_QUALITY,
    "webpack": BUNDLING,
    "vite": BUNDLING,
    "rollup": BUNDLING,
    "esbuild": BUNDLING,
    "commander": CLI,
    "yargs": CLI,
    "handlebars": TEMPLATING,
    "ejs": TEMPLATING,
    "prisma": DATABASE,
    "typeorm": DATABASE,
    "sequelize": DATABASE,
    "mongoose": DATABASE,
    "zod": VALIDATION,
    "joi": VALIDATION,
    "winston": LOGGING,
    "pino": LOGGING,
    # Go
    "github.com/spf13/cobra": CLI,
    "github.com/urfave/cli": CLI,
    "github.com/gin-gonic/gin": WEB_FRAMEWORK,
    "github.com/labstack/echo": WEB_FRAMEWORK,
    "github.com/gorilla/mux": WEB_FRAMEWORK,
    "github.com/go-chi/chi": WEB_FRAMEWORK,
    "github.com/stretchr/testify": TESTING,
    "gorm.io/gorm": DATABASE,
    "gopkg.in/yaml.v3": CONFIG_FORMATS,
    "go.uber.org/zap": LOGGING,
    "github.com/sirupsen/logrus": LOGGING,
    # Rust
    "serde": SERIALIZATION,
    "serde-json": SERIALIZATION,
    "tokio": ASYNC_RUNTIME,
    "clap": CLI,
    "reqwest": HTTP_CLIENT,
    "actix-web": WEB_FRAMEWORK,
    "axum": WEB_FRAMEWORK,
    "rocket": WEB_FRAMEWORK,
    "diesel": DATABASE,
    "sqlx": DATABASE,
    "anyhow": ERRORS,
    "thiserror": ERRORS,
    "tracing": LOGGING,
    "log": LOGGING,
}
"""Normalised package name → purpose phrase, completing "Uses X for …"."""

PYTHON_IMPORT_NAMES: dict[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "beautifulsoup4": ("bs4",),
    "pillow": ("PIL",),
    "scikit-learn": ("sklearn",),
    "python-dateutil": ("dateutil",),
    "opencv-python": ("cv2",),
    "pyjwt": ("jwt",),
    "python-dotenv": ("dotenv",),
    "psycopg2-binary": ("psycopg2",),
    "mkdocs-material": ("material",),
    "attrs": ("attr", "attrs"),
    "faiss-cpu": ("faiss",),
}
"""Python distributions whose import name is not the distribution name with `-` as `_`."""
