"""Patterns of text that looks like a credential, so that none is ever committed as a memory.

Two kinds: the shapes of well-known tokens (each specific enough that ordinary prose
and git object ids do not trip it, with passwords on a command's flags and after the
word naming them), and assignments of a password, secret, token or key to a value
(`DB_PASSWORD=...`, `db password: ...`, `{"api_key": "..."}`), in text and in the keys of
JSON objects; last, the token shapes again in runs of base64 that decode to text. An
assignment is judged by its value as well as its name: placeholders, references
(`vault:...`, an ARN, `${VAR}`, `settings.X`), paths and, for a key or a token,
identifiers (`PARTITION_KEY=tenant_id`) are not secrets; machine-made values are, and for
a password or a secret any other value too.

Every pattern runs in time linear in the text: a pattern that spans a run of characters
and then needs something after it starts only where such a run starts (a lookbehind
for the run's own class), so a long line is never rescanned from each of its positions.

Longer than most modules, on purpose: 150 of its lines are the table of token shapes,
and the rest is one judgment (is this value a secret?) that bench/secrets/ measures as a
whole; splitting the table from its checks would only scatter that judgment.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

#: (kind, pattern, hints): the kind is what the error message names; the hints are
#: lowercase fragments of which every match holds one, so that a text holding none skips
#: the pattern (a substring test costs a fraction of a regex scan; a pattern that opens
#: with a literal needs none). A kind in `_CHECKS` counts only where its check accepts
#: the match's value.
_SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("private key block",
     r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:",
     ("private key", "putty-user-key-file-")),
    # A PEM file base64-encoded again, as a Kubernetes secret's data holds it.
    ("private key in base64", r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}",
     ("ls0tls1crudjti",)),
    # The base64 body of a key without its BEGIN line: DER that opens with a version
    # number (PKCS#1, PKCS#8, SEC1, PKCS#12), or OpenSSH's own format. (The M comes
    # first so that the search skips from M to M at C speed.)
    ("private key without its header", r"M(?<![A-Za-z0-9+/]M)[A-Za-z0-9+/]{59}", ()),
    ("private key without its header", r"(?<![A-Za-z0-9+/])b3BlbnNzaC1rZXktdjE",
     ("b3blbnnzac1rzxktdje",)),
    ("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
     ("akia", "asia", "abia", "acca", "a3t")),
    ("AWS secret access key",
     r"(?i)aws.{0,20}?(?:secret|private).{0,20}?[:=]\s*[\"']?[A-Za-z0-9/+=]{40}\b", ("aws",)),
    ("Azure account key",
     r"(?i)\b(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<value>[A-Za-z0-9+/]{20,}={0,2})",
     ("accountkey", "sharedaccesskey")),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("GitLab token",
     r"\bgl(?:pat|dt|ptt|rt|cbt|agent|oas|soat|ft|imt|ffct)-[A-Za-z0-9_\-]{20,}",
     ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glagent-", "gloas-", "glsoat-", "glft-",
      "glimt-", "glffct-")),
    ("Slack token", r"\b(?:xox[abposre]|xapp)-[A-Za-z0-9.-]{10,}", ("xox", "xapp-")),
    ("Slack webhook",
     r"hooks\.slack\.com/(?:services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/\w+"
     r"|(?:workflows|triggers)/[A-Za-z0-9+/]{20,})", ()),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}", ("pypi-",)),
    ("SendGrid API key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", ("sg.",)),
    ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}\b", ("aiza",)),
    ("Google OAuth client secret", r"\bGOCSPX-[A-Za-z0-9_\-]{28}", ("gocspx-",)),
    ("Stripe secret key", r"\b[sr]k_(?:live|test|prod)_[0-9A-Za-z]{10,}",
     ("k_live_", "k_test_", "k_prod_")),
    ("AI provider API key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{32,}", ("sk-",)),
    # Mixed case, as the tokens are: 34 lowercase letters after hf_ is a C identifier.
    ("Hugging Face token",
     r"\b(?:hf|api_org)_(?=[A-Za-z0-9]{0,33}[A-Z])(?=[A-Za-z0-9]{0,33}[a-z])[A-Za-z0-9]{34}\b",
     ("hf_", "api_org_")),
    ("DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("_v1_",)),
    ("Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ("shp",)),
    ("Twilio API key", r"\bSK[0-9a-f]{32}\b", ("sk",)),
    ("Mailgun API key", r"\b(?:pub)?key-[0-9a-f]{32}\b", ("key-",)),
    # The newer shape, 32-8-8 hex digits, found from its first dash.
    ("Mailgun API key", r"-(?<=\b[0-9a-f]{32}-)[0-9a-f]{8}-[0-9a-f]{8}\b", ()),
    ("Databricks token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    # Service tokens with a prefix of their own, after gitleaks' and trufflehog's rules.
    ("Azure AD client secret",
     r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
     ("q~",)),
    ("Alibaba Cloud access key id", r"\bLTAI[A-Za-z0-9]{20}\b", ("ltai",)),
    ("age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ()),
    ("1Password secret", r"\bops_eyJ[A-Za-z0-9+/]{100,}", ("ops_eyj",)),
    ("1Password secret",
     r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
     ("a3-",)),
    ("Atlassian API token", r"\bATATT3[A-Za-z0-9_\-=]{100,}", ("atatt3",)),
    ("Clojars token", r"(?i)\bCLOJARS_[a-z0-9]{60}", ("clojars_",)),
    ("Cloudflare origin CA key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}", ("v1.0-",)),
    ("Doppler token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}", ("dp.",)),
    ("Dropbox token", r"\bsl\.[A-Za-z0-9\-=_]{130,}", ("sl.",)),
    ("Dynatrace token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", ("dt0c01.",)),
    ("EasyPost API key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", ("ezak", "eztk")),
    ("Facebook access token", r"\bEAA[CM][A-Za-z0-9]{100,}", ("eaa",)),
    ("Fly.io token", r"\b(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,})", ("fo1_", "fm")),
    ("Frame.io token", r"\bfio-u-[A-Za-z0-9\-_=]{64}", ("fio-u-",)),
    ("Grafana token",
     r"\b(?:eyJrIjoi[A-Za-z0-9]{70,}|glc_[A-Za-z0-9+/]{32,}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})",
     ("eyjrijoi", "glc_", "glsa_")),
    ("Groq API key", r"\bgsk_[A-Za-z0-9]{52}\b", ("gsk_",)),
    ("Harness token", r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
     ("pat.", "sat.")),
    ("HashiCorp Vault token", r"\bhv[sb]\.[\w-]{90,}", ("hvs.", "hvb.")),
    ("Heroku API key", r"\bHRKU-AA[0-9a-zA-Z_-]{58}", ("hrku-",)),
    ("Infracost API key", r"\bico-[a-zA-Z0-9]{32}\b", ("ico-",)),
    ("Linear API key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",)),
    ("New Relic API key", r"\bNRAK-[A-Z0-9]{27}\b", ("nrak-",)),
    ("Mailchimp API key", r"\b[0-9a-f]{32}-us\d{1,2}\b", ("-us",)),
    ("Mapbox secret token", r"\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}", ("sk.eyj",)),
    ("Notion token", r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b",
     ("ntn_", "secret_")),
    ("Octopus Deploy API key", r"\bAPI-[A-Z0-9]{26}\b", ("api-",)),
    ("Perplexity API key", r"\bpplx-[A-Za-z0-9]{48}\b", ("pplx-",)),
    ("PlanetScale token", r"\bpscale_(?:tkn|pw|oauth)_[\w=.\-]{32,64}", ("pscale_",)),
    ("Postman API key", r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b", ("pmak-",)),
    ("Prefect API key", r"\bpnu_[A-Za-z0-9]{36}\b", ("pnu_",)),
    ("Pulumi token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    ("ReadMe API key", r"\brdme_[a-z0-9]{70}\b", ("rdme_",)),
    ("Replicate API token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    ("RubyGems API key", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    ("Scalingo token", r"\btk-us-[\w-]{48}\b", ("tk-us-",)),
    ("Brevo (Sendinblue) API key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", ("xkeysib-",)),
    ("Sentry token", r"\bsntry[su]_[A-Za-z0-9+/=_]{60,}", ("sntry",)),
    ("Shippo API key", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b", ("shippo_",)),
    ("Sourcegraph token", r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b", ("sgp_",)),
    ("Square token", r"\b(?:EAAA|sq0atp-|sq0csp-)[\w-]{22,60}", ("eaaa", "sq0")),
    ("Supabase token", r"\bsbp_[a-f0-9]{40}\b", ("sbp_",)),
    ("Tailscale key", r"\btskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}", ("tskey-",)),
    ("Telegram bot token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}\b", (":aa",)),
    ("Terraform Cloud token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9\-_=]{60,70}",
     ("atlasv1",)),
    ("X (Twitter) bearer token", r"\bA{20,}[A-Za-z0-9%]{30,}", ("aaaaaaaaaaaaaaaaaaaa",)),
    ("xAI API key", r"\bxai-[A-Za-z0-9]{80}\b", ("xai-",)),
    ("Django secret key", r"\bdjango-insecure-[^\s\"'`]{40,}", ("django-insecure-",)),
    ("JSON web token",
     r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
     ("eyj",)),
    # The user may be empty, as in the usual Redis URL (redis://:password@host).
    ("password in a URL",
     r"(?<![a-zA-Z0-9+.\-])[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]*:(?P<value>[^/\s@]{3,})@[^\s/]+",
     ("://",)),
    ("Authorization header",
     r"(?i)\b(?:Proxy-)?Authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
     r"(?:(?P<scheme>Bearer|Basic|Token|Api-Token)[ \t]+)?(?P<value>[A-Za-z0-9._~+/=-]{8,})",
     ("authorization",)),
    ("registry auth (base64 user:password)",
     r"(?i)(?<![A-Za-z0-9])[\"']?_?auth[\"']?[ \t]*[:=][ \t]*[\"']?"
     r"(?P<value>[A-Za-z0-9+/]{6,}={0,2})",
     ("auth",)),
    # curl's -u user:password, the user possibly empty (other commands' -u takes a user,
    # or uid:gid).
    ("password in a curl command",
     r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']*:(?P<value>[^\s\"']{3,})",
     ("-u", "--user")),
    # A command's password flag and its value: mysql -p<password>, sshpass -p, docker
    # login -p / --password, redis-cli -a, sqlcmd -P, ldapsearch -w. Which command owns a
    # flag decides (-p is a port to ssh), so the pattern reads the ends of commands, the
    # commands named and the flags in one pass, and _cli_password judges them in order.
    ("password on a command line",
     r"(?P<end>[\n|;&])"
     r"|(?<![\w.\-])(?P<command>(?:mysql|mariadb|mongo|ldap)[a-z_]*|sshpass|docker|podman"
     r"|nerdctl|buildah|skopeo|oras|helm|crane|regctl|az|cf|twine|redis-cli|sqlcmd|bcp|wget"
     r"|login)(?![\w\-])"
     r"|(?<![\w-])(?P<flag>-[pPaw]|--pass(?:word|wd)?|--[a-z]+(?:-[a-z]+)*-pass(?:word|wd)?)"
     r"(?P<sep>[ \t]+|=|(?<=-p)(?=[^\s-]))(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`;|&<>]+)",
     ("-p", "-a", "-w")),
    # A word naming a password, then the password: "smtp pass X", "VPN passcode: X",
    # "root pw is X" (_named_password judges X strictly: a PIN pins versions too).
    ("password after the word naming it",
     r"(?i)(?<![\w.\-])(?:pass(?:word|wd|phrase|code)?|pwd?|pin)"
     r"(?:[ \t]+is[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)[\"']?(?P<value>[^\s\"'`,;()<>]{8,})",
     ("pass", "pw", "pin")),
    ("signed URL signature",
     r"(?<![\w.\-])(?:sig|X-Amz-Signature|X-Goog-Signature)=(?P<value>[A-Za-z0-9%+/_.\-]{16,})",
     ("sig=", "signature=")),
)
#: Each shape compiled once, with its kind and hints.
_COMPILED = tuple((kind, re.compile(source), hints) for kind, source, hints in _SHAPES)
#: (kind, pattern) pairs: the token shapes `find` knows (a kind may have several).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((k, p) for k, p, _ in _COMPILED)


#: What names a credential, at the end of a name: the word itself, or ending it
#: (DB_PASSWORD, PGPASSWORD, client_secret, auth_token, MYSQL_PWD, DB_PASS, DB_PW,
#: VPN_PASSCODE); a "key" only as a name's own last word (api_key, PARTITION_KEY, apiKey),
#: never inside a word (monkey, bypass).
_KEYWORDS = (r"(?i:passwd|password|passphrase|passcode|secret|token|credentials?|apikey"
             r"|(?:api|access|secret|private|auth|signing|encryption|master|client)key"
             r"|(?<![A-Za-z0-9])(?:pass|pwd?)|[_ -]key)"
             r"|(?<=[a-z0-9])(?:Key|Pass|Pwd?)")
#: Names whose every value that is not a placeholder, reference or path is a secret; the
#: rest (keys, tokens, credentials) hold identifiers too (`credentials: "include"`).
_STRONG = re.compile(r"(?i)pass|pwd|secret|(?<![a-z])pw(?![a-z])")
#: Names of what is published by design (PUBLIC_KEY, STRIPE_PUBLISHABLE_KEY).
_PUBLIC = re.compile(r"(?i)public|publishable")
#: What separates a name from its value: `=`, `:`, `:=` or `=>`, and in prose " is "
#: ("the VPN password is ..."); `==`, `!=`, `::` and `://` are not assignments.
_SEP = re.compile(r":=|=>|=(?!=)|:(?![:/])| is ")
#: Read in the reversed text from just before a separator: blanks, an optional closing
#: quote, the name (a run of name characters), and the word before it after one blank
#: (for "api key: ..."). Bounded, so a long run costs no more than a short one.
_NAME_BEFORE = re.compile(
    r"[ \t]{0,32}[\"']?([A-Za-z0-9_.\-]{1,100})(?: ([A-Za-z]{1,20})(?![\w.\-]))?")
#: After a separator: blanks, then the value (quoted, or up to the next blank or
#: punctuation).
_VALUE = re.compile(r"(?P<gap>[ \t]*)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`,;)]*)")
#: Fragments of which an assignment's name holds one (lowercase).
_NAME_HINTS = ("pass", "pw", "secret", "token", "credential", "key")
#: A name (in text, or a JSON key) that ends with a credential's word.
_NAME_END = re.compile(r"(?:" + _KEYWORDS + r")\Z")
#: What may follow a value for it to end its line ("db password: swordfish.").
_LINE_END = re.compile(r"[ \t.]*(?:\n|\Z)")
#: A dotted name such as settings.DB_PASSWORD: a reference, not a value.
_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z")
#: An environment variable's name (POSTGRES_PASSWORD), the usual right side of a
#: reference written without its `$`.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z")
#: Where a secret manager or a config system is named instead of the secret itself.
_REFERENCE_PREFIX = re.compile(
    r"(?i)(?:arn:aws[a-z-]*:|(?:vault|ssm|secretsmanager|env|keyvault|azure-?keyvault|kv|akv"
    r"|doppler|infisical|bws|file|gcp-?sm|aws-?sm|sm|op):(?://)?"
    r"|projects/[^/\s]+/secrets/|[\w.\-/]+:latest\Z)")
#: Values that stand for a credential without being one.
_PLACEHOLDER_WORDS = frozenset({
    "changeme", "change-me", "change_me", "changeit", "redacted", "placeholder", "none",
    "null", "nil", "true", "false", "yes", "no", "on", "off", "required", "optional",
    "string", "str", "int", "bool", "bytes", "text", "any", "secretstr", "secret", "password",
    "passwd", "pass", "pwd", "token", "key", "example", "dummy", "undefined", "unset", "empty",
    "hidden", "masked", "todo", "tbd", "env", "fixme", "replace_me", "replace-me",
    "replaceme", "your-password", "yourpassword", "your_password",
})
#: A run of letters and digits: the parts a value is judged by.
_RUN = re.compile(r"[A-Za-z0-9]+")
#: A word, with an optional number after it (users, python3, sha256, ed25519).
_WORD_SHAPE = re.compile(r"([A-Za-z]+)([0-9]*)\Z")
#: The humps of a camelCase or PascalCase word (XMLHttpRequest: XML, Http, Request).
_HUMP = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _placeholder(value: str) -> bool:
    """Whether a value stands in for a credential (***, <...>, ${VAR}, $VAR, changeme,
    xxxx, your-token-here, empty, a call such as os.environ[...]) rather than being one."""
    v = value.strip()
    if not v or set(v) <= set("*xX.•#?-_") or len(set(v.lower())) <= 2:
        return True
    if v[0] in "$<{[(%!" or "..." in v or "…" in v or "(" in v or "[" in v:
        return True
    low = v.lower()
    return low in _PLACEHOLDER_WORDS or low.startswith("your")


def _reference(value: str) -> bool:
    """Whether a value names where a secret is kept instead of holding it: a secret
    manager's reference (`vault:secret/data/prod#api_key`, an ARN), a dotted name
    (`settings.DB_PASSWORD`) or an environment variable's name."""
    v = value.strip()
    if _REFERENCE_PREFIX.match(v) or _ENV_NAME.match(v):
        return True
    # Dotted words (settings.DB_PASSWORD), not dotted random parts (a Discord token).
    return bool(_REFERENCE.match(v)) and _plain(v)


