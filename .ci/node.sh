# Source this file (`. .ci/node.sh`) from the project root: when the machine's Node.js is older than the
# project needs (package.json `engines.node`, 22.12), it installs Node.js 24 LTS from the npm registry (the
# `node` package) into a cache folder once, and puts it first on PATH, so npm runs under it too. Nothing of
# the machine's own Node.js changes.
_ci_node_ok() {
  node -e '
    const [want, wantMinor] = /(\d+)\.(\d+)/.exec(require("./package.json").engines.node).slice(1).map(Number);
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit(major > want || (major === want && minor >= wantMinor) ? 0 : 1);' 2>/dev/null
}
if ! _ci_node_ok; then
  _ci_node_dir=${CI_NODE_DIR:-$HOME/.cache/domainkit-node-24}
  if [ ! -x "$_ci_node_dir/bin/node" ]; then
    echo "Node.js $(node --version 2>/dev/null || echo 'missing') is too old here: installing Node.js 24 from the npm registry"
    npm install -g --prefix "$_ci_node_dir" node@24 --no-audit --no-fund >/dev/null
  fi
  export PATH="$_ci_node_dir/bin:$PATH"
  _ci_node_ok || { echo "could not provide Node.js 24 (from the npm registry, into $_ci_node_dir)" >&2; return 1; }
fi
echo "Node.js $(node --version), npm $(npm --version)"
unset -f _ci_node_ok
unset _ci_node_dir
