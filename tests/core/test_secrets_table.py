"""The secret detector judges values (issue 19, items 12 and 13; issue 36, item 12): a
table of credential forms that must be refused and of honest memories that must be kept,
checked on `secrets` directly, through `git aide remember`, `validate` and the pre-commit
hook, and on a megabyte line that must be judged in linear time.

Every credential here is built at run time from a seeded random body in the shape its
provider documents: none is real, and no whole token sits in this file for a scanner.
"""

from __future__ import annotations

import base64
import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, ROOT, aide, git, make_repo, put, remember
from helpers import valid_record as record

from git_aide.core import secret_shapes, secrets

_RNG = random.Random(1912)
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def tok(alphabet: str, n: int) -> str:
    """`n` characters drawn from `alphabet` (the seeded random body of a fake token)."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def b64(data: str | bytes) -> str:
    """Standard base64 of `data`."""
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def pem(label: str, der_head: str) -> str:
    """A PEM file whose body opens with `der_head` (base64 of its first DER bytes)."""
    body = der_head + tok(B64, 200)
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"


#: Item 12: credential forms that passed `remember` and the pre-commit hook, with the
#: kind each error must name.
ITEM_12: list[tuple[str, str]] = [
    ("Azure account key",
     "storage: DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey="
     + tok(B64, 86) + "==;EndpointSuffix=core.windows.net"),
    ("a value assigned to DB_PASS", "DB_PASS=" + tok(ALNUM, 12)),
    ("a value assigned to MYSQL_PWD", "run it as MYSQL_PWD=" + tok(ALNUM, 10) + " mysql -u app"),
    ("a value assigned to REDIS_PASS", "REDIS_PASS=" + tok(ALNUM, 16)),
    ("a value assigned to PWD",
     "Driver={ODBC Driver 18 for SQL Server};Server=db,1433;UID=sa;PWD=" + tok(ALNUM, 14) + ";"),
    ("Authorization header",
     "curl -H 'Authorization: Bearer " + tok(URLSAFE, 40) + "' https://api.internal/v1"),
    ("Authorization header",
     "send Authorization: Basic " + b64("deploy:" + tok(ALNUM, 16)) + " to the registry"),
    ("DigitalOcean token", "doctl auth init -t dop_v1_" + tok(HEX, 64)),
    ("Hugging Face token", "HF_HOME is shared; login with hf_" + tok(string.ascii_letters, 34)),
    ("Shopify token", "the admin API answers to shpat_" + tok(HEX, 32)),
    ("Twilio API key", "twilio api key SK" + tok(HEX, 32)),
    ("Mailgun API key", "mailgun: key-" + tok(HEX, 32)),
    ("Mailgun API key", "mailgun sends with " + "-".join((tok(HEX, 32), tok(HEX, 8), tok(HEX, 8)))),
    ("Databricks token", "databricks host token dapi" + tok(HEX, 32)),
    ("Google OAuth client secret", "oauth client secret GOCSPX-" + tok(URLSAFE, 28)),
    ("registry auth (base64 user:password)",
     '~/.docker/config.json: {"auths": {"registry.example.com": {"auth": "'
     + b64("ada:" + tok(ALNUM, 20)) + '"}}}'),
    ("signed URL signature",
     "download from https://acme.blob.core.windows.net/exports/q3.csv?sv=2022-11-02&ss=b"
     "&srt=o&sp=r&se=2030-01-01T00:00:00Z&sig=" + tok(ALNUM, 43) + "%3D"),
    ("private key in base64",
     "apiVersion: v1\nkind: Secret\ndata:\n  tls.key: "
     + b64(pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA"))),
    ("private key without its header",
     "deploy key (no header):\n" + pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA").split("\n", 1)[1]
     .rsplit("-----END", 1)[0]),
    ("private key without its header", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
     + tok(B64, 64)),
    ("private key without its header", "ec key MHcCAQEEI" + tok(B64, 150)),
    ("private key without its header", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ" + tok(B64, 60)),
]

#: One example of every other kind `secret_shapes.PATTERNS` knows.
OTHER_KINDS: list[tuple[str, str]] = [
    ("private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + tok(B64, 64)),
    ("AWS access key id", "key id AKIA" + tok(string.ascii_uppercase + string.digits, 16)),
    ("AWS secret access key", "aws_secret_access_key = " + tok(B64, 40)),
    ("GitHub token", "token ghp_" + tok(ALNUM, 36)),
    ("GitLab token", "glpat-" + tok(URLSAFE, 20)),
    ("Slack token", "xoxb-" + tok(string.digits, 12) + "-" + tok(ALNUM, 24)),
    ("Slack webhook", "https://hooks.slack.com/services/T" + tok(ALNUM, 8) + "/B"
     + tok(ALNUM, 8) + "/" + tok(ALNUM, 24)),
    ("npm token", "npm_" + tok(ALNUM, 36)),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + tok(URLSAFE, 60)),
    ("SendGrid API key", "SG." + tok(URLSAFE, 22) + "." + tok(URLSAFE, 43)),
    ("Google API key", "AIza" + tok(URLSAFE, 35)),
    ("Stripe secret key", "sk_live_" + tok(ALNUM, 24)),
    ("AI provider API key", "sk-ant-api03-" + tok(URLSAFE, 93) + "AA"),
    ("Azure AD client secret", "client secret " + tok(ALNUM, 3) + "8Q~" + tok(ALNUM, 34)),
    ("Alibaba Cloud access key id", "LTAI" + tok(ALNUM, 20)),
    ("age secret key", "AGE-SECRET-KEY-1" + tok("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    ("1Password secret", "OP_SERVICE_ACCOUNT_TOKEN is ops_eyJ" + tok(B64, 250)),
    ("Atlassian API token", "ATATT3" + tok(URLSAFE, 186)),
    ("Clojars token", "CLOJARS_" + tok(string.ascii_lowercase + string.digits, 60)),
    ("Cloudflare origin CA key", "v1.0-" + tok(HEX, 24) + "-" + tok(HEX, 146)),
    ("Doppler token", "dp.pt." + tok(ALNUM, 43)),
    ("Dropbox token", "sl." + tok(URLSAFE, 135)),
    ("Dynatrace token", "dt0c01." + tok(ALNUM, 24) + "." + tok(ALNUM, 64)),
    ("EasyPost API key", "EZAK" + tok(ALNUM, 54)),
    ("Facebook access token", "EAAC" + tok(ALNUM, 120)),
    ("Fly.io token", "fo1_" + tok(URLSAFE, 43)),
    ("Frame.io token", "fio-u-" + tok(URLSAFE, 64)),
    ("Grafana token", "glsa_" + tok(ALNUM, 32) + "_" + tok(HEX, 8)),
    ("Groq API key", "gsk_" + tok(ALNUM, 52)),
    ("Harness token", "pat." + tok(URLSAFE, 22) + "." + tok(ALNUM, 24) + "." + tok(ALNUM, 20)),
    ("HashiCorp Vault token", "hvs." + tok(URLSAFE, 95)),
    ("Heroku API key", "HRKU-AA" + tok(URLSAFE, 58)),
    ("Infracost API key", "ico-" + tok(ALNUM, 32)),
    ("Linear API key", "lin_api_" + tok(ALNUM, 40)),
    ("Mailchimp API key", tok(HEX, 32) + "-us21"),
    ("New Relic API key", "NRAK-" + tok(string.ascii_uppercase + string.digits, 27)),
    ("password in a curl command", "curl -u admin:" + tok(ALNUM, 16) + " https://ci.internal/"),
    ("Mapbox secret token", "sk.eyJ" + tok(URLSAFE, 60) + "." + tok(URLSAFE, 22)),
    ("Notion token", "ntn_" + tok(string.digits, 11) + tok(ALNUM, 35)),
    ("Octopus Deploy API key", "API-" + tok(string.ascii_uppercase + string.digits, 26)),
    ("Perplexity API key", "pplx-" + tok(ALNUM, 48)),
    ("PlanetScale token", "pscale_tkn_" + tok(URLSAFE, 43)),
    ("Postman API key", "PMAK-" + tok(HEX, 24) + "-" + tok(HEX, 34)),
    ("Prefect API key", "pnu_" + tok(ALNUM, 36)),
    ("Pulumi token", "pul-" + tok(HEX, 40)),
    ("ReadMe API key", "rdme_" + tok(string.ascii_lowercase + string.digits, 70)),
    ("Replicate API token", "r8_" + tok(ALNUM, 37)),
    ("RubyGems API key", "rubygems_" + tok(HEX, 48)),
    ("Scalingo token", "tk-us-" + tok(URLSAFE, 48)),
    ("Brevo (Sendinblue) API key", "xkeysib-" + tok(HEX, 64) + "-" + tok(ALNUM, 16)),
    ("Sentry token", "sntryu_" + tok(HEX, 64)),
    ("Shippo API key", "shippo_live_" + tok(HEX, 40)),
    ("Sourcegraph token", "sgp_" + tok(HEX, 16) + "_" + tok(HEX, 40)),
    ("Square token", "sq0atp-" + tok(URLSAFE, 22)),
    ("Supabase token", "sbp_" + tok(HEX, 40)),
    ("Tailscale key", "tskey-auth-" + tok(ALNUM, 10) + "-" + tok(ALNUM, 30)),
    ("Telegram bot token", tok(string.digits, 9) + ":AA" + tok(URLSAFE, 33)),
    ("Terraform Cloud token", tok(ALNUM, 14) + ".atlasv1." + tok(URLSAFE, 64)),
    ("X (Twitter) bearer token", "A" * 22 + tok(ALNUM, 80)),
    ("xAI API key", "xai-" + tok(ALNUM, 80)),
    ("Django secret key", "django-insecure-" + tok(ALNUM + "!@#%^&*(-_=+)", 50)),
    ("JSON web token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + tok(URLSAFE, 43)),
    ("password in a URL", "DATABASE_URL is postgres://app:" + tok(ALNUM, 16) + "@db:5432/app"),
    ("a value assigned to password", "The VPN password is " + tok(ALNUM, 12) + "."),
]

#: Item 13: honest memories that were refused as secrets.
ITEM_13: list[str] = [
    "PARTITION_KEY=tenant_id",
    "PRIMARY_KEY=id",
    "SORT_KEY=created_at",
    "CACHE_KEY=users_v2",
    "FOREIGN_KEY=ON",
    "S3_KEY=uploads/{tenant_id}/{upload_id}.csv",
    "REDIS_KEY=session:user_id",
    "api_key=vault:secret/data/prod#api_key",
    "the db password is in arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-Xy12Ab",
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-Xy12Ab",
]

#: More honest text that mentions keys, tokens and passwords, as rules files do.
HONEST: list[str] = [
    "PWD=/home/ada is set by the shell; never hard-code it",
    "send the token as Authorization: Bearer <token>, never in the query string",
    "Authorization: Bearer $GITHUB_TOKEN in CI",
    "Authorization: Basic ... is rejected by the gateway",
    "the auth: required flag is set on every route",
    "bypass=1 skips the cache; monkey: patching is banned in tests",
    "PUBLIC_KEY=~/.ssh/id_ed25519.pub",
    "ENCRYPTION_KEY=AES-256-GCM is the only cipher we allow",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
    "password: ${{ secrets.DB_PASSWORD }} in the workflow",
    "DB_PASSWORD=POSTGRES_PASSWORD (the name of the variable, not its value)",
    "apiKey: process.env.STRIPE_KEY",
    "partitionKey: tenantId, sortKey: createdAt",
    "gcloud run deploy --set-secrets=DB_PASS=db-password:latest",
    "class Settings(BaseSettings): password: SecretStr",
    "idempotency key: the request's uuid 64666e0d-ebc2-4448-ac72-65255abbf167",
    "fixed in 3f786850e387550fdab836ed7e6dc881de23001b",
    "the fixture is base64 VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",
    "tls.crt: " + b64("-----BEGIN CERTIFICATE-----\nMIIDxDCCAqygAwIBAgIUWzjP9yEI4xyQJpsTuDEN\n"),
    "the public key is MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwBHM8czjw4CW+NpnIaWMvG6eqXm",
    "https://acme.blob.core.windows.net/public/logo.png?sig=<signature>",
    "hf_hub_download() needs HF_TOKEN only for gated models",
    "token_type=bearer; max_tokens=4096; sort key: created_at",
    "the secret: never log request bodies",
    "the password is hashed with argon2id; the token is opaque",
    "PUBLIC_KEY=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwBHM8czjw4CW+NpnIaWMvG6eqXm",
    "STRIPE_PUBLISHABLE_KEY=pk_live_" + tok(ALNUM, 24),
    "docker run -u 1000:1000 app; git push -u origin main",
    'fetch(url, { credentials: "include" })',
]


def password(n: int) -> str:
    """A password of `n` characters with a capital, a lowercase letter and a digit."""
    return tok(string.ascii_uppercase, 1) + tok(string.ascii_lowercase, 1) + \
        tok(string.digits, 1) + tok(ALNUM, n - 3)


GITHUB_TOKEN = "ghp_" + tok(ALNUM, 36)

#: Issue 36, item 12: passwords on a command line's flags, in a URL with no user, after
#: the word naming them, and a GitHub token wrapped in base64, which passed `remember`
#: and the pre-commit hook; with the kind each error must name.
ITEM_36: list[tuple[str, str]] = [
    ("password on a command line", "mysql -u root -p" + password(15)),
    ("password on a command line", "mysqldump -h db -uapp -p'" + password(12) + "' app > x.sql"),
    ("password on a command line", "sshpass -p '" + password(8) + "&3x' ssh deploy@bastion"),
    ("password on a command line", "sshpass -p" + password(12) + " scp dump.sql ops@db:/tmp"),
    ("password on a command line", "docker login -u bot -p " + password(16)),
    ("password on a command line", "podman login quay.io --username ci --password " + password(20)),
    ("password on a command line", "helm registry login ghcr.io -u bot -p '" + password(14) + "'"),
    ("password on a command line", "redis-cli -h cache.internal -a " + password(20) + " ping"),
    ("password on a command line", "sqlcmd -S db -U sa -P " + password(12)),
    ("password in a URL", "redis://:" + password(16) + "@cache.internal:6379/0"),
    ("password in a URL", "REDIS_URL=rediss://:" + password(24) + "@redis.example.com:6380"),
    ("password in a curl command", "curl -u :" + password(16) + " https://api.internal/v1"),
    ("a value assigned to pw", "prod root pw is " + password(13)),
    ("a value assigned to passcode", "VPN passcode: " + password(10)),
    ("password after the word naming it", "smtp pass " + password(15)),
    ("password after the word naming it", "smtp password " + password(12) + "."),
    ("password after the word naming it", "alarm PIN: " + password(10)),
    ("a value assigned to db_pw", "db_pw=" + tok(ALNUM, 14)),
    ("GitHub token, base64-encoded", b64(GITHUB_TOKEN)),
    ("GitHub token, base64-encoded",
     'curl -H "Authorization: Basic ' + b64(GITHUB_TOKEN) + '" https://api.github.com/user'),
    ("GitHub token, base64-encoded",
     "the CI variable holds " + b64(json.dumps({"token": GITHUB_TOKEN}))),
]

#: Near misses of ITEM_36's shapes: honest text that must be kept.
HONEST_36: list[str] = [
    "the password flag is -p",
    "pass the --verbose flag",
    "PIN the version to 1.2.3",
    "pin: 3f786850e387550fdab836ed7e6dc881de23001b",
    "Pin numpy==1.26.4 until the upgrade; pass np.float32 to the kernel",
    "mysql -u root -p (it prompts; never put the password on the command line)",
    "mysql -u app -p$MYSQL_PWD app; mysqldump -u app -p\"${DB_PASSWORD}\" app",
    "docker run --name mysql -p3306:3306 mysql:8; docker run -p 127.0.0.1:5432:5432 pg",
    "docker compose -p payments up -d",
    'docker login -u bot -p "$REGISTRY_PASSWORD"; docker login -p is insecure',
    "echo $PW | docker login -u bot --password-stdin registry.example.com",
    "ssh -p 2222 deploy@bastion; psql -h db -p 5432; redis-cli -p 6380 ping",
    "mkdir -p build && mysql -e 'SELECT 1'; pytest -p no:cacheprovider",
    "redis://:${REDIS_PASSWORD}@cache:6379/0; http://[::1]:8080/health",
    "curl -u : --negotiate https://intranet.example.com",
    "the root pw is in the vault; the passcode is 6 digits from the app",
    "username, _, password = base64.b64decode(rest).decode().partition(':')",
    "pass `asn1Spec` to guide the decoder",
    "the fixture is base64 " + b64("ghp_ is the prefix of a GitHub token; this is not one"),
]


def test_every_kind_has_an_example() -> None:
    assert {kind for kind, _ in secret_shapes.PATTERNS} == \
        {kind for kind, _ in ITEM_12 + OTHER_KINDS + ITEM_36
         if not kind.startswith("a value") and not kind.endswith(", base64-encoded")}


@pytest.mark.parametrize(("kind", "text"), ITEM_12 + OTHER_KINDS + ITEM_36, ids=lambda v: v[:40])
def test_each_credential_form_is_found_by_its_kind(kind: str, text: str) -> None:
    assert secrets.find(text) == kind
    # The same text in a JSON value, as a memory file holds it.
    assert secrets.find_json({"what": "x", "extra": [text]}) == kind


@pytest.mark.parametrize("text", ITEM_13 + HONEST + HONEST_36)
def test_identifiers_paths_references_and_arns_are_not_secrets(text: str) -> None:
    assert secrets.find(text) is None, secrets.find(text)
    assert secrets.find_json({"what": text}) is None


def test_json_keys_are_judged_by_their_values() -> None:
    assert secrets.find_json({"PARTITION_KEY": "tenant_id", "sort_key": "created_at",
                              "cache_key": "users:v2:{id}", "api_key": "vault:kv/app#key"}) is None
    assert secrets.find_json({"password": "/run/secrets/db_password"}) is None
    assert secrets.find_json({"api_key": tok(ALNUM, 32)}) == "a value assigned to api_key"
    assert secrets.find_json({"DB_PASS": "hunter22"}) == "a value assigned to DB_PASS"
    docker = {"auths": {"registry.example.com": {"auth": b64("ci:" + tok(ALNUM, 24))}}}
    assert secrets.find_json(docker) == "registry auth (base64 user:password)"
    assert secrets.find_json({"auth": "required"}) is None
    headers = {"headers": {"Authorization": "Bearer " + tok(URLSAFE, 40)}}
    assert secrets.find_json(headers) == "Authorization header"
    assert secrets.find_json({"headers": {"Authorization": "Bearer <token>"}}) is None
    azure = {"AccountKey": tok(B64, 86) + "=="}
    assert secrets.find_json(azure) == "a value assigned to AccountKey"


def one_line_error(stderr: str) -> str:
    """The single line of an error on stderr (no traceback, nothing else)."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_remember_refuses_each_credential_form_naming_its_kind(repo: Path) -> None:
    for kind, text in ITEM_12:
        r = aide(repo, "remember", text)
        assert r.returncode == 1, (kind, r.stdout)
        assert f"looks like a secret ({kind})" in one_line_error(r.stderr), kind
    r = aide(repo, "remember", "rotate keys", "--why", ITEM_12[0][1])
    assert r.returncode == 1 and "Azure account key" in one_line_error(r.stderr)
    assert not list((repo / ".aide/memories").rglob("*.json"))


