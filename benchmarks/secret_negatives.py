"""Text that looks like a credential and is not one: digests, ids, encoded data, public
keys, placeholders, settings whose names say secret, prose and minified code. A redactor
that changes any part of one of these files has a false positive.

`FIXTURES` are the cases between: literal throwaway values under secret names
(`password = "changeme"`) and issuers' documented example keys. They are reported apart
and count towards neither target: a redactor that masks them loses nothing, and one that
keeps them is not wrong either (see benchmarks/README.md).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
from collections.abc import Callable

from secret_formats import ALNUM, B64, FORMATS, HEX, URLSAFE, pick, uuid4

Made = tuple[str, str]


def _digest(rng: random.Random, name: str) -> str:
    return hashlib.new(name, rng.randbytes(16)).hexdigest()


def _sri(rng: random.Random, name: str) -> str:
    return f"{name}-" + base64.b64encode(hashlib.new(name, rng.randbytes(16)).digest()).decode()


LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
    "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip."
)


def _name(rng: random.Random) -> str:
    """The variable a credential of some issuer goes by (`STRIPE_SECRET_KEY`)."""
    return rng.choice(FORMATS).name


def _words(rng: random.Random, count: int) -> str:
    words = LOREM.lower().replace(",", "").replace(".", "").split()
    return " ".join(rng.choice(words) for _ in range(count))


NEGATIVES: tuple[tuple[str, Callable[[random.Random], Made]], ...] = (
    # digests
    ("md5 hex digest", lambda r: ("app/cache.py", f"EXPECTED_MD5 = \"{_digest(r, 'md5')}\"\n")),
    ("md5 hex digest", lambda r: ("checksums.txt", f"{_digest(r, 'md5')}  dist/app-1.2.0.tar.gz\n")),
    ("sha1 hex digest", lambda r: ("config/assets.json", f"{{\"app.js\": {{\"sha1\": \"{_digest(r, 'sha1')}\"}}}}\n")),
    ("sha256 hex digest", lambda r: ("Formula/tool.rb", f"class Tool < Formula\n  url \"https://example.com/tool-1.0.tgz\"\n  sha256 \"{_digest(r, 'sha256')}\"\nend\n")),
    ("sha256 hex digest", lambda r: ("requirements.txt", f"requests==2.32.3 \\\n    --hash=sha256:{_digest(r, 'sha256')}\n")),
    ("sha256 hex digest", lambda r: ("Cargo.lock", f"[[package]]\nname = \"serde\"\nversion = \"1.0.210\"\nchecksum = \"{_digest(r, 'sha256')}\"\n")),
    ("sha256 hex digest", lambda r: ("deploy/app.yaml", f"image: registry.example.com/app@sha256:{_digest(r, 'sha256')}\n")),
    ("sha512 hex digest", lambda r: ("SHA512SUMS", f"{_digest(r, 'sha512')}  app.tar.gz\n")),
    ("git commit SHA", lambda r: ("", f"Revert \"Add retries\"\n\nThis reverts commit {_digest(r, 'sha1')}.\n")),
    ("git commit SHA", lambda r: ("CHANGELOG.md", f"## 1.4.0\n\n- Fix the parser ({_digest(r, 'sha1')[:7]}, {_digest(r, 'sha1')})\n")),
    ("git commit SHA", lambda r: (".github/workflows/ci.yml", f"steps:\n  - uses: actions/checkout@{_digest(r, 'sha1')} # v4\n")),
    ("Go checksum", lambda r: ("go.sum", f"golang.org/x/text v0.14.0 h1:{base64.b64encode(r.randbytes(32)).decode()}\n")),
    ("integrity hash", lambda r: ("package-lock.json", f"{{\n  \"node_modules/left-pad\": {{\n    \"version\": \"1.3.0\",\n    \"integrity\": \"{_sri(r, 'sha512')}\"\n  }}\n}}\n")),
    ("integrity hash", lambda r: ("templates/base.html", f"<script src=\"/app.js\" integrity=\"{_sri(r, 'sha384')}\" crossorigin=\"anonymous\"></script>\n")),
    ("integrity hash", lambda r: ("yarn.lock", f"left-pad@^1.3.0:\n  version \"1.3.0\"\n  integrity {_sri(r, 'sha512')}\n")),
    # ids
    ("UUID", lambda r: ("app/models.py", f"DEFAULT_TENANT_ID = \"{uuid4(r)}\"\n")),
    ("UUID", lambda r: ("fixtures/orders.json", f"[{{\"id\": \"{uuid4(r)}\", \"total\": 12.5}}]\n")),
    ("UUID", lambda r: ("App.sln", f"Project(\"{{{uuid4(r).upper()}}}\") = \"App\", \"App\\App.csproj\", \"{{{uuid4(r).upper()}}}\"\n")),
    ("UUID", lambda r: ("", f"Handle request {uuid4(r)} twice\n\nThe retry reused the id.\n")),
    ("build and asset ids", lambda r: ("public/index.html", f"<script src=\"/static/js/main.{pick(r, 8, HEX)}.chunk.js\"></script>\n")),
    ("build and asset ids", lambda r: ("next.json", f"{{\"buildId\": \"{pick(r, 21, URLSAFE)}\", \"page\": \"/\"}}\n")),
    ("build and asset ids", lambda r: ("src/styles.css", f".css-{pick(r, 7, string.ascii_lowercase + string.digits)} {{ color: #{pick(r, 6, HEX)}; }}\n")),
    ("cloud resource ids", lambda r: ("infra/iam.tf", f"role_arn = \"arn:aws:iam::{pick(r, 12, string.digits)}:role/deploy\"\n")),
    ("cloud resource ids", lambda r: ("config/app.yaml", f"slack:\n  channel: C{pick(r, 10, string.ascii_uppercase + string.digits)}\n")),
    ("cloud resource ids", lambda r: ("config/app.yaml", f"gcp:\n  project: acme-prod-{pick(r, 6, string.digits)}\n  bucket: gs://acme-artifacts\n")),
    # encoded data
    ("base64 of non-secrets", lambda r: ("src/logo.css", f".logo {{ background: url(data:image/png;base64,{base64.b64encode(r.randbytes(90)).decode()}); }}\n")),
    ("base64 of non-secrets", lambda r: ("tests/test_codec.py", f"def test_encode():\n    assert encode(\"{_words(r, 6)}\") == \"{base64.b64encode(_words(r, 6).encode()).decode()}\"\n")),
    ("base64 of non-secrets", lambda r: ("dist/app.js.map", f"{{\"version\":3,\"mappings\":\"{','.join(pick(r, 6, 'ACEGIKMOQSUWYacegikmoqsuwy') for _ in range(12))}\"}}\n")),
    ("base64 of non-secrets", lambda r: ("deploy/k8s/configmap.yaml", f"apiVersion: v1\nkind: ConfigMap\nbinaryData:\n  banner.txt: {base64.b64encode(_words(r, 8).encode()).decode()}\n")),
    # public material
    ("public keys and certificates", lambda r: ("deploy/authorized_keys", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pick(r, 43, B64)} deploy@ci\n")),
    ("public keys and certificates", lambda r: ("docs/verify.md", "```\n-----BEGIN PUBLIC KEY-----\n" + "\n".join(pick(r, 64, B64) for _ in range(6)) + "\n-----END PUBLIC KEY-----\n```\n")),
    ("public keys and certificates", lambda r: ("certs/ca.crt.txt", "-----BEGIN CERTIFICATE-----\n" + "\n".join(pick(r, 64, B64) for _ in range(12)) + "\n-----END CERTIFICATE-----\n")),
    ("public keys and certificates", lambda r: ("app/pem.py", "PRIVATE_HEADER = \"-----BEGIN RSA PRIVATE KEY-----\"\nPRIVATE_FOOTER = \"-----END RSA PRIVATE KEY-----\"\n")),
    ("public by design", lambda r: ("src/checkout.js", f"const stripe = Stripe(\"pk_live_{pick(r, 99, ALNUM)}\");\n")),
    ("public by design", lambda r: ("src/sentry.js", f"Sentry.init({{ dsn: \"https://{pick(r, 32, HEX)}@o{pick(r, 6, string.digits)}.ingest.sentry.io/{pick(r, 7, string.digits)}\" }});\n")),
    ("public by design", lambda r: ("src/auth.js", f"const clientId = \"{pick(r, 12, string.digits)}-{pick(r, 32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com\";\n")),
    # placeholders
    ("placeholders", lambda r: ("config/app.yaml", f"database:\n  password: ${{{_name(r)}}}\n")),
    ("placeholders", lambda r: ("README.md", f"```bash\nexport {_name(r)}=<your-key>\n```\n")),
    ("placeholders", lambda r: (".env.example", f"{_name(r)}=\n{_name(r)}=changeme-in-production\n")),
    ("placeholders", lambda r: (".env.example", "STRIPE_SECRET_KEY=sk_live_" + "x" * r.randrange(24, 40) + "\nGITHUB_TOKEN=ghp_" + "x" * 36 + "\n")),
    ("placeholders", lambda r: (".github/workflows/ci.yml", "env:\n" + "".join(f"  {n}: ${{{{ secrets.{n} }}}}\n" for n in (_name(r), _name(r))))),
    ("placeholders", lambda r: ("app/settings.py", f"{(n := _name(r))} = os.environ[\"{n}\"]\n{(m := _name(r))} = os.getenv(\"{m}\")\n")),
    ("placeholders", lambda r: ("src/config.js", f"export const config = {{ key: process.env.{_name(r)} }};\n")),
    ("placeholders", lambda r: ("docs/config.md", f"Set `{_name(r).lower()}: YOUR_API_KEY_HERE` and `password: \"{'*' * r.randrange(4, 12)}\"` in the file.\n")),
    ("placeholders", lambda r: ("app/db.py", "DSN = \"postgresql://%(user)s:%(password)s@%(host)s/app\"\n")),
    ("placeholders", lambda r: ("config/app.yaml", f"token: \"{{{{ {_name(r).lower()} }}}}\"\npassword: \"<redacted>\"\n")),
    ("placeholders", lambda r: ("docs/setup.md", "Run `export OPENAI_API_KEY=sk-...` and `export ANTHROPIC_API_KEY=sk-ant-...` first.\n")),
    ("placeholders", lambda r: ("scripts/run.sh", f"#!/bin/sh\nexport {_name(r)}=\"$(cat /run/secrets/{_name(r).lower()})\"\n")),
    ("placeholders", lambda r: ("config/app.yaml", f"{_name(r).lower()}: REPLACE_ME\n{_name(r).lower()}: TODO\n")),
    ("placeholders", lambda r: ("infra/main.tf", f"{_name(r).lower()} = var.{_name(r).lower()}\n")),
    ("placeholders", lambda r: ("config/app.yaml", f"{_name(r).lower()}: !ENV ${{{_name(r)}}}\n")),
    # secret-sounding names that hold no secret
    ("settings named like secrets", lambda r: ("app/settings.py", f"PASSWORD_RESET_TIMEOUT = {r.randrange(600, 86400)}\nPASSWORD_MIN_LENGTH = 12\n")),
    ("settings named like secrets", lambda r: ("app/auth.py", "TOKEN_TYPE = \"bearer\"\nAPI_KEY_HEADER = \"X-API-Key\"\n")),
    ("settings named like secrets", lambda r: ("app/auth.py", "token_url = \"https://oauth2.googleapis.com/token\"\nauth_method = \"client_secret_post\"\n")),
    ("settings named like secrets", lambda r: ("config/app.yaml", "tls:\n  key_file: /etc/ssl/private/server.key\n  secret_name: prod/db\n")),
    ("settings named like secrets", lambda r: ("app/models.py", "class User(Model):\n    primary_key = \"id\"\n    password_hasher = \"argon2\"\n")),
    ("settings named like secrets", lambda r: ("app/views.py", "def login(request):\n    password = request.POST.get(\"password\")\n    if password == confirm_password:\n        return ok()\n")),
    ("settings named like secrets", lambda r: ("src/auth.ts", "export function check(password: string, token?: string): boolean {\n  return verify(password, token);\n}\n")),
    ("settings named like secrets", lambda r: ("app/keys.py", "sort_key = \"created_at\"\nforeign_key = \"user_id\"\nkeyboard_layout = \"qwerty\"\n")),
    ("settings named like secrets", lambda r: ("src/i18n.json", "{\"password_label\": \"Password\", \"token_expired\": \"Your session token expired\"}\n")),
    ("settings named like secrets", lambda r: ("app/getpass.py", "import getpass\n\npassword = getpass.getpass(\"Password: \")\n")),
    # prose and code
    ("prose", lambda r: ("docs/index.md", f"# About\n\n{LOREM}\n\n{_words(r, 30)}.\n")),
    ("prose", lambda r: ("docs/security.md", "The password must be at least twelve characters. The token expires after an hour; rotate the key yearly.\n")),
    ("prose", lambda r: ("", f"Rotate the signing key\n\nThe old key expires next week; {_words(r, 12)}.\n")),
    ("minified code", lambda r: ("dist/app.min.js", f"!function(e,t){{var n=t.getAuthorizationHeaderValue(e),{pick(r, 2, string.ascii_lowercase)}=n.split(\".\");return {pick(r, 1, string.ascii_lowercase)}[0]}}(window,document);\n")),
    ("minified code", lambda r: ("src/names.ts", f"export const {''.join(w.capitalize() for w in _words(r, 6).split())}Provider = createProvider();\n")),
    ("minified code", lambda r: ("src/icons.js", f"export const path = \"M{r.randrange(1, 99)}.5 {r.randrange(1, 99)}.2c-1.1 0-2 .9-2 2v{r.randrange(1, 20)}h{r.randrange(1, 20)}V{r.randrange(1, 20)}z\";\n")),
    ("other identifiers", lambda r: ("pyproject.toml", f"[project]\nname = \"tool\"\nversion = \"{r.randrange(0, 9)}.{r.randrange(0, 30)}.{r.randrange(0, 9)}\"\n")),
    ("other identifiers", lambda r: ("config/hosts.yaml", f"primary: 10.{r.randrange(0, 255)}.{r.randrange(0, 255)}.{r.randrange(1, 254)}\nurl: postgres://localhost/app\nmongo: mongodb://db:27017\n")),
    ("other identifiers", lambda r: ("docs/clone.md", "Clone with `git clone https://git@github.com/acme/app.git`.\n")),
)


FIXTURES: tuple[tuple[str, Callable[[random.Random], Made]], ...] = (
    ("throwaway password", lambda r: ("tests/test_login.py", "def test_login(client):\n    assert client.login(\"admin\", password=\"changeme\")\n")),
    ("throwaway password", lambda r: ("docker-compose.yml", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: postgres\n")),
    ("throwaway password", lambda r: ("tests/conftest.py", "PASSWORD = \"password\"\nSECRET = \"test\"\n")),
    ("throwaway password", lambda r: ("docs/dev.md", "Log in as `admin` with `password: admin123` on the local stack.\n")),
    ("documented example key", lambda r: ("docs/aws.md", "```ini\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n```\n")),
    ("test-mode key", lambda r: ("tests/test_billing.py", f"STRIPE_KEY = \"sk_test_{pick(r, 24, ALNUM)}\"\n")),
)