def _word(run: str) -> bool:
    """Whether a run of letters and digits reads as a word or a number a person chose
    (id, created_at's parts, users_v2's, XMLHttpRequest, sha256, 2024) rather than as
    something a machine drew (abcd1234efgh, x9f8e7d6c5, 0123abcd, QwErTyUiOp)."""
    if len(run) <= 4:
        return True
    if run.isdigit():
        return len(run) <= 8
    shape = _WORD_SHAPE.match(run)
    if shape is None:
        return False
    letters, digits = shape.groups()
    if (len(digits) > 3 and len(letters) > 3) or (len(digits) > 1 and len(letters) > 4):
        return False
    if letters.islower() or letters.isupper():
        return True
    humps = _HUMP.findall(letters)
    return sum(map(len, humps)) == len(letters) and len(letters) >= 2.5 * len(humps)


def _plain(value: str) -> bool:
    """Whether a value is made of words a person chose: an identifier (tenant_id,
    session:user_id, ON), a path (uploads/{user_id}/avatar.png) or a phrase."""
    runs = _RUN.findall(value)
    return bool(runs) and all(_word(r) for r in runs)


def _random(value: str) -> bool:
    """Whether a word looks machine-made (letters and digits mixed, or long and not a word)."""
    if len(value) < 6:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return (has_digit and has_alpha) or (len(value) >= 16 and not value.isalpha())


