#!/usr/bin/env bash
# Copies the nlohmann-json headers of this machine beside the sources, into
# third_party/nlohmann-json/include/nlohmann, where the runtime-only build
# finds them when the system has no nlohmann-json package (a bare GPU
# machine: see docs/gpu.md). Run it where fusec is built, then carry the
# tree, third_party/nlohmann-json/ included, to the GPU machine.
#
#   test/gpu/copy-json-headers.sh [INCLUDE_DIR]
#
# INCLUDE_DIR holds nlohmann/json.hpp; by default the first of
# /usr/include, /usr/local/include that does.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source_dir=
for dir in "${1:-}" /usr/include /usr/local/include; do
  if [[ -n $dir && -f $dir/nlohmann/json.hpp ]]; then
    source_dir=$dir
    break
  fi
done
if [[ -z $source_dir ]]; then
  echo "copy-json-headers.sh: no nlohmann/json.hpp in ${1:-/usr/include or /usr/local/include}" \
    "(install nlohmann-json3-dev or name the include directory)" >&2
  exit 1
fi
target=$root/third_party/nlohmann-json/include
rm -rf "$target/nlohmann"
mkdir -p "$target"
cp -R "$source_dir/nlohmann" "$target/"
version=$(sed -n 's/^#define NLOHMANN_JSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
  "$target/nlohmann/detail/abi_macros.hpp" "$target/nlohmann/json.hpp" 2>/dev/null | head -n 3 | paste -sd.)
echo "copy-json-headers.sh: copied $source_dir/nlohmann (version ${version:-unknown}) to $target"
