"""Where a credential stands in a real repository: files of several languages and formats,
each a few lines around one value. `NEUTRAL` contexts name nothing secret (the value is
a positional argument, a header, a line of prose or a commit message), so only a rule
that knows the value's own format finds it; `NAMED` contexts assign it to the name it
usually has (`STRIPE_SECRET_KEY=…`).

A context is `(name, client, value) -> (path, text)`: `name` is the environment variable,
`client` a constructor that takes the credential.
"""

from __future__ import annotations

from collections.abc import Callable

Context = Callable[[str, str, str], tuple[str, str]]


def _snake(name: str) -> str:
    return name.lower()


def _camel(name: str) -> str:
    head, *rest = name.lower().split("_")
    return head + "".join(word.capitalize() for word in rest)


def py_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "app/clients.py", (
        "import logging\n\nlog = logging.getLogger(__name__)\n\n\n"
        f"def make_client():\n    client = {client}(\"{value}\", timeout=30)\n"
        "    log.info(\"client ready\")\n    return client\n"
    )


def py_getenv_default(name: str, client: str, value: str) -> tuple[str, str]:
    return "app/settings.py", (
        "import os\n\nDEBUG = os.getenv(\"DEBUG\") == \"1\"\n"
        f"{name} = os.getenv(\"{name}\", \"{value}\")\nTIMEOUT = 30\n"
    )


def py_prefixed_literal(name: str, client: str, value: str) -> tuple[str, str]:
    return "tools/release.py", (
        f"\"\"\"Release helper.\"\"\"\n\n{_snake(name)} = r\"{value}\"\n\n\n"
        f"def headers():\n    return {{\"User-Agent\": \"release-bot\", \"X-Token\": {_snake(name)}}}\n"
    )


def py_fstring_bearer(name: str, client: str, value: str) -> tuple[str, str]:
    return "scripts/sync.py", (
        "import requests\n\n\ndef fetch(url):\n"
        f"    return requests.get(url, headers={{\"Authorization\": f\"Bearer {value}\"}}).json()\n"
    )


def js_object(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/client.js", (
        f"import {{ {client} }} from \"sdk\";\n\n"
        f"export const client = new {client}({{\n  auth: \"{value}\",\n  retries: 3,\n}});\n"
    )


def ts_concat_bearer(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/api.ts", (
        "export async function me(): Promise<Response> {\n"
        f"  return fetch(\"https://api.example.com/v1/me\", {{ headers: {{ Authorization: \"Bearer \" + \"{value}\" }} }});\n"
        "}\n"
    )


def go_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "cmd/worker/main.go", (
        "package main\n\nimport \"github.com/example/sdk\"\n\nfunc main() {\n"
        f"\tc := sdk.New{client.split('.')[-1]}(\"{value}\")\n\tc.Run()\n}}\n"
    )


def java_builder(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/main/java/com/example/Config.java", (
        "package com.example;\n\npublic final class Config {\n"
        f"    static final {client.split('.')[-1]} CLIENT = {client.split('.')[-1]}.builder().credential(\"{value}\").build();\n"
        "}\n"
    )


def ruby_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "lib/notifier.rb", f"require 'sdk'\n\nCLIENT = Sdk::{client.split('.')[-1]}.new('{value}')\n"


