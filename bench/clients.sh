#!/usr/bin/env bash
# The real agents against README's set-up: Claude Code, Gemini CLI, Codex CLI and the
# MCP Inspector, installed from npm into a scratch folder, each asked whether it reaches
# git-aide's MCP server in a fresh repository.
#
#   bash bench/clients.sh            # latest releases of the four packages
#   KEEP=1 bash bench/clients.sh     # keep the scratch folder to look around
#   CLIENTS_DIR=/some/dir bash ...   # reuse an npm install there (it is not removed)
#   INSTALL=dist/x.whl bash ...      # what pip installs (default: a copy of this checkout)
#
# Nothing is written into this checkout or the user's home: the clients get a home of
# their own (HOME, CODEX_HOME) in the scratch folder, where each one-time approval is
# made the way a user would make it without a terminal (the steps `git aide doctor`
# prints). None of the `mcp list` commands needs an account. Exit status 0 when every
# check passed; the last lines are the summary README shows.
set -u -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/git-aide-clients.XXXXXX")
cleanup() {
    if [ "${KEEP:-}" = 1 ]; then echo "kept $scratch" >&2; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

say() { printf '\n== %s\n' "$*"; }
results=()
pass() { results+=("PASS  $1"); }
fail() { results+=("FAIL  $1"); }

# -- the clients, from npm -----------------------------------------------------------------
npm_dir=${CLIENTS_DIR:-$scratch/npm}
packages=(@anthropic-ai/claude-code @google/gemini-cli @openai/codex
          @modelcontextprotocol/inspector)
if [ ! -x "$npm_dir/node_modules/.bin/claude" ]; then
    say "npm install --prefix $npm_dir ${packages[*]}"
    mkdir -p "$npm_dir"
    npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error "${packages[@]}" \
        >"$scratch/npm.log" 2>&1 || { tail -20 "$scratch/npm.log"; exit 1; }
fi
bin=$npm_dir/node_modules/.bin

# -- README's set-up: a regular install of this checkout, a fresh repository ---------------
if [ -z "${INSTALL:-}" ]; then
    # a copy of the checkout as it is (committed or not): pip's build/ and egg-info
    # stay out of the checkout
    mkdir "$scratch/src"
    git -C "$here" ls-files -co --exclude-standard -z \
        | tar -C "$here" --null --ignore-failed-read -T - -cf - 2>/dev/null \
        | tar -C "$scratch/src" -xf -
fi
install=${INSTALL:-$scratch/src}
say "pip install $install (a scratch virtual environment)"
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q "$install" >"$scratch/pip.log" 2>&1 \
    || { tail -20 "$scratch/pip.log"; exit 1; }

export HOME=$scratch/home CODEX_HOME=$scratch/home/.codex
mkdir -p "$HOME" "$CODEX_HOME"
export PATH=$scratch/venv/bin:$bin:$PATH
unset GEMINI_CLI_TRUST_WORKSPACE CLAUDE_CONFIG_DIR GEMINI_CLI_TRUSTED_FOLDERS_PATH MCP_TIMEOUT

repo=$scratch/repo
mkdir -p "$repo" && cd "$repo" || exit 1
git init -q -b main
git config user.name "Ada Tester"
git config user.email ada@example.com
git config commit.gpgsign false

say "versions"
echo "git-aide: $(git aide --version)"
echo "claude: $("$bin/claude" --version 2>&1)"
echo "gemini: $("$bin/gemini" --version 2>&1)"
echo "codex: $("$bin/codex" --version 2>/dev/null)"
echo "inspector: $(node -p "require('$npm_dir/node_modules/@modelcontextprotocol/inspector/package.json').version")"

say "git aide init --agent claude --agent gemini --agent codex"
if git aide init --agent claude --agent gemini --agent codex; then
    pass "git aide init --agent claude --agent gemini --agent codex"
else
    fail "git aide init --agent claude --agent gemini --agent codex (the server cannot start)"
fi
git add -A && git commit -qm "git-aide for Claude Code, Gemini CLI and Codex"

say "git aide doctor (before the one-time approvals)"
git aide doctor | grep -E '^(ok|note|problem): (claude|gemini|codex):'

# -- each client's one-time approval, as doctor says to make it -----------------------------
say "approvals"
printf '{\n  "enabledMcpjsonServers": ["git-aide"]\n}\n' >.claude/settings.local.json
echo "Claude Code: .claude/settings.local.json approves git-aide"
mkdir -p "$HOME/.gemini"
printf '{\n  "%s": "TRUST_FOLDER"\n}\n' "$repo" >"$HOME/.gemini/trustedFolders.json"
echo "Gemini CLI: ~/.gemini/trustedFolders.json trusts $repo"
printf '[projects."%s"]\ntrust_level = "trusted"\n' "$repo" >>"$CODEX_HOME/config.toml"
echo "Codex: ~/.codex/config.toml trusts $repo"

say "git aide doctor (after)"
git aide doctor | grep -E '^(ok|note|problem): (claude|gemini|codex):'

# -- what each client says ------------------------------------------------------------------
check() {  # check NAME PATTERN COMMAND...: run it, show its output, look for PATTERN
    local name=$1 pattern=$2
    shift 2
    say "$*"
    local out
    out=$(timeout 180 "$@" 2>&1)
    printf '%s\n' "$out" | head -12
    local n
    n=$(printf '%s\n' "$out" | wc -l)
    [ "$n" -le 12 ] || echo "... ($((n - 12)) more lines)"
    if printf '%s\n' "$out" | grep -Eq "$pattern"; then pass "$name"; else fail "$name"; fi
}
check "claude mcp list: git-aide connected" 'git-aide: .*Connected' "$bin/claude" mcp list
check "gemini mcp list: git-aide connected" 'git-aide: .*- Connected' "$bin/gemini" mcp list
check "codex mcp list: git-aide enabled" '^git-aide +git-aide +mcp .*enabled' \
    "$bin/codex" mcp list
check "inspector: tools/list lists aide_recall" '"name": "aide_recall"' \
    "$bin/mcp-inspector" --cli git-aide mcp --method tools/list
check "inspector: tools/call aide_remember" '"isError": false' \
    "$bin/mcp-inspector" --cli git-aide mcp --method tools/call --tool-name aide_remember \
    --tool-arg "what=Run the tests with pytest -q" --tool-arg layer=technical
check "inspector: tools/call aide_recall finds it" 'pytest -q' \
    "$bin/mcp-inspector" --cli git-aide mcp --method tools/call --tool-name aide_recall \
    --tool-arg "query=tests"

say "summary"
printf '%s\n' "${results[@]}"
for line in "${results[@]}"; do
    case $line in FAIL*) exit 1 ;; esac
done
exit 0
