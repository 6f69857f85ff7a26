"""Credentials that are more than one token: private key blocks, service-account files,
connection strings, URLs with a password, passwords under the many names they go by,
Kubernetes `Secret`s. Each maker returns `(path, text, values, region)`: `values` are the
pieces that must be gone from the redacted text, `region` the part of the text the
credential takes (for detectors that answer with a line number).
"""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
from collections.abc import Callable

from secret_formats import ALNUM, B64, HEX, pick

Made = tuple[str, str, tuple[str, ...], str]
WORDS = "river autumn copper violet falcon harbor meadow quartz saddle timber velvet winter".split()


def password(rng: random.Random) -> str:
    """A password as people choose them, and as generators make them."""
    if rng.random() < 0.5:
        return rng.choice(WORDS).capitalize() + pick(rng, 4, string.digits) + rng.choice("!#%&*-_.") + rng.choice(WORDS)
    return pick(rng, rng.randrange(14, 24), ALNUM + "!#%*-_.")


def _base64_lines(rng: random.Random, count: int, head: str, width: int = 64) -> list[str]:
    text = head + pick(rng, width * count - len(head) - 4, B64) + "AB=="
    return [text[start : start + width] for start in range(0, len(text), width)]


KEY_KINDS = {
    "RSA": ("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", 64, 25),
    "EC": ("EC PRIVATE KEY", "MHcCAQEEI", 64, 3),
    "PKCS8": ("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 64, 25),
    "PKCS8 encrypted": ("ENCRYPTED PRIVATE KEY", "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQI", 64, 27),
    "DSA": ("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 64, 7),
    "OpenSSH": ("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB", 70, 7),
}


def pem_block(rng: random.Random, kind: str, newline: str = "\n") -> tuple[str, tuple[str, ...]]:
    label, head, width, count = KEY_KINDS[kind]
    lines = _base64_lines(rng, count, head, width)
    return newline.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"]), tuple(lines)


def pgp_block(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    lines = _base64_lines(rng, 20, "lQVYBGX", 64)
    checksum = "=" + pick(rng, 4, B64)
    block = "\n".join(["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", *lines, checksum, "-----END PGP PRIVATE KEY BLOCK-----"])
    return block, tuple(lines)


def putty_key(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    public = _base64_lines(rng, 2, "AAAAC3NzaC1lZDI1NTE5AAAAI", 64)
    private = _base64_lines(rng, 1, "AAAAIH", 64)
    block = "\n".join([
        "PuTTY-User-Key-File-3: ssh-ed25519", "Encryption: none", "Comment: deploy@ci",
        f"Public-Lines: {len(public)}", *public, f"Private-Lines: {len(private)}", *private,
        "Private-MAC: " + pick(rng, 64, HEX),
    ])
    return block, tuple(private)


def _key_in(path: str, rng: random.Random, kind: str, frame: str) -> Made:
    if kind == "PGP":
        block, lines = pgp_block(rng)
    elif kind == "PuTTY":
        block, lines = putty_key(rng)
    else:
        block, lines = pem_block(rng, kind, "\r\n" if frame == "crlf" else "\n")
    if frame == "python":
        text = f"TEST_KEY = \"\"\"\\\n{block}\n\"\"\"\n"
    elif frame == "yaml":
        text = "tls:\n  key: |\n" + textwrap.indent(block, "    ") + "\n"
    elif frame == "escaped":
        escaped = block.replace("\n", "\\n")
        text = f"{{\"name\": \"deploy\", \"sshKey\": \"{escaped}\\n\"}}\n"
    elif frame == "js":
        text = "const key =\n" + " +\n".join(f"  \"{line}\\n\"" for line in block.split("\n")) + ";\nmodule.exports = key;\n"
    elif frame == "markdown":
        text = f"# Deploy key\n\n```\n{block}\n```\n"
    else:
        text = block + ("\r\n" if frame == "crlf" else "\n")
    return path, text, lines, block if block in text else block.split("\n")[0]


def private_keys() -> list[tuple[str, Callable[[random.Random], Made]]]:
    frames = {"bare": "deploy/ci_key.txt", "crlf": "deploy/ci_key.txt", "python": "tests/keys.py", "yaml": "deploy/values.yaml",
              "escaped": "deploy/settings.json", "js": "test/fixtures/key.js", "markdown": "docs/keys.md"}
    made = []
    for kind in (*KEY_KINDS, "PGP", "PuTTY"):
        for frame, path in frames.items():
            if kind in ("PGP", "PuTTY") and frame in ("escaped", "js", "crlf"):
                continue
            made.append((f"Private key ({kind})", lambda rng, p=path, k=kind, f=frame: _key_in(p, rng, k, f)))
    return made


def gcp_service_account(rng: random.Random) -> Made:
    block, lines = pem_block(rng, "PKCS8")
    key_id = pick(rng, 40, HEX)
    account = {
        "type": "service_account", "project_id": "acme-prod", "private_key_id": key_id,
        "private_key": block + "\n", "client_email": "deployer@acme-prod.iam.gserviceaccount.com",
        "client_id": pick(rng, 21, string.digits), "token_uri": "https://oauth2.googleapis.com/token",
    }
    text = json.dumps(account, indent=2) + "\n"
    return "deploy/gcp-deployer.json", text, lines, json.dumps(block + "\n")[1:-1]


def azure_storage(rng: random.Random, path: str, frame: str) -> Made:
    key = base64.b64encode(rng.randbytes(64)).decode()
    connection = f"DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={key};EndpointSuffix=core.windows.net"
    text = frame.format(connection)
    return path, text, (key,), key


def azure_service_bus(rng: random.Random, path: str, frame: str) -> Made:
    key = base64.b64encode(rng.randbytes(32)).decode()
    connection = f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={key}"
    return path, frame.format(connection), (key,), key


CONNECTION_FRAMES = (
    ("appsettings.json", "{{\n  \"ConnectionStrings\": {{\n    \"Default\": \"{}\"\n  }}\n}}\n"),
    ("app/storage.py", "from azure.storage.blob import BlobServiceClient\n\nclient = BlobServiceClient.from_connection_string(\"{}\")\n"),
    ("docs/setup.md", "# Local setup\n\nConnect with `{}` and start the worker.\n"),
)


def _url_user(rng: random.Random) -> str:
    return rng.choice(["deploy", "ci", "app", "admin", "svc_build"])


def basic_auth_url(rng: random.Random, frame: str, path: str) -> Made:
    secret = password(rng).replace("%", "").replace("#", "")
    url = f"https://{_url_user(rng)}:{secret}@git.example.com/acme/infra.git"
    return path, frame.format(url), (secret,), url


URL_FRAMES = (
    ("scripts/mirror.sh", "#!/bin/sh\ngit clone {} /tmp/infra\n"),
    ("requirements.txt", "--extra-index-url {}\nrequests==2.32.3\n"),
    ("app/sync.py", "import subprocess\n\nsubprocess.run([\"git\", \"push\", \"{}\", \"main\"], check=True)\n"),
    ("docs/mirror.md", "Mirror the repository to {} every night.\n"),
    ("", "Point the mirror at {}\n"),
)


DSNS = (
    "postgres://app:{p}@db.internal:5432/app",
    "postgresql+psycopg://app:{p}@db.internal/app?sslmode=require",
    "mysql://root:{p}@127.0.0.1:3306/shop",
    "mongodb+srv://reader:{p}@cluster0.abcde.mongodb.net/test?retryWrites=true",
    "redis://:{p}@cache.internal:6379/0",
    "amqp://guest2:{p}@rabbit.internal:5672/",
    "Server=tcp:db.internal,1433;Database=app;User Id=sa;Password={p};Encrypt=true;",
    "host=db.internal port=5432 dbname=app user=app password={p} sslmode=require",
    "jdbc:postgresql://db.internal:5432/app?user=app&password={p}",
    "jdbc:sqlserver://db.internal;databaseName=app;user=sa;password={p}",
)
DSN_FRAMES = (
    ("app/db.py", "import sqlalchemy\n\nengine = sqlalchemy.create_engine(\"{}\")\n"),
    ("src/db.ts", "import {{ Pool }} from \"pg\";\n\nexport const pool = new Pool({{ connectionString: \"{}\" }});\n"),
    ("config/database.yml", "production:\n  url: \"{}\"\n  pool: 5\n"),
    ("docker-compose.yml", "services:\n  app:\n    environment:\n      - DATABASE_URL={}\n"),
    ("internal/db/db.go", "package db\n\nvar dsn = \"{}\"\n"),
)


def connection_string(rng: random.Random, dsn: str, frame: tuple[str, str]) -> Made:
    secret = password(rng).replace("%", "").replace("#", "").replace("&", "").replace(";", "")
    value = dsn.format(p=secret)
    return frame[0], frame[1].format(value), (secret,), value


def query_key(rng: random.Random, frame: tuple[str, str], parameter: str) -> Made:
    key = pick(rng, 32, ALNUM)
    url = f"https://api.example.com/v2/forecast?{parameter}={key}&units=metric"
    return frame[0], frame[1].format(url), (key,), url


QUERY_FRAMES = (
    ("app/weather.py", "import requests\n\n\ndef today():\n    return requests.get(\"{}\").json()\n"),
    ("src/weather.js", "export const today = () => fetch(\"{}\").then((r) => r.json());\n"),
    ("README.md", "Try it: {}\n"),
)


PASSWORD_FRAMES = (
    ("app/settings.py", "DB_HOST = \"db.internal\"\nDB_PASS = \"{p}\"\n"),
    ("app/settings.py", "DATABASES = {{\"default\": {{\"HOST\": \"db\", \"PASSWORD\": \"{p}\"}}}}\n"),
    ("app/db.py", "conn = psycopg.connect(host=\"db\", user=\"app\", password=\"{p}\")\n"),
    ("app/users.py", "class Seed:\n    def __init__(self):\n        self.admin_password = '{p}'\n"),
    ("app/settings.py", "PGPASSWORD = \"{p}\"\n"),
    ("scripts/backup.sh", "#!/bin/sh\nPGPASSWORD={p} pg_dump -h db.internal app > backup.sql\n"),
    ("scripts/backup.sh", "#!/bin/sh\nmysqldump -uroot -p{p} shop > shop.sql\n"),
    ("scripts/fetch.sh", "#!/bin/sh\ncurl -u deploy:{p} https://artifacts.example.com/build.tgz -o build.tgz\n"),
    ("scripts/login.sh", "#!/bin/sh\necho \"{p}\" | docker login --username ci --password-stdin registry.example.com\n"),
    ("scripts/login.sh", "#!/bin/sh\nsshpass -p '{p}' ssh deploy@bastion.example.com\n"),
    ("config/app.yaml", "database:\n  user: app\n  password: {p}\n"),
    ("config/app.yaml", "smtp:\n  host: mail.example.com\n  pass: \"{p}\"\n"),
    ("config/settings.json", "{{\n  \"db\": {{\"user\": \"app\", \"password\": \"{p}\"}}\n}}\n"),
    ("src/main/resources/application.properties", "spring.datasource.username=app\nspring.datasource.password={p}\n"),
    ("Dockerfile", "FROM postgres:16\nENV POSTGRES_PASSWORD {p}\n"),
    ("Dockerfile", "FROM mysql:8\nENV MYSQL_ROOT_PASSWORD={p}\n"),
    (".env.example", "DB_USER=app\nDB_PASSWORD={p}\n"),
    (".envrc", "export MYSQL_PWD={p}\n"),
    ("src/config.ts", "export const db = {{ user: \"app\", passwd: \"{p}\" }};\n"),
    ("internal/config/config.go", "var Default = Config{{User: \"app\", Password: \"{p}\"}}\n"),
    ("src/main/java/com/example/Db.java", "class Db {{\n    private static final String DB_PW = \"{p}\";\n}}\n"),
    ("config/database.php", "<?php\nreturn ['password' => '{p}'];\n"),
    ("config/initializers/mail.rb", "ActionMailer::Base.smtp_settings = {{ password: '{p}' }}\n"),
    ("setup.cfg", "[database]\nuser = app\npass = {p}\n"),
    ("infra/db.tf", "resource \"aws_db_instance\" \"main\" {{\n  username = \"app\"\n  password = \"{p}\"\n}}\n"),
    ("app/settings.py", "DB_PASSWORD = os.environ.get(\"DB_PASSWORD\", \"{p}\")\n"),
    ("app/settings.py", "SMTP_PASSWORD = (\n    \"{p}\"\n)\n"),
    ("app/keys.py", "PASS_PHRASE = b\"{p}\"\n"),
    ("ansible/group_vars/all.yml", "ansible_become_pass: \"{p}\"\n"),
    ("deploy/k8s/values.yaml", "postgresql:\n  auth:\n    postgresPassword: \"{p}\"\n"),
)


def password_assignment(rng: random.Random, frame: tuple[str, str]) -> Made:
    secret = password(rng)
    return frame[0], frame[1].format(p=secret), (secret,), secret


SECRET_FRAMES = (
    ("app/settings.py", "SECRET_KEY = \"django-insecure-{s}\"\n"),
    ("app/__init__.py", "app = Flask(__name__)\napp.secret_key = \"{s}\"\n"),
    ("config/secrets.example.yml", "production:\n  secret_key_base: {s}\n"),
    ("src/auth.ts", "export const JWT_SECRET = \"{s}\";\n"),
    ("config/app.yaml", "session:\n  signing_key: \"{s}\"\n"),
    ("src/webhooks.js", "const webhookSecret = \"{s}\";\nmodule.exports = {{ webhookSecret }};\n"),
    ("app/oauth.py", "CLIENT_SECRET = \"{s}\"\n"),
    ("internal/crypto/keys.go", "var encryptionKey = []byte(\"{s}\")\n"),
)


def generic_secret(rng: random.Random, frame: tuple[str, str]) -> Made:
    secret = pick(rng, 40, ALNUM + "-_")
    return frame[0], frame[1].format(s=secret), (secret,), secret


def kubernetes_secret(rng: random.Random, form: str) -> Made:
    secret = password(rng)
    if form == "data":
        value = base64.b64encode(secret.encode()).decode()
        text = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\ndata:\n  DB_PASS: {value}\n  username: YXBw\n"
        return "deploy/k8s/secret.yaml", text, (value,), value
    text = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n  db.pass: {secret}\n"
    return "deploy/k8s/secret.yaml", text, (secret,), secret


def structures() -> list[tuple[str, Callable[[random.Random], Made]]]:
    """(provider, maker) of every structured positive."""
    made = private_keys()
    made += [("GCP service-account JSON", gcp_service_account)] * 4
    made += [("Azure storage connection string", lambda rng, f=f: azure_storage(rng, *f)) for f in CONNECTION_FRAMES]
    made += [("Azure Service Bus connection string", lambda rng, f=f: azure_service_bus(rng, *f)) for f in CONNECTION_FRAMES]
    made += [("Basic-auth URL", lambda rng, f=f: basic_auth_url(rng, f[1], f[0])) for f in URL_FRAMES]
    made += [
        ("DB connection string", lambda rng, d=d, f=f: connection_string(rng, d, f))
        for index, d in enumerate(DSNS)
        for f in (DSN_FRAMES[index % len(DSN_FRAMES)], DSN_FRAMES[(index + 2) % len(DSN_FRAMES)])
    ]
    made += [("API key in a URL query", lambda rng, f=f, p=p: query_key(rng, f, p)) for f in QUERY_FRAMES for p in ("api_key", "access_token")]
    made += [("Password assignment", lambda rng, f=f: password_assignment(rng, f)) for f in PASSWORD_FRAMES]
    made += [("Secret-named assignment", lambda rng, f=f: generic_secret(rng, f)) for f in SECRET_FRAMES]
    made += [("Kubernetes Secret", lambda rng, form=form: kubernetes_secret(rng, form)) for form in ("data", "stringData") for _ in range(3)]
    return made