def _secret_value(name: str, value: str) -> bool:
    """Whether `value`, assigned to the credential name `name`, is a secret."""
    v = value.strip()
    if len(v) < 3 or _PUBLIC.search(name) or _placeholder(v) or _reference(v):
        return False
    if _plain(v):
        # A key or a token named by words is an identifier (PRIMARY_KEY=id); a
        # password in words is still a password, but a path is where one is kept.
        return bool(_STRONG.search(name)) and "/" not in v
    return True


def _assignment(text: str, low: str) -> str | None:
    """The name a credential is assigned to in `text` (`low` is it in lowercase), or None.

    Each separator is looked at once, and the name before it read backwards: a scan
    from each start of a name would go through every keyword at every position."""
    if not any(hint in low for hint in _NAME_HINTS):
        return None
    backwards = text[::-1]
    size = len(text)
    done = 0
    for sep in _SEP.finditer(text):
        if sep.start() < done:  # inside the value of the last assignment
            continue
        before = _NAME_BEFORE.match(backwards, size - sep.start())
        if before is None:
            continue
        name, start = before[1][::-1], before.end(1)
        if not _NAME_END.search(name):
            if not before[2]:
                continue
            name, start = f"{before[2][::-1]} {name}", before.end()
            if not _NAME_END.search(name):
                continue
        if start < size and backwards[start] == ":":  # arn:aws:...:secret:name
            continue
        m = _VALUE.match(text, sep.end())
        assert m is not None  # every part of _VALUE may be empty
        done = m.end()
        raw = m["value"]
        quoted = len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]
        value = raw[1:-1] if quoted else raw.rstrip(".:")
        if not _secret_value(name, value):
            continue
        # `NAME=value` and quoted values are assignments; `name: word` and `name = word`
        # are often prose ("the password: field is required"), so they count only when the
        # word looks machine-made or ends the line ("db password: swordfish"); "the
        # password is hashed" only when it looks machine-made.
        if sep.group() == " is ":
            if _random(value):
                return name
            continue
        if quoted or (sep.group() != ":" and not m["gap"]):
            return name
        if _random(value) or (len(value) >= 6 and _LINE_END.match(text, m.end())):
            return name
    return None


