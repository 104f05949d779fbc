"""List the shapes of well-known tokens (after gitleaks', detect-secrets' and
trufflehog's rules): the table the secret scanner (secrets.py) reads first.

Each shape is specific enough that ordinary prose and git object ids do not trip it, and
runs in time linear in the text: a pattern that spans a run of characters and then needs
something after it starts only where such a run starts (a lookbehind for the run's own
class), so a long line is never rescanned from each of its positions. A kind whose
match alone says too little has a check in secret_checks.py.
"""

from __future__ import annotations

import re

#: (kind, pattern, hints): the kind is what the error message names; the hints are
#: lowercase fragments of which every match holds one, so that a text holding none skips
#: the pattern (a substring test costs a fraction of a regex scan; a pattern that opens
#: with a literal needs none). A kind in `secret_checks.CHECKS` counts only where its check
#: accepts the match's value.
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
    # commands named and the flags in one pass, and secret_checks.cli_password judges them in order.
    ("password on a command line",
     r"(?P<end>[\n|;&])"
     r"|(?<![\w.\-])(?P<command>(?:mysql|mariadb|mongo|ldap)[a-z_]*|sshpass|docker|podman"
     r"|nerdctl|buildah|skopeo|oras|helm|crane|regctl|az|cf|twine|redis-cli|sqlcmd|bcp|wget"
     r"|login)(?![\w\-])"
     r"|(?<![\w-])(?P<flag>-[pPaw]|--pass(?:word|wd)?|--[a-z]+(?:-[a-z]+)*-pass(?:word|wd)?)"
     r"(?P<sep>[ \t]+|=|(?<=-p)(?=[^\s-]))(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`;|&<>]+)",
     ("-p", "-a", "-w")),
    # A word naming a password, then the password: "smtp pass X", "VPN passcode: X",
    # "root pw is X" (secret_checks.named_password judges X strictly: a PIN pins versions too).
    ("password after the word naming it",
     r"(?i)(?<![\w.\-])(?:pass(?:word|wd|phrase|code)?|pwd?|pin)"
     r"(?:[ \t]+is[ \t]+|[ \t]*[:=][ \t]*|[ \t]+)[\"']?(?P<value>[^\s\"'`,;()<>]{8,})",
     ("pass", "pw", "pin")),
    ("signed URL signature",
     r"(?<![\w.\-])(?:sig|X-Amz-Signature|X-Goog-Signature)=(?P<value>[A-Za-z0-9%+/_.\-]{16,})",
     ("sig=", "signature=")),
)
#: Each shape compiled once, with its kind and hints.
COMPILED = tuple((kind, re.compile(source), hints) for kind, source, hints in _SHAPES)
#: (kind, pattern) pairs: the token shapes `secrets.find` knows (a kind may have several).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((k, p) for k, p, _ in COMPILED)