def rust_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/main.rs", f"fn main() {{\n    let client = {client.split('.')[-1]}::new(\"{value}\");\n    client.run();\n}}\n"


def csharp_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/Program.cs", f"var client = new {client.split('.')[-1]}(\"{value}\");\nawait client.StartAsync();\n"


def php_call(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/bootstrap.php", f"<?php\n$client = new \\Sdk\\{client.split('.')[-1]}('{value}');\n$client->boot();\n"


def markdown_prose(name: str, client: str, value: str) -> tuple[str, str]:
    return "docs/quickstart.md", (
        "# Quick start\n\nInstall the package, then run the example.\n\n"
        f"The demo account uses {value} until the sandbox is set up.\n\n## Next\n\nRead the guide.\n"
    )


def markdown_fence(name: str, client: str, value: str) -> tuple[str, str]:
    return "README.md", f"# Deploy\n\n```bash\nexport {name}={value}\n./deploy.sh\n```\n"


def shell_curl(name: str, client: str, value: str) -> tuple[str, str]:
    return "scripts/check.sh", (
        "#!/bin/sh\nset -eu\n"
        f"curl -fsS -H \"Authorization: Bearer {value}\" https://api.example.com/v1/status\n"
    )


def shell_export(name: str, client: str, value: str) -> tuple[str, str]:
    return "scripts/env.sh", f"#!/bin/bash\nexport REGION=eu-west-1\nexport {name}=\"{value}\"\n"


def commit_message(name: str, client: str, value: str) -> tuple[str, str]:
    return "", f"Fix the nightly deploy\n\nThe runner lost its credential; use {value} until the vault is back.\n"


def yaml_actions(name: str, client: str, value: str) -> tuple[str, str]:
    return ".github/workflows/deploy.yml", (
        "name: deploy\non: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n"
        f"      {name}: {value}\n    steps:\n      - run: make deploy\n"
    )


def yaml_config(name: str, client: str, value: str) -> tuple[str, str]:
    return "config/app.yaml", f"service:\n  port: 8080\n  {_snake(name)}: \"{value}\"\n"


def json_config(name: str, client: str, value: str) -> tuple[str, str]:
    return "config/settings.json", f"{{\n  \"region\": \"eu-west-1\",\n  \"{_camel(name)}\": \"{value}\"\n}}\n"


def dockerfile_env(name: str, client: str, value: str) -> tuple[str, str]:
    return "Dockerfile", f"FROM python:3.12-slim\nENV {name} {value}\nCOPY . /app\nCMD [\"python\", \"-m\", \"app\"]\n"


def dotenv_example(name: str, client: str, value: str) -> tuple[str, str]:
    return ".env.example", f"PORT=8080\n{name}={value}\n"


def envrc(name: str, client: str, value: str) -> tuple[str, str]:
    return ".envrc", f"export {name}={value}\n"


def terraform(name: str, client: str, value: str) -> tuple[str, str]:
    return "infra/main.tf", f"provider \"example\" {{\n  region = \"eu-west-1\"\n  {_snake(name)} = \"{value}\"\n}}\n"


def ini_config(name: str, client: str, value: str) -> tuple[str, str]:
    return "setup.cfg", f"[deploy]\nregion = eu-west-1\n{_snake(name)} = {value}\n"


def properties(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/main/resources/application.properties", f"server.port=8080\napp.{_snake(name).replace('_', '.')}={value}\n"


def xml_config(name: str, client: str, value: str) -> tuple[str, str]:
    return "web.config", f"<configuration>\n  <appSettings>\n    <add key=\"{_camel(name)}\" value=\"{value}\" />\n  </appSettings>\n</configuration>\n"


def go_assign(name: str, client: str, value: str) -> tuple[str, str]:
    return "internal/config/config.go", f"package config\n\nconst {_camel(name)} = \"{value}\"\n"


def js_env_fallback(name: str, client: str, value: str) -> tuple[str, str]:
    return "src/config.js", f"export const config = {{\n  {_camel(name)}: process.env.{name} || \"{value}\",\n}};\n"


NEUTRAL: tuple[Context, ...] = (
    py_call, js_object, go_call, java_builder, ruby_call, rust_call, csharp_call, php_call,
    markdown_prose, shell_curl, commit_message, ts_concat_bearer, py_fstring_bearer,
)
NAMED: tuple[Context, ...] = (
    py_getenv_default, py_prefixed_literal, markdown_fence, shell_export, yaml_actions, yaml_config,
    json_config, dockerfile_env, dotenv_example, envrc, terraform, ini_config, properties, xml_config,
    go_assign, js_env_fallback,
)