def test_remember_keeps_honest_memories(repo: Path) -> None:
    for text in ITEM_13:
        doc = remember(repo, text)
        assert doc["created"], text
        assert json.loads((repo / doc["path"]).read_text())["what"] == text


def test_remember_refuses_issue_36s_passwords_and_keeps_their_near_misses(repo: Path) -> None:
    for kind, text in ITEM_36:
        r = aide(repo, "remember", text)
        assert r.returncode == 1, (kind, r.stdout)
        assert f"looks like a secret ({kind})" in one_line_error(r.stderr), kind
    assert not list((repo / ".aide/memories").rglob("*.json"))
    for text in HONEST_36[:4]:
        assert remember(repo, text)["created"], text


def test_the_hook_refuses_a_hand_written_password_on_a_command_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    where = {
        put(repo, record(what=ITEM_36[0][1])): ITEM_36[0][0],
        put(repo, record(why=ITEM_36[9][1])): ITEM_36[9][0],
        put(repo, record(what="smtp relay", extra={"note": ITEM_36[14][1]})): ITEM_36[14][0],
        put(repo, record(tags=["ci", b64(GITHUB_TOKEN)])): ITEM_36[18][0],
    }
    for path, kind in where.items():
        git(repo, "add", path)
        run = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                             text=True, env=BASE_ENV)
        assert run.returncode == 1 and f"looks like a secret ({kind})" in run.stderr, run.stderr
        git(repo, "rm", "-q", "--cached", path)
    honest = put(repo, record(what=HONEST_36[0], why="; ".join(HONEST_36[1:4])))
    git(repo, "add", honest)
    run = subprocess.run(["git", "commit", "-q", "-m", "honest"], cwd=repo, capture_output=True,
                         text=True, env=BASE_ENV)
    assert run.returncode == 0, run.stderr


