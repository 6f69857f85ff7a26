"""Credential formats as their issuers document them, made up at run time from a seeded
generator: the prefix, the length, the alphabet and, where the issuer documents one, the
checksum (GitHub's and npm's CRC32 in base62). No token is written here as a literal, so
this repository holds nothing a push-protection scanner would take for a live key.

Each `Format` says how a value is used: `prefixed` values are recognisable on their own
(`ghp_…` anywhere in a file), the others only by the name they are assigned to
(`DD_API_KEY=<32 hex>`), so they are only put into contexts that name them.
"""

from __future__ import annotations

import base64
import json
import random
import string
import zlib
from collections.abc import Callable
from dataclasses import dataclass

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_HEX = "0123456789ABCDEF"
BASE32 = string.ascii_uppercase + "234567"


@dataclass(frozen=True)
class Format:
    provider: str
    """The row of the table: one credential kind of one issuer."""
    make: Callable[[random.Random], str]
    name: str
    """The environment variable or setting this credential is usually found under."""
    client: str = "Client"
    """A constructor taking the credential positionally, for contexts that name nothing secret."""
    prefixed: bool = True


def pick(rng: random.Random, length: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def base62(number: int, width: int) -> str:
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = BASE62[digit] + digits
    return digits.rjust(width, "0")


def crc32_token(prefix: str, random_length: int = 30) -> Callable[[random.Random], str]:
    """GitHub's and npm's layout: 30 random base62 characters, then the CRC32 of them in
    six base62 digits."""

    def make(rng: random.Random) -> str:
        body = pick(rng, random_length, BASE62)
        return prefix + body + base62(zlib.crc32(body.encode()), 6)

    return make


def joined(*parts: str | tuple[int, str]) -> Callable[[random.Random], str]:
    """Literal pieces and (length, alphabet) random pieces, in order."""

    def make(rng: random.Random) -> str:
        return "".join(part if isinstance(part, str) else pick(rng, *part) for part in parts)

    return make


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(rng: random.Random) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {"sub": pick(rng, 12, string.digits), "name": pick(rng, 8, string.ascii_lowercase), "iat": rng.randrange(1_600_000_000, 1_800_000_000)}
    return f"{header}.{b64url(json.dumps(claims).encode())}.{pick(rng, 43, URLSAFE)}"


def discord_bot(rng: random.Random) -> str:
    user_id = str(rng.randrange(10**17, 10**19))
    return f"{b64url(user_id.encode())}.{pick(rng, 6, URLSAFE)}.{pick(rng, 38, URLSAFE)}"


def mapbox_secret(rng: random.Random) -> str:
    claims = b64url(json.dumps({"u": pick(rng, 8, string.ascii_lowercase), "a": pick(rng, 25, ALNUM)}).encode())
    return f"sk.{claims}.{pick(rng, 22, URLSAFE)}"


def terraform_cloud(rng: random.Random) -> str:
    return f"{pick(rng, 14, ALNUM)}.atlasv1.{pick(rng, 67, URLSAFE)}"


def uuid4(rng: random.Random) -> str:
    digits = pick(rng, 32, HEX)
    return f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-a{digits[17:20]}-{digits[20:]}"


def age_key(rng: random.Random) -> str:
    return "AGE-SECRET-KEY-1" + pick(rng, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")


def atlassian(rng: random.Random) -> str:
    return "ATATT3xFfGF0" + pick(rng, 170, URLSAFE) + "=" + pick(rng, 8, UPPER_HEX)


def azure_storage_key(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(64)).decode()


def aws_secret(rng: random.Random) -> str:
    return pick(rng, 40, B64)


FORMATS: tuple[Format, ...] = (
    Format("GitHub classic PAT", crc32_token("ghp_"), "GITHUB_TOKEN", "Github"),
    Format("GitHub OAuth token", crc32_token("gho_"), "GH_OAUTH_TOKEN", "Github"),
    Format("GitHub app user token", crc32_token("ghu_"), "GH_USER_TOKEN", "Github"),
    Format("GitHub app installation token", crc32_token("ghs_"), "GH_APP_TOKEN", "Github"),
    Format("GitHub refresh token", crc32_token("ghr_"), "GH_REFRESH_TOKEN", "Github"),
    Format("GitHub fine-grained PAT", joined("github_pat_11", (20, string.ascii_uppercase + string.digits), "_", (59, ALNUM)), "GITHUB_PAT", "Github"),
    Format("GitLab PAT", joined("glpat-", (20, URLSAFE)), "GITLAB_TOKEN", "Gitlab"),
    Format("GitLab pipeline trigger token", joined("glptt-", (40, HEX)), "CI_TRIGGER_TOKEN", "Gitlab"),
    Format("GitLab runner token", joined("glrt-", (20, URLSAFE)), "RUNNER_TOKEN", "Gitlab"),
    Format("GitLab deploy token", joined("gldt-", (20, URLSAFE)), "DEPLOY_TOKEN", "Gitlab"),
    Format("OpenAI key (legacy)", joined("sk-", (20, ALNUM), "T3BlbkFJ", (20, ALNUM)), "OPENAI_API_KEY", "OpenAI"),
    Format("OpenAI project key", joined("sk-proj-", (74, URLSAFE), "T3BlbkFJ", (74, URLSAFE)), "OPENAI_API_KEY", "OpenAI"),
    Format("OpenAI service-account key", joined("sk-svcacct-", (74, URLSAFE), "T3BlbkFJ", (74, URLSAFE)), "OPENAI_API_KEY", "OpenAI"),
    Format("Anthropic API key", joined("sk-ant-api03-", (93, URLSAFE), "AA"), "ANTHROPIC_API_KEY", "Anthropic"),
    Format("Anthropic admin key", joined("sk-ant-admin01-", (93, URLSAFE), "AA"), "ANTHROPIC_ADMIN_KEY", "Anthropic"),
    Format("Hugging Face token", joined("hf_", (34, string.ascii_letters)), "HF_TOKEN", "InferenceClient"),
    Format("npm access token", crc32_token("npm_"), "NPM_TOKEN", "RegistryClient"),
    Format("PyPI upload token", joined("pypi-AgEIcHlwaS5vcmc", (120, URLSAFE)), "TWINE_PASSWORD", "Uploader"),
    Format("Stripe live secret key", joined("sk_live_", (99, ALNUM)), "STRIPE_SECRET_KEY", "Stripe"),
    Format("Stripe restricted key", joined("rk_live_", (99, ALNUM)), "STRIPE_RESTRICTED_KEY", "Stripe"),
    Format("Stripe webhook secret", joined("whsec_", (32, ALNUM)), "STRIPE_WEBHOOK_SECRET", "Webhook"),
    Format("Slack bot token", joined("xoxb-", (12, string.digits), "-", (13, string.digits), "-", (24, ALNUM)), "SLACK_BOT_TOKEN", "WebClient"),
    Format("Slack user token", joined("xoxp-", (12, string.digits), "-", (13, string.digits), "-", (13, string.digits), "-", (32, HEX)), "SLACK_USER_TOKEN", "WebClient"),
    Format("Slack app-level token", joined("xapp-1-A", (10, string.ascii_uppercase + string.digits), "-", (13, string.digits), "-", (64, HEX)), "SLACK_APP_TOKEN", "SocketModeClient"),
    Format("Slack webhook URL", joined("https://hooks.slack.com/services/T", (10, string.ascii_uppercase + string.digits), "/B", (10, string.ascii_uppercase + string.digits), "/", (24, ALNUM)), "SLACK_WEBHOOK_URL", "WebhookClient"),
    Format("Twilio API key", joined("SK", (32, HEX)), "TWILIO_API_KEY", "TwilioClient"),
    Format("Twilio auth token", joined((32, HEX)), "TWILIO_AUTH_TOKEN", prefixed=False),
    Format("SendGrid API key", joined("SG.", (22, URLSAFE), ".", (43, URLSAFE)), "SENDGRID_API_KEY", "SendGridAPIClient"),
    Format("Mailgun API key", joined("key-", (32, HEX)), "MAILGUN_API_KEY", "Mailgun"),
    Format("Mailchimp API key", joined((32, HEX), "-us", (2, "123456789")), "MAILCHIMP_API_KEY", "Mailchimp"),
    Format("AWS access key ID", joined("AKIA", (16, BASE32)), "AWS_ACCESS_KEY_ID", "Session"),
    Format("AWS temporary key ID", joined("ASIA", (16, BASE32)), "AWS_ACCESS_KEY_ID", "Session"),
    Format("AWS secret access key", aws_secret, "AWS_SECRET_ACCESS_KEY", prefixed=False),
    Format("Google API key", joined("AIza", (35, URLSAFE)), "GOOGLE_API_KEY", "Maps"),
    Format("Google OAuth client secret", joined("GOCSPX-", (28, URLSAFE)), "GOOGLE_CLIENT_SECRET", "Flow"),
    Format("Google OAuth access token", joined("ya29.a0", (120, URLSAFE)), "GOOGLE_ACCESS_TOKEN", "Credentials"),
    Format("Azure storage account key", azure_storage_key, "AZURE_STORAGE_KEY", prefixed=False),
    Format("Azure AD client secret", joined((3, ALNUM), "8Q~", (31, ALNUM + "_~.-")), "AZURE_CLIENT_SECRET", prefixed=False),
    Format("DigitalOcean PAT", joined("dop_v1_", (64, HEX)), "DIGITALOCEAN_TOKEN", "Manager"),
    Format("DigitalOcean OAuth token", joined("doo_v1_", (64, HEX)), "DO_OAUTH_TOKEN", "Manager"),
    Format("Shopify access token", joined("shpat_", (32, HEX)), "SHOPIFY_ACCESS_TOKEN", "Session"),
    Format("Shopify shared secret", joined("shpss_", (32, HEX)), "SHOPIFY_API_SECRET", "Session"),
    Format("Square access token", joined("EAAA", (60, URLSAFE)), "SQUARE_ACCESS_TOKEN", "SquareClient"),
    Format("Square OAuth secret", joined("sq0csp-", (43, URLSAFE)), "SQUARE_OAUTH_SECRET", "SquareClient"),
    Format("Linear API key", joined("lin_api_", (40, ALNUM)), "LINEAR_API_KEY", "LinearClient"),
    Format("Databricks token", joined("dapi", (32, HEX)), "DATABRICKS_TOKEN", "WorkspaceClient"),
    Format("Discord bot token", discord_bot, "DISCORD_TOKEN", "Bot"),
    Format("Discord webhook URL", joined("https://discord.com/api/webhooks/", (18, string.digits), "/", (68, URLSAFE)), "DISCORD_WEBHOOK", "Webhook"),
    Format("Telegram bot token", joined((10, string.digits), ":AA", (33, URLSAFE)), "TELEGRAM_BOT_TOKEN", "Bot"),
    Format("Atlassian API token", atlassian, "JIRA_API_TOKEN", "Jira"),
    Format("Heroku API key", uuid4, "HEROKU_API_KEY", prefixed=False),
    Format("Netlify PAT", joined("nfp_", (36, ALNUM)), "NETLIFY_AUTH_TOKEN", "NetlifyAPI"),
    Format("Vercel token", joined((24, ALNUM)), "VERCEL_TOKEN", prefixed=False),
    Format("Doppler service token", joined("dp.st.prd.", (40, ALNUM)), "DOPPLER_TOKEN", "DopplerSDK"),
    Format("Doppler personal token", joined("dp.pt.", (43, ALNUM)), "DOPPLER_TOKEN", "DopplerSDK"),
    Format("Pulumi access token", joined("pul-", (40, HEX)), "PULUMI_ACCESS_TOKEN", "Workspace"),
    Format("Terraform Cloud token", terraform_cloud, "TFE_TOKEN", "TFC"),
    Format("Vault service token", joined("hvs.", (24, URLSAFE)), "VAULT_TOKEN", "hvac.Client"),
    Format("Vault batch token", joined("hvb.AAAAAQ", (128, URLSAFE)), "VAULT_TOKEN", "hvac.Client"),
    Format("Sentry org auth token", joined("sntrys_eyJpYXQiOjE3", (80, URLSAFE), "_", (43, URLSAFE)), "SENTRY_AUTH_TOKEN", "SentryClient"),
    Format("Sentry user auth token", joined("sntryu_", (64, HEX)), "SENTRY_AUTH_TOKEN", "SentryClient"),
    Format("Datadog API key", joined((32, HEX)), "DD_API_KEY", prefixed=False),
    Format("Datadog application key", joined((40, HEX)), "DD_APP_KEY", prefixed=False),
    Format("New Relic user key", joined("NRAK-", (27, string.ascii_uppercase + string.digits)), "NEW_RELIC_API_KEY", "NerdGraph"),
    Format("New Relic license key", joined((36, HEX), "NRAL"), "NEW_RELIC_LICENSE_KEY", prefixed=False),
    Format("Grafana service account token", joined("glsa_", (32, ALNUM), "_", (8, HEX)), "GRAFANA_TOKEN", "GrafanaApi"),
    Format("Grafana Cloud token", joined("glc_eyJvIjoi", (80, ALNUM), "In19"), "GRAFANA_CLOUD_TOKEN", "GrafanaApi"),
    Format("JWT", jwt, "ACCESS_TOKEN", "Session"),
    Format("Postman API key", joined("PMAK-", (24, HEX), "-", (34, HEX)), "POSTMAN_API_KEY", "Postman"),
    Format("Supabase access token", joined("sbp_", (40, HEX)), "SUPABASE_ACCESS_TOKEN", "Management"),
    Format("PlanetScale token", joined("pscale_tkn_", (43, URLSAFE)), "PLANETSCALE_TOKEN", "PlanetScale"),
    Format("Docker Hub PAT", joined("dckr_pat_", (27, URLSAFE)), "DOCKERHUB_TOKEN", "DockerClient"),
    Format("RubyGems API key", joined("rubygems_", (48, HEX)), "GEM_HOST_API_KEY", "Gems"),
    Format("Replicate token", joined("r8_", (37, ALNUM)), "REPLICATE_API_TOKEN", "Replicate"),
    Format("Groq API key", joined("gsk_", (52, ALNUM)), "GROQ_API_KEY", "Groq"),
    Format("Perplexity API key", joined("pplx-", (48, ALNUM)), "PPLX_API_KEY", "OpenAI"),
    Format("Notion integration token", joined("ntn_", (46, ALNUM)), "NOTION_TOKEN", "NotionClient"),
    Format("Figma PAT", joined("figd_", (40, URLSAFE)), "FIGMA_TOKEN", "FigmaApi"),
    Format("Airtable PAT", joined("pat", (14, ALNUM), ".", (64, HEX)), "AIRTABLE_API_KEY", "Api"),
    Format("Buildkite token", joined("bkua_", (40, HEX)), "BUILDKITE_API_TOKEN", "Buildkite"),
    Format("Contentful token", joined("CFPAT-", (43, URLSAFE)), "CONTENTFUL_MANAGEMENT_TOKEN", "ContentfulClient"),
    Format("Dynatrace token", joined("dt0c01.", (24, string.ascii_uppercase + string.digits), ".", (64, string.ascii_uppercase + string.digits)), "DT_API_TOKEN", "Dynatrace"),
    Format("Mapbox secret token", mapbox_secret, "MAPBOX_SECRET_TOKEN", "Mapbox"),
    Format("Alibaba Cloud key ID", joined("LTAI", (20, ALNUM)), "ALIBABA_ACCESS_KEY_ID", "AcsClient"),
    Format("Artifactory API key", joined("AKCp", (69, ALNUM)), "ARTIFACTORY_API_KEY", "Artifactory"),
    Format("LangSmith API key", joined("lsv2_pt_", (32, HEX), "_", (10, HEX)), "LANGSMITH_API_KEY", "LangSmith"),
    Format("Tailscale auth key", joined("tskey-auth-", (17, ALNUM), "CNTRL-", (33, ALNUM)), "TS_AUTHKEY", "Tailscale"),
    Format("age secret key", age_key, "SOPS_AGE_KEY", "Identity"),
    Format("Cloudflare API token", joined((40, URLSAFE)), "CLOUDFLARE_API_TOKEN", prefixed=False),
)
"""At least one credential kind for each of the issuers the benchmark is asked to cover."""
