"""Secrets never reach the store, the site or an LLM request (redact.py).

The secret values are made up when the tests run, in the shapes the detectors know, so
this repository holds no key that looks live (and trips no scanner).
"""

from __future__ import annotations

import json
import os
import shutil
import string
import subprocess
from pathlib import Path

import pytest
from fake_secrets import (
    ALNUM,
    URLSAFE,
    aws_key_id,
    github_token,
    jwt,
    modern_tokens,
    private_key_block,
    putty_key,
    slack_token,
    stripe_key,
    token,
)
from helpers import dedent, write_repo
from openai_server import TEST_KEY, OpenAIServer

from refdoc_site.cli import main
from refdoc_site.core.config import Config, SecretsConfig
from refdoc_site.core.records import SkipReason
from refdoc_site.core.reading import read_text
from refdoc_site.core.redact import MARKER, RedactionTooSlow, Redactor, secret_file_rule
from refdoc_site.core.store import Store
from refdoc_site.indexing.discover import discover
from refdoc_site.understanding.evidence.commits import bounded, commit_decisions


def redact(text: str, path: str = "notes.txt", redactor: Redactor | None = None):
    return (redactor or Redactor()).redact(dedent(text), path)


# --- detectors, family by family ------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "line"),
    [
        (aws_key_id, 'AWS_ACCESS_KEY_ID = "{}"'),
        (lambda: token(40, ALNUM + "/+"), 'aws_secret_access_key = "{}"'),
        (github_token, "clone with {} as the password"),
        (slack_token, "SLACK = '{}'"),
        (stripe_key, "stripe.api_key = '{}'"),
        (jwt, "curl -H 'X-Session: {}' https://api.example.com"),
    ],
    ids=["aws-key-id", "aws-secret", "github", "slack", "stripe", "jwt"],
)
def test_each_detector_family_redacts_its_secret_and_keeps_the_rest_of_the_line(make, line: str) -> None:
    secret = make()
    result = redact(line.format(secret), "settings.py")
    assert secret not in result.text
    assert result.text == line.format(MARKER)
    assert result.secrets == 1


def test_a_private_key_block_goes_whole_and_the_line_count_stays() -> None:
    block, lines = private_key_block()
    text = f"KEY = '''\n{block}'''\nafter = 1\n"
    result = Redactor().redact(text, "keys.py")
    assert not any(line in result.text for line in lines)
    assert result.text.count("\n") == text.count("\n")
    assert "-----BEGIN RSA PRIVATE KEY-----\n" + MARKER + "\n" in result.text
    assert result.text.endswith("-----END RSA PRIVATE KEY-----\n'''\nafter = 1\n")
    assert result.secrets == 1


def test_a_key_block_on_one_line_with_escaped_newlines_goes_too() -> None:
    block, lines = private_key_block()
    escaped = json.dumps({"type": "service_account", "private_key": block})
    result = Redactor().redact(escaped, "account.json")
    assert not any(line in result.text for line in lines)
    assert result.secrets == 1


def test_a_private_key_header_alone_is_code_and_stays() -> None:
    text = 'PEM_HEADER = "-----BEGIN RSA PRIVATE KEY-----"\nrest = parse(PEM_HEADER)\n'
    result = Redactor().redact(text, "pem.py")
    assert (result.text, result.secrets) == (text, 0)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("app.py", 'password = "{}"'),
        ("app.py", 'connect(host="db", password="{}")'),
        ("app.py", 'db_password: str = "{}"'),
        ("app.ts", "const dbPassword = '{}';"),
        ("config.yml", "password: {}"),
        ("config.yml", 'password: "{}"'),
        ("settings.json", '{{"user": "shop", "password": "{}"}}'),
        ("setup.cfg", "password = {}"),
        ("deploy.sh", "export DB_PASSWORD={}"),
        ("README.md", "Log in with `password: {}` the first time."),
    ],
)
def test_password_assignments_in_many_syntaxes_are_redacted(path: str, line: str) -> None:
    for secret in ("Pw" + token(10), "PwdQpDlB4Vll"):  # the second reads like a `pwd…` name, but mixes every class: a value
        result = redact(line.format(secret), path)
        assert result.text == line.format(MARKER), secret
        assert result.secrets == 1


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("app.py", 'SECRET_TOKEN = "{}"'),
        ("config.yml", "api_key: {}"),
        (".env.example", "STRIPE_SECRET_KEY={}"),
        ("client.js", "const headers = {{ 'x-api-key': '{}' }};"),
    ],
)
def test_high_entropy_values_of_secret_names_are_redacted(path: str, line: str) -> None:
    secret = token(32)
    result = redact(line.format(secret), path)
    assert result.text == line.format(MARKER)