def test_validate_and_the_hook_refuse_a_hand_written_secret(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    docker = {"auths": {"registry.example.com": {"auth": b64("ada:" + tok(ALNUM, 20))}}}
    where = {
        put(repo, record(what=ITEM_12[1][1])): ITEM_12[1][0],
        put(repo, record(why=ITEM_12[0][1])): ITEM_12[0][0],
        put(repo, record(tags=["ci", "hf_" + tok(string.ascii_letters, 34)])): "Hugging Face token",
        put(repo, record(extra=docker)): "registry auth (base64 user:password)",
        put(repo, record(extra={"MYSQL_PWD": tok(ALNUM, 12)})): "a value assigned to MYSQL_PWD",
    }
    honest = put(repo, record(what=ITEM_13[0], why="; ".join(ITEM_13[1:])))
    r = aide(repo, "validate", "--json")
    assert r.returncode == 1, r.stderr
    found = {p["path"]: p["message"] for p in r.json()["problems"]}
    assert found == {path: f"looks like a secret ({kind}); remove it"
                     for path, kind in where.items()}
    for path, kind in where.items():
        git(repo, "add", path)
        run = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                             text=True, env=BASE_ENV)
        assert run.returncode == 1 and f"looks like a secret ({kind})" in run.stderr, run.stderr
        git(repo, "rm", "-q", "--cached", path)
    git(repo, "add", honest)
    run = subprocess.run(["git", "commit", "-q", "-m", "honest"], cwd=repo, capture_output=True,
                         text=True, env=BASE_ENV)
    assert run.returncode == 0, run.stderr


