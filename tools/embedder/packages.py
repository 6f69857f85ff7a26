"""The training corpus: popular PyPI (and npm) packages whose code and docstrings the
static embedder learns from.

Never list the evaluation corpora here: click, httpx, requests (PyPI) and express, koa
(npm), nor packages that vendor or wrap them closely (pip vendors requests; httpcore is
httpx's transport; requests-* and click-* extensions; the jshttp/pillarjs modules that
make up express). `extract.py` also drops any file under a `click/`, `httpx/` or
`requests/` folder, so a vendored copy cannot slip in.
"""

PYPI = ["attrs", "cattrs", "pydantic", "typing-extensions", "six", "python-dateutil", "pytz", "tzlocal", "urllib3", "idna", "charset-normalizer", "certifi", "chardet", "packaging", "pyparsing", "setuptools", "wheel", "virtualenv", "filelock", "platformdirs", "distlib", "jinja2", "toml", "tomli", "tomlkit", "jsonschema", "referencing", "rich", "typer", "colorama", "tqdm", "docutils", "sphinx", "pygments", "babel", "markdown", "mistune", "markdown-it-py", "mdurl", "bleach", "html5lib", "beautifulsoup4", "soupsieve", "cssselect", "feedparser", "flask", "werkzeug", "itsdangerous", "blinker", "django", "fastapi", "starlette", "uvicorn", "h11", "anyio", "sniffio", "trio", "outcome", "sortedcontainers", "aiohttp", "boto3", "s3transfer", "jmespath", "pyasn1", "rsa", "oauthlib", "google-auth", "cachetools", "websocket-client", "websockets", "paramiko", "pycparser", "pyjwt", "passlib", "python-jose", "sqlalchemy", "alembic", "mako", "peewee", "pymysql", "psycopg", "redis", "celery", "kombu", "vine", "billiard", "amqp", "arrow", "humanize", "dateparser", "more-itertools", "toolz", "funcy", "boltons", "decorator", "deprecated", "pluggy", "pytest", "iniconfig", "hypothesis", "mock", "freezegun", "factory-boy", "tox", "nox", "pre-commit", "identify", "nodeenv", "cfgv", "black", "isort", "flake8", "pycodestyle", "pyflakes", "mccabe", "pylint", "astroid", "autopep8", "yapf", "jedi", "parso", "prompt-toolkit", "wcwidth", "ipython", "traitlets", "jupyter-core", "jupyter-client", "nbformat", "nbconvert", "tornado", "networkx", "seaborn", "bokeh", "altair", "imageio", "tabulate", "prettytable", "texttable", "termcolor", "blessed", "urwid", "cmd2", "fire", "docopt", "argcomplete", "configargparse", "python-dotenv", "environs", "marshmallow", "cerberus", "voluptuous", "schema", "jsonpointer", "jsonpatch", "simplejson", "dill", "cloudpickle", "joblib", "fsspec", "aiofiles", "watchdog", "pathspec", "send2trash", "sh", "pexpect", "ptyprocess", "plumbum", "invoke", "fabric", "cookiecutter", "poetry-core", "hatchling", "flit-core", "pdm-backend", "build", "pyproject-hooks", "installer", "twine", "readme-renderer", "pkginfo", "keyring", "importlib-metadata", "zipp", "importlib-resources", "setuptools-scm", "semver", "natsort", "inflect", "inflection", "unidecode", "text-unidecode", "python-slugify", "emoji", "ftfy", "nltk", "huggingface-hub", "xlrd", "openpyxl", "et-xmlfile", "xlsxwriter", "python-docx", "python-pptx", "reportlab", "pypdf", "pdfminer-six", "qrcode", "validators", "email-validator", "dnspython", "geopy", "folium", "branca", "gunicorn", "waitress", "hypercorn", "quart", "sanic", "falcon", "bottle", "cherrypy", "pyramid", "webob", "tenacity", "retrying", "backoff", "schedule", "apscheduler", "croniter", "structlog", "loguru", "python-json-logger", "sentry-sdk", "prometheus-client", "opentelemetry-api", "opentelemetry-sdk", "graphql-core", "graphene", "strawberry-graphql", "ariadne", "httplib2", "mechanize", "scrapy", "parsel", "w3lib", "itemadapter", "selenium", "pyperclip", "pyserial", "paho-mqtt", "pika", "kafka-python", "elasticsearch", "docker", "smart-open", "langdetect", "textblob", "ruamel-yaml", "pyhocon", "configobj", "xmltodict", "defusedxml", "pyopenssl", "trustme", "ecdsa", "construct", "asgiref", "channels", "djangorestframework", "django-filter", "dramatiq", "rq", "huey", "mypy-extensions", "typeguard", "beartype", "pyee", "blinker", "gitpython", "smmap", "gitdb", "pexpect", "pywavelets", "sqlparse", "sqlglot", "pypika", "records", "dataset", "tinydb", "zodb", "persistent", "transaction", "cachelib", "diskcache", "pyrsistent", "multipledispatch", "wrapt", "lazy-object-proxy", "colorlog", "coloredlogs", "humanfriendly", "tabulate", "asciitree", "anytree", "treelib", "bidict", "python-multipart", "itsdangerous", "authlib", "flask-login", "flask-sqlalchemy", "flask-wtf", "wtforms", "jsonpickle", "pyfakefs"]

NPM = ["lodash", "axios", "commander", "chalk", "debug", "moment", "dayjs", "yargs", "minimist", "uuid", "async", "bluebird", "ws", "socket.io", "jsonwebtoken", "bcryptjs", "passport", "dotenv", "winston", "pino", "morgan", "joi", "yup", "ajv", "handlebars", "ejs", "pug", "marked", "markdown-it", "semver", "glob", "minimatch", "rimraf", "mkdirp", "fs-extra", "chokidar", "node-fetch", "superagent", "got", "redux", "immer", "rxjs", "underscore", "ramda", "validator", "mongoose", "sequelize", "knex", "pg", "mysql2", "ioredis", "fastify", "restify", "nodemailer"]

EXCLUDED = {"click", "httpx", "requests", "pip", "httpcore", "express", "koa"}
"""Evaluation corpora and close relatives: never downloaded, whatever the lists say."""


def pypi_packages() -> list[str]:
    seen: dict[str, None] = {}
    for name in PYPI:
        lowered = name.lower()
        if lowered in EXCLUDED or lowered.startswith(("click", "requests", "httpx")):
            continue
        seen.setdefault(lowered, None)
    return list(seen)


def npm_packages() -> list[str]:
    return [n for n in dict.fromkeys(NPM) if n not in EXCLUDED and "express" not in n and "koa" not in n]