def test_an_authorization_header_keeps_its_scheme() -> None:
    secret = token(40)
    for text, expected in (
        (f'headers = {{"Authorization": "Bearer {secret}"}}', f'headers = {{"Authorization": "Bearer {MARKER}"}}'),
        (f"Authorization: Basic {secret}", f"Authorization: Basic {MARKER}"),
    ):
        assert redact(text, "client.py" if text.startswith("headers") else "api.md").text == expected


def test_a_url_keeps_its_user_and_host_and_loses_its_password() -> None:
    password = "p" + token(12)
    result = redact(f'DATABASE_URL = "postgres://admin:{password}@db.internal:5432/shop"', "settings.py")
    assert result.text == f'DATABASE_URL = "postgres://admin:{MARKER}@db.internal:5432/shop"'


@pytest.mark.parametrize(
    "text",
    [
        "password = input()",
        "password = getpass.getpass('Password: ')",
        "token = tokens[i]",
        'key = "name"',
        'password_field = "password"',
        'TOKEN_TYPE = "bearer"',
        'password = ""',
        'api_key = os.environ["API_KEY"]',
        'secret = "${SECRET_FROM_VAULT}"',
        "PASSWORD_RESET_TIMEOUT = 259200",
        'sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
        "if not token: raise ValueError('missing token: pass one')",
        "password1_field_name='password1',",
    ],
)
def test_ordinary_code_is_not_redacted(text: str) -> None:
    assert redact(text, "app.py").text == text


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("README.md", "The password: type it twice, then press Enter."),
        ("style.css", "input[type=password]:focus, input[type=text]:focus { outline: none }"),
        ("poetry.lock", 'files = [{file = "pkg.whl", hash = "sha256:9f2c5a0f1a5e1b7d3c4e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c"}]'),
    ],
)
def test_prose_styles_and_lock_hashes_are_not_redacted(path: str, text: str) -> None:
    """A hash in a lock file is a public checksum of a package, not a credential."""
    assert redact(text, path).text == text


def test_allow_values_and_patterns_keep_fixtures_and_extra_patterns_redact_more() -> None:
    example, fixture, internal = aws_key_id(), "AKIA" + "TESTFIXTURE00000", "corp_" + token(20, string.hexdigits.lower())
    text = f'A = "{example}"\nB = "{fixture}"\nC = "{internal}"\n'
    redactor = Redactor(allow=(example,), allow_patterns=(r"AKIATEST\w+",), patterns=(r"\bcorp_[0-9a-f]{20}\b",))
    result = redactor.redact(text, "fixtures.py")
    assert result.text == f'A = "{example}"\nB = "{fixture}"\nC = "{MARKER}"\n'
    assert result.secrets == 1
    grouped = Redactor(patterns=(r"ticket=(\w+)",)).redact("see ticket=abc123 now", "notes.md")
    assert grouped.text == f"see ticket={MARKER} now"


def test_settings_change_the_redactor_identity() -> None:
    """The index fingerprint includes it, so changing `secrets:` reindexes every file."""
    assert Redactor().identity == Redactor.from_config(Config()).identity
    allowing = Config(secrets=SecretsConfig(allow=("x",)))
    assert Redactor.from_config(allowing).identity != Redactor().identity