def _b64decode(text: str) -> bytes | None:
    """The bytes base64 `text` stands for (padding added as needed), or None."""
    import binascii

    body = text.rstrip("=")
    body = body[:len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    try:
        return binascii.a2b_base64(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return None


def _user_password(value: str) -> bool:
    """Whether base64 `value` decodes to `user:password` (what HTTP Basic, Docker's
    `auth` and npm's `_auth` hold), with a password that is not a placeholder."""
    raw = _b64decode(value)
    if raw is None or not raw.isascii():
        return False
    user, colon, password = raw.decode("ascii").partition(":")
    return (bool(colon) and user.isprintable() and " " not in user and password.isprintable()
            and len(password) >= 3 and not _placeholder(password))


def _pem_in_base64(m: re.Match[str]) -> bool:
    """Whether the base64 PEM file found holds a private key (not a certificate)."""
    head = m.group()[:96]
    raw = _b64decode(head[:len(head) - len(head) % 4])
    return raw is not None and b"PRIVATE KEY" in raw


def _key_body(m: re.Match[str]) -> bool:
    """Whether the base64 found opens a private key: OpenSSH's magic, or a DER SEQUENCE
    whose first element is a small version INTEGER followed by an INTEGER, OCTET STRING
    or SEQUENCE. Public keys and certificates open with a SEQUENCE instead."""
    text = m.group()
    if text.startswith("b3Bl"):
        return True
    raw = _b64decode(text[:16])
    if raw is None or len(raw) < 12 or raw[0] != 0x30:
        return False
    size = raw[1]
    at = 2 if size < 0x80 else 2 + (size & 0x7F)
    if size == 0x80 or at > 5:
        return False
    return (raw[at:at + 2] == b"\x02\x01" and raw[at + 2] in (0, 1, 3)
            and raw[at + 3] in (0x02, 0x04, 0x30))


def _machine_made(m: re.Match[str]) -> bool:
    """Whether the match's value is machine-made: not a placeholder, not words."""
    value = m["value"]
    return not _placeholder(value) and not _plain(value)


def _authorization(m: re.Match[str]) -> bool:
    """Whether an Authorization header carries a credential: Basic with a base64
    user:password, or another scheme with a machine-made token (not `Bearer <token>`,
    `Bearer $TOKEN` or prose such as `Authorization: Bearer header`)."""
    if (m["scheme"] or "").lower() == "basic":
        return _user_password(m["value"])
    return _machine_made(m)


def _curl_password(m: re.Match[str]) -> bool:
    """Whether `-u user:password` is curl's (the command is named just before it) and
    the password is not a placeholder (`$PASS`, `<password>`, `${{ secrets.X }}`)."""
    before = m.string[max(0, m.start() - 300):m.start()]
    return "curl" in before and not _placeholder(m["value"])


#: Command families named by their prefix (mysqldump, mariadb-dump, mongosh, ldapsearch).
_FAMILIES = ("mysql", "mariadb", "mongo", "ldap")
#: Which commands take their password on each short flag: -p stuck to its value is
#: mysql's (and sshpass's); -p before a value is a port or a project to others, and to a
#: registry client outside `login`.
_ATTACHED = frozenset({"mysql", "mariadb", "sshpass"})
_SHORT_FLAGS = {
    "-p": frozenset({"sshpass", "mongo", "twine", "cf", "az"}),
    "-a": frozenset({"redis-cli"}),
    "-P": frozenset({"sqlcmd", "bcp"}),
    "-w": frozenset({"ldap"}),
}
_REGISTRY_CLIENTS = frozenset({"docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "helm",
                               "crane", "regctl"})


def _cli_password(tokens: Iterator[re.Match[str]]) -> bool:
    """Whether a command is given its password on a flag. The tokens are the ends of
    commands (a line, a pipe, `;`, `&&`), the commands named and the flags with their
    values, in their order: a flag belongs to the commands named before it since the
    last end."""
    named: set[str] = set()
    for token in tokens:
        if token["end"]:
            named.clear()
        elif token["command"]:
            word = token["command"]
            named.add(next((f for f in _FAMILIES if word.startswith(f)), word))
        elif _flag_password(token, named):
            return True
    return False


def _flag_password(m: re.Match[str], named: set[str]) -> bool:
    """Whether a password flag's value is a password given to one of the commands
    `named` that takes it there (not a placeholder, a port, a path, or the word after a
    flag named in prose)."""
    flag, raw = m["flag"], m["value"]
    quoted = len(raw) >= 2 and raw[0] in "\"'" and raw[-1] == raw[0]
    value = raw[1:-1] if quoted else raw
    if len(value) < 3 or _placeholder(value) or _reference(value):
        return False
    if flag.startswith("--"):
        # Many commands take --password; with none of those named, only a machine-made value.
        if not named:
            return _random(value) and not _plain(value)
    elif not m["sep"]:  # -p<password>: mysql's or sshpass's
        return bool(named & _ATTACHED) and any(c.isalpha() for c in value)
    elif not (named & _SHORT_FLAGS[flag]
              or (flag == "-p" and "login" in named and named & _REGISTRY_CLIENTS)):
        return False
    # The flag is the command's password: anything quoted, or anything but a path and
    # lowercase words without a digit ("-p is insecure", "-p token-from-keyring").
    if quoted or not _plain(value):
        return True
    return "/" not in value and not (value.islower() and not any(c.isdigit() for c in value))


def _classes(value: str) -> int:
    """How many of lowercase letters, capitals, digits and other characters `value` holds."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def _named_password(m: re.Match[str]) -> bool:
    """Whether the word after a password's name looks like a password: eight characters
    or more of three classes, not words, a path, code (a dotted name, a call, `code`), a
    placeholder or a reference ("pass the --verbose flag", "PIN the version to 1.2.3",
    "pin: <commit id>", "pass np.float32", "password = base64.b64decode(x)" do not)."""
    value = m["value"].rstrip(".:")
    if m.string[m.end():m.end() + 1] in ("(", "`"):  # the whole run: nothing of it was left
        return False
    return (len(value) >= 8 and _classes(value) >= 3 and "/" not in value and value[0] != "-"
            and not _REFERENCE.match(value) and not _placeholder(value)
            and not _reference(value) and not _plain(value))


#: The judge of all of a kind's matches in their order, for a kind whose match alone says
#: too little and whose check needs the matches before it.
_SCANS: dict[str, Callable[[Iterator[re.Match[str]]], bool]] = {
    "password on a command line": _cli_password,
}
#: The check a kind's match must pass, for kinds whose shape alone says too little.
_CHECKS: dict[str, Callable[[re.Match[str]], bool]] = {
    "private key in base64": _pem_in_base64,
    "private key without its header": _key_body,
    "Azure account key": lambda m: not _placeholder(m["value"]),
    "password in a URL": lambda m: not _placeholder(m["value"]),
    "Authorization header": _authorization,
    "registry auth (base64 user:password)": lambda m: _user_password(m["value"]),
    "password in a curl command": _curl_password,
    "password after the word naming it": _named_password,
    "signed URL signature": _machine_made,
}


#: Kinds looked for after the assignments, which name what they find more precisely
#: ("a value assigned to DB_PASS" rather than a password after the word naming it).
_LATE = frozenset({"password after the word naming it"})
#: A run of base64 long enough to hold a token (28 characters, 21 bytes), from its start.
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{28,}={0,2}")
#: A control character other than a tab or a line break: what text does not hold.
_BINARY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _shape(text: str, low: str, late: bool = False) -> str | None:
    """The kind of the first token shape found in `text` (`low` is it in lowercase):
    of the kinds in `_LATE` if `late`, else of the others."""
    for kind, pattern, hints in _COMPILED:
        if (kind in _LATE) != late or (hints and not any(hint in low for hint in hints)):
            continue
        check = _CHECKS.get(kind)
        scan = _SCANS.get(kind)
        if scan is not None:
            if scan(pattern.finditer(text)):
                return kind
        elif check is None:
            if pattern.search(text):
                return kind
        elif any(check(m) for m in pattern.finditer(text)):
            return kind
    return None


def _in_base64(text: str) -> str | None:
    """The kind of the first token shape in a run of base64 that decodes to text (a
    GitHub token wrapped in base64, bare or in a header), or None. Hashes and random
    bytes decode to binary and are skipped after one C-speed decode."""
    for run in _BASE64_RUN.finditer(text):
        raw = _b64decode(run.group())
        if raw is None or not raw.isascii():
            continue
        decoded = raw.decode("ascii")
        if _BINARY.search(decoded) is None:
            low = decoded.lower()
            kind = _shape(decoded, low) or _shape(decoded, low, late=True)
            if kind:
                return f"{kind}, base64-encoded"
    return None


def find(text: str) -> str | None:
    """The kind of the first secret-looking thing in `text`, or None."""
    low = text.lower()
    kind = _shape(text, low)
    if kind:
        return kind
    name = _assignment(text, low)
    if name:
        return f"a value assigned to {name}"
    return _shape(text, low, late=True) or _in_base64(text)


def _pair(key: str, value: str) -> str | None:
    """The kind of secret a JSON object holds in `value` under `key`, or None."""
    if _NAME_END.search(key):
        # A value with blanks in it is prose about the credential, not the credential.
        if not any(c.isspace() for c in value.strip()) and _secret_value(key, value):
            return f"a value assigned to {key}"
    elif key.lower() in ("auth", "_auth") and _user_password(value.strip()):
        return "registry auth (base64 user:password)"
    elif key.lower() in ("authorization", "proxy-authorization"):
        # A header kept as {"Authorization": "Bearer ..."}: judged as the header line.
        return find(f"{key}: {value}")
    return None


def find_json(value: Any) -> str | None:
    """The kind of the first secret anywhere in a JSON value: in its strings, in the keys
    of its objects, and in a string value whose key names a credential."""
    if isinstance(value, str):
        return find(value)
    if isinstance(value, list):
        for v in value:
            kind = find_json(v)
            if kind:
                return kind
    elif isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            kind = find(key) or (_pair(key, v) if isinstance(v, str) else None)
            if kind:
                return kind
            kind = find_json(v)
            if kind:
                return kind
    return None