#: (start, piece): a line of `start` then `piece` repeated to one megabyte, each built
#: to make a backtracking pattern rescan the line from every position.
MEGABYTE_LINES = [
    ("", "eyJ-"), ("", "a."), ("a://b:", ":"), ("a://", "b"), ("", "token: ab1 "), ("", "A_KEY "),
    ("", "_KEY"), ("", "x"), ("", "-"), ("-----BEGIN ", "A "), ("", "M"), ("MIIE", "A"),
    ("LS0tLS1CRUdJTi", "A"), ("", "Authorization: "), ("Authorization: Bearer ", "a"),
    ("", "?sig="), ("password", " "), ("", "password="), ("", "pass_"), ("", "secret:"),
    ('token="', "a"), ("", "A" * 25 + " "), ("", "abc1Q~"), ("", "0" * 32 + "-"), ("", "ab "),
    ("", "0" * 31 + "-us "), ("", "aws secret "), ("AccountKey=", "A"), ('"auth": "', "A"),
    ("", "arn:aws:x:secret:"), ("", "token is ab1 "), ("", "-u a:bcd "), ("", "sig="),
    ("", '{"Authorization": '),
    ("mysql ", "-p abc1 "), ("mysql|", "-pAb1c "), ("", "-p mysql "), ("", "--a-pass "),
    ("", "docker login -p ab "), ("", "pw is Ab1 "), ("", "pw: ab1 "), ("", "pass is "),
    ("", "pin:"), ("", "redis://:"), ("", "Z2hw"), ("", "A" * 28 + " "),
]
_JUDGE = """
import sys
from git_aide.core import secrets
line = sys.argv[1] + sys.argv[2] * (1_000_000 // len(sys.argv[2]))
secrets.find(line)
secrets.find_json({line[:100]: line, "what": [line]})
"""


@pytest.mark.parametrize(("start", "piece"), MEGABYTE_LINES)
def test_a_megabyte_line_is_judged_in_linear_time(start: str, piece: str) -> None:
    # A generous bound: linear time takes about a second here; a rescan from each
    # position takes hours.
    subprocess.run([sys.executable, "-c", _JUDGE, start, piece], check=True, timeout=20)


def test_validate_judges_a_megabyte_memory_without_hanging(repo: Path) -> None:
    put(repo, record(what="eyJ-" * 250_000, why="a." * 500_000))
    r = subprocess.run([*AIDE, "validate"], cwd=repo, capture_output=True, text=True,
                       env=BASE_ENV, timeout=60)
    assert r.returncode == 1 and "bytes; at most" in r.stderr + r.stdout


def test_the_benchmark_measures_the_corpus() -> None:
    bench = ROOT / "bench" / "secrets" / "run.py"
    r = subprocess.run([sys.executable, str(bench), "--json"], capture_output=True, text=True,
                       check=True, timeout=120)
    rows = {row["set"]: row for row in json.loads(r.stdout)["rows"]}
    assert [row["kind"] for row in rows.values()] == \
        ["false negatives", "false positives", "false positives"]
    assert all(row["samples"] > 200 for row in rows.values())