# --- files that are secrets by name ---------------------------------------------------------


@pytest.mark.parametrize(
    "name", [".env", ".env.production", "id_rsa", "id_ed25519", "server.pem", "tls.key", "store.p12", ".netrc",
             ".npmrc", "credentials", "secrets.yaml", "service-account-prod.json", "Vault.KDBX",
             "prod.tfvars", "prod.tfvars.json", ".envrc", "kubeconfig", "auth.json", ".vault-token",
             "credentials.tfrc.json", ".terraformrc", "deploy.ppk"]
)
def test_secret_file_names_are_recognised(name: str) -> None:
    assert secret_file_rule(name) is not None


@pytest.mark.parametrize("name", [".env.example", "id_rsa.pub", "settings.py", "keys.py", "credentials.md", "monkey.txt"])
def test_other_file_names_are_not(name: str) -> None:
    assert secret_file_rule(name) is None


def test_secret_named_files_are_skipped_unread_even_when_included(tmp_path: Path, monkeypatch) -> None:
    block, _ = private_key_block()
    repo = write_repo(tmp_path, {".env": "TOKEN=x\n", "id_rsa": block, "certs/site.pem": block, "app.py": "x = 1\n",
                                 ".env.example": "TOKEN=\n"})
    opened = []
    original = os.open
    monkeypatch.setattr(os, "open", lambda path, *args, **kw: opened.append(Path(path).name) or original(path, *args, **kw))
    config = Config(include=(".env", "id_rsa", "certs/*.pem", "app.py", ".env.example"))
    found = discover(repo, config)
    assert sorted(opened) == [".env.example", "app.py"]
    skipped = {s.path: s for s in found.skipped}
    assert [f.path for f in found.files] == [".env.example", "app.py"]
    assert {path: s.reason for path, s in skipped.items()} == {
        ".env": SkipReason.SECRET, "certs/site.pem": SkipReason.SECRET, "id_rsa": SkipReason.SECRET
    }
    assert skipped["id_rsa"].detail == "named like a secret (id_rsa*)"


# --- a whole build --------------------------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
                   check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_no_secret_reaches_the_site_the_store_or_the_llm(server: OpenAIServer, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    block, key_lines = private_key_block()
    aws, stripe, password = aws_key_id(), stripe_key(), "Pw" + token(12)
    github, url_password, slack, in_commit = github_token(), "u" + token(12), slack_token(), github_token()
    env_token = token(32)
    repo = write_repo(
        tmp_path / "repo",
        {
            "shop/payments.py": f'''
                """Payments through the card processor."""

                AWS_ACCESS_KEY_ID = "{aws}"
                STRIPE_KEY = "{stripe}"


                def connect(host: str) -> str:
                    """Open a session with the processor."""
                    password = "{password}"
                    return login(host, password)
            ''',
            "docs/guide.md": f"""
                # Deploying

                Push with the token {github}, to the database at
                `postgres://deploy:{url_password}@db.internal/shop`.
            """,
            "docs/adr/0001-use-slack.md": f"""
                # 1. Use Slack for alerts

                ## Status

                Accepted

                ## Context

                Alerts went unread; the bot posts with {slack}.

                ## Decision

                Use Slack for alerts.
            """,
            ".env": f"SESSION_TOKEN={env_token}\n",
            "id_rsa": block,
            "refdoc.yml": 'include: ["shop/**", "docs/**", ".env", "id_rsa"]\n',
        },
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"Switch to token auth instead of passwords\n\nThe deploy token is {in_commit}.")
    site = tmp_path / "site"

    assert main(["build", str(repo), "--out", str(site)]) == 0
    out = capsys.readouterr().out
    assert "6 secrets redacted in 3 files; see refdoc-site stats" in out
    assert server.chat_requests(), "the build asked the LLM nothing: the test would prove nothing"

    secrets = [aws, stripe, password, github, url_password, slack, in_commit, env_token, *key_lines]
    written = [p for folder in (site, repo / ".refdoc") for p in folder.rglob("*") if p.is_file()]
    assert any(p.name == "chunks.json" for p in written) and any(p.name == "index.jsonl" for p in written)
    leaks = [(p, s) for p in written for s in secrets if s.encode() in p.read_bytes()]
    assert leaks == []
    requests = json.dumps([r.body for r in server.requests], ensure_ascii=False)
    assert [s for s in secrets if s in requests] == []
    assert MARKER in requests  # the code was sent, redacted

    files = Store(repo / ".refdoc").load().files
    assert {path: e.secrets_redacted for path, e in files.items() if e.secrets_redacted} == {
        "shop/payments.py": 3, "docs/guide.md": 2, "docs/adr/0001-use-slack.md": 1
    }
    overview = (repo / ".refdoc" / "mkdocs" / "docs" / "index.md").read_text(encoding="utf-8")
    assert "secret: 2" in overview
    assert "- **Secrets redacted:** 6 in 3 files" in overview
    [commit] = [d for d in Store(repo / ".refdoc").read_json("decisions.json") if d["kind"] == "commit"]
    assert commit["title"].startswith("Switch to token auth") and MARKER in commit["context"]

    assert main(["stats", str(repo)]) == 0
    stats = capsys.readouterr().out
    assert "secret 2" in stats.split("files skipped: ")[1].splitlines()[0]
    assert "6 secrets redacted in 3 files:\n  docs/adr/0001-use-slack.md  1  (" in stats
    assert "\n  docs/guide.md  2  (" in stats and "\n  shop/payments.py  3  (" in stats
    assert "(aws-access-token, secret-named-assignment, stripe-access-token)" in stats  # the rules, never a value


def test_without_publish_source_pages_and_search_data_carry_no_code(tmp_path: Path, capsys) -> None:
    repo = write_repo(
        tmp_path / "repo",
        {
            "shop/cart.py": '''
                def add_item(cart, item):
                    """Put an item in the cart."""
                    unusual_local_name = item.price * 2
                    return cart.append(unusual_local_name)
            ''',
            "refdoc.yml": "publish_source: false\n",
        },
    )
    assert main(["build", str(repo), "--out", str(tmp_path / "site")]) == 0
    docs = repo / ".refdoc" / "mkdocs" / "docs"
    page = (docs / "files" / "shop" / "cart.py.md").read_text(encoding="utf-8")
    assert "def add\\_item(cart, item)" in page or "def add_item(cart, item)" in page  # the signature stays
    assert "Source, lines" not in page and "unusual_local_name" not in page
    for data in (tmp_path / "site" / "search" / "refdoc").glob("*.json"):
        assert "unusual" not in data.read_text(encoding="utf-8"), data
    index = json.loads((tmp_path / "site" / "search" / "refdoc" / "index.json").read_text(encoding="utf-8"))
    assert "body" not in index["fields"] and "name" in index["fields"]

    (repo / "refdoc.yml").write_text("publish_source: true\n", encoding="utf-8")
    assert main(["build", str(repo), "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    assert "unusual_local_name" in (docs / "files" / "shop" / "cart.py.md").read_text(encoding="utf-8")


# --- round two: the forms a red team found missing (findings 2, 3) --------------------------


@pytest.mark.parametrize("provider", sorted(modern_tokens()))
def test_modern_prefixed_tokens_go_anywhere_not_only_after_a_secret_name(provider: str) -> None:
    secret = modern_tokens()[provider]
    for path, line in (("client.py", 'client = Github("{}")'), ("app.js", "new Octokit({{ auth: '{}' }});"),
                       ("README.md", "Run it with {} in the header.")):
        result = redact(line.format(secret), path)
        assert result.text == line.format(MARKER), (provider, path)
        assert result.secrets == 1 and sum(result.rules.values()) == 1


PASSWORD = "Pw" + token(12)
TOKEN = token(32)


@pytest.mark.parametrize(
    ("path", "line", "secret"),
    [
        # values that are not directly after a secret name
        ("app.py", 'key = os.getenv("OPENAI_API_KEY", "{}")', TOKEN),
        ("app.py", 'os.environ.setdefault("STRIPE_API_KEY", "{}")', TOKEN),
        ("app.rb", 'token = ENV.fetch("API_TOKEN", "{}")', TOKEN),
        # connection strings and URLs inside code strings
        ("Db.cs", 'var conn = "Server=db;User Id=app;Password={};Database=shop";', PASSWORD),
        ("db.py", 'dsn = "host=db user=app password={} dbname=shop"', PASSWORD),
        ("api.py", 'url = f"https://api.example.com/v1/items?api_key={}&page=2"', TOKEN),
        # name words
        ("settings.py", 'DB_PASS = "{}"', PASSWORD),
        ("config.yml", "db.pass: {}", PASSWORD),
        ("settings.py", 'db_pw = "{}"', PASSWORD),
        ("deploy.sh", "export PGPASSWORD={}", PASSWORD),
        ("settings.py", 'MYSQL_PWD = "{}"', "shop2024"),
        ("settings.py", 'passw = "{}"', PASSWORD),
        ("settings.py", 'pass_phrase = "{}"', PASSWORD),
        # literal forms
        ("app.py", 'password = b"{}"', PASSWORD),
        ("app.py", 'password = r"{}"', PASSWORD),
        ("app.py", 'password = f"{}"', PASSWORD),
        ("app.py", 'password = """{}"""', PASSWORD),
        ("app.py", 'password = ("{}")', PASSWORD),
        ("app.py", 'password = (\n    "{}"\n)', PASSWORD),
        ("app.rb", "password = %q({})", PASSWORD),
        ("app.py", "password = '{}'", "hun\\'" + PASSWORD),
        # shell, Docker, INI
        ("Dockerfile", "ENV DATABASE_PASSWORD {}", PASSWORD),
        ("deploy.sh", "curl -u {} https://api.example.com/upload", "admin:" + PASSWORD),
        ("README.md", "Try `curl --user {} https://api.example.com`.", "admin:" + PASSWORD),
        ("backup.sh", "mysqldump -u root -p{} shop > shop.sql", PASSWORD),
        ("settings.ini", "[db]\npass = {}", PASSWORD),
        # Bearer tokens built in code
        ("client.py", 'headers = {{"Authorization": f"Bearer {}"}}', TOKEN),
        ("client.js", 'const auth = "Bearer " + "{}";', TOKEN),
        # positional arguments and (user, password) pairs
        ("app.py", 'client.login("admin", "{}")', PASSWORD),
        ("mail.py", 'smtp.login(user, "{}")', PASSWORD),
        ("app.py", 'user.set_password("{}")', PASSWORD),
        ("app.py", 'requests.get(url, auth=("svc", "{}"))', PASSWORD),
        ("main.go", 'req.SetBasicAuth(user, "{}")', PASSWORD),
        ("Auth.java", 'return new PasswordAuthentication("mail", "{}".toCharArray());', PASSWORD),
        ("Client.cs", 'var cred = new NetworkCredential("svc", "{}");', PASSWORD),
        # signing keys written as literals, in the conversions languages wrap them in
        ("sign.py", 'digest = hmac.new(b"{}", body, "sha256")', TOKEN),
        ("sign.go", "mac := hmac.New(sha256.New, []byte(\"{}\"))", TOKEN),
        ("sign.js", 'crypto.createHmac("sha256", "{}")', TOKEN),
        ("token.js", 'jwt.sign(payload, "{}", {{ expiresIn: "1h" }})', TOKEN),
        ("main.go", 'jwtKey := []byte("{}")', TOKEN),
        ("settings.py", 'SECRET_KEY = SecretStr("{}")', TOKEN),
    ],
)
def test_each_form_of_finding_2_is_redacted(path: str, line: str, secret: str) -> None:
    text = line.format(secret)
    result = redact(text, path)
    assert result.text == line.format(MARKER), result.rules
    assert result.secrets == 1


def test_a_kubernetes_secret_loses_its_data_and_string_data_whatever_the_keys_are_called() -> None:
    encoded, plain = "U2h" + token(30), "Pw" + token(14)
    text = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: shop\ntype: Opaque\ndata:\n  DB_PASS: {encoded}\n"
            f"  config: {encoded[::-1]}\nstringData:\n  db.pass: \"{plain}\"\n")
    result = Redactor().redact(text, "k8s/secret.yaml")
    assert not any(value in result.text for value in (encoded, encoded[::-1], plain))
    assert "name: shop" in result.text and "  config: " + MARKER in result.text
    assert result.rules.get("kubernetes-secret", 0) >= 2


def test_a_kubernetes_secret_written_as_json_loses_its_data_whatever_the_keys_are_called() -> None:
    encoded, plain = "U2h" + token(30), "Pw" + token(14)
    text = ('{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "shop"},\n'
            f' "data": {{"config": "{encoded}", "DB_PASS": "{encoded[::-1]}"}},\n "stringData": {{"db.pass": "{plain}"}}}}\n')
    result = Redactor().redact(text, "k8s/secret.json")
    assert not any(value in result.text for value in (encoded, encoded[::-1], plain))
    assert '"name": "shop"' in result.text and result.rules.get("kubernetes-secret", 0) >= 2


def test_a_discord_bot_token_goes_anywhere() -> None:
    secret = "MTA4NzY1NDMyMTA5ODc2NTQzMg." + token(6, URLSAFE) + "." + token(38, URLSAFE)
    result = Redactor().redact(f'client.run("{secret}")\n', "bot.py")
    assert secret not in result.text and result.rules == {"discord-bot-token": 1}


def test_a_putty_keys_private_lines_and_mac_go_and_its_public_lines_stay() -> None:
    text, private = putty_key()
    result = Redactor().redact(text, "keys/notes.txt")
    assert not any(part in result.text for part in private)
    assert "Public-Lines: 2" in result.text and result.text.count("\n") == text.count("\n")


@pytest.mark.parametrize(
    "text",
    [
        'sha256 = "9f2c5a0f1a5e1b7d3c4e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c"',
        'commit = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"',
        'cache_key = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"',
        'request_id = "123e4567-e89b-12d3-a456-426614174000"',
        '"integrity": "sha512-Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8="',
        'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"',
        'api_key = "your-api-key-here"',
        'fields = ("username", "password", "email")',
        "@sensitive_post_parameters('password', 'credit_card')",
        'self.validate_passwords("new_password1", "new_password2")',
        'AUTH_USER_MODEL = "auth.User"',
        '"password": "string",',
        'pass_rate = "0.95"',
        "Lorem ipsum dolor sit amet: pass the key and the token to the secret keeper.",
        "_TOKEN_REF = r'[A-Z]\\w*'",
        'publicKeyToken="1fc8b3b9a1e18e3b"',
        '"--password-store=basic",',
        'headers = {"Authorization": f"Bearer {token}"}',
        'key = os.getenv("API_KEY", "")',
        'dsn = f"host={host} password={password}"',
        'client.login("admin", password)',
        'return redirect_to_login(request, "/accounts/login/")',
        'self.client.login(username="admin", password=PASSWORD_VAR)',
        'client.login("user", "password")',
        'jwt.decode(token, "secret", algorithms=["HS256"])',
        'auth = ("admin", settings.PASSWORD)',
        'key = Buffer.from(raw, "base64")',
        'version = "v1.2.3.0123456789abcdefghijklmnopqrstuvwxyz"',
    ],
)
def test_hashes_uuids_shas_fixtures_and_words_are_not_redacted(text: str) -> None:
    assert redact(text, "app.py").text == text


def test_stats_name_the_rules_that_fired_and_never_a_value() -> None:
    tokens = modern_tokens()
    text = f'A = "{tokens["npm"]}"\npassword = "{PASSWORD}"\nB = "{tokens["github-fine-grained"]}"\n'
    result = Redactor().redact(text, "settings.py")
    assert result.rules == {"github-fine-grained-pat": 1, "npm-access-token": 1, "secret-named-assignment": 1}
    assert not any(secret in repr(result.rules) for secret in (PASSWORD, tokens["npm"]))


def test_hostile_texts_cost_linear_time_and_a_text_over_its_budget_is_not_read(tmp_path: Path) -> None:
    """Each of these took seconds to minutes with backtracking rules (an 80 KB line took
    51 s, 8,000 BEGIN lines 23 s); here each stays within the default budget (the seconds
    per megabyte are `benchmarks/redos.py`'s). The budget itself: a
    redactor with none left refuses the text rather than return it unredacted."""
    hostile = [
        '"password"' * 10_000,
        "password = " * 10_000,
        "-----BEGIN PRIVATE KEY-----\n" * 8_000,
        "a" * 100_000 + "password=",
        "github_pat_" * 10_000,
        "npm_" * 20_000 + "sk-proj-" * 10_000,
        "://" * 30_000 + "a:b",
        "'a; api_key=ab1 " * 8_000,
    ]
    redactor = Redactor()
    for text in hostile:
        redactor.redact(text, "notes.md")  # raises RedactionTooSlow past 20 s
    with pytest.raises(RedactionTooSlow):
        Redactor(budget_seconds=-1).redact("password = 'x'", "a.py")
    repo = write_repo(tmp_path, {"a.py": "x = 1\n"})
    with pytest.raises(OSError):  # every reader skips and counts an OSError
        read_text(repo, "a.py", Redactor(budget_seconds=-1))


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_commit_messages_are_redacted_and_bounded(tmp_path: Path) -> None:
    secret = modern_tokens()["github-fine-grained"]
    repo = write_repo(tmp_path, {"app.py": "x = 1\n"})
    git(repo, "init", "-q")
    git(repo, "add", ".")
    message = tmp_path / "message.txt"
    message.write_text(f"Switch to the vault client instead of env files\x1b]0;PWNED\x07\u202e\n\nDeploys now read {secret} from the vault.\n\n"
                       + "filler words " * 100_000, encoding="utf-8")
    git(repo, "commit", "-q", "-F", str(message))
    decisions = commit_decisions(repo)
    assert len(decisions) == 1
    text = " ".join([decisions[0].title, decisions[0].context, decisions[0].decision, *(e.label for e in decisions[0].evidence)])
    assert secret not in text and MARKER in text
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "PWNED" in text  # shown, harmless
    assert len(text) < 40_000
    assert bounded("word " * 10_000, 1_000).endswith("word") and len(bounded("x" * 5_000, 1_000)) == 0


def test_a_file_over_the_redaction_budget_is_skipped_counted_and_never_stored(tmp_path: Path, capsys, monkeypatch) -> None:
    secret = modern_tokens()["npm"]
    hostile = f'TOKEN = "{secret}"\n' + "api_key=ab1\n" * 50_000  # about 1.5 s of CPU here
    repo = write_repo(tmp_path, {"app.py": "def f():\n    return 1\n", "slow.txt": hostile})
    monkeypatch.setattr("refdoc_site.core.redact.BUDGET_SECONDS", 0.2)
    assert main(["index", str(repo)]) == 0
    out = capsys.readouterr()
    assert "slow.txt: RedactionTooSlow" in out.out + out.err and "not read" in out.out + out.err
    store = repo / ".refdoc"
    assert not any(secret.encode() in path.read_bytes() for path in store.rglob("*") if path.is_file())
