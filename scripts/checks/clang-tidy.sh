#!/usr/bin/env bash
# clang-tidy-19 with the checks of .clang-tidy over the project's sources,
# using the build's compile_commands.json. Every warning is an error.
#   scripts/checks/clang-tidy.sh [--build DIR] [--changed REV | FILE...]
# Default: every .cpp of the libraries and tools (not tests) in the build;
# --changed REV: only the .cpp files changed since REV.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${FUSEC_BUILD_DIR:-build}
changed=""
while (($#)); do
  case $1 in
  --build) build=$2; shift 2 ;;
  --changed) changed=$2; shift 2 ;;
  *) break ;;
  esac
done
clang_tidy=${CLANG_TIDY:-clang-tidy-19}
command -v "$clang_tidy" >/dev/null || { echo "clang-tidy: $clang_tidy not found (scripts/setup.sh installs it)" >&2; exit 1; }
[[ -f $build/compile_commands.json ]] || { echo "clang-tidy: no $build/compile_commands.json: build first" >&2; exit 1; }

if (($#)); then
  files=("$@")
elif [[ -n $changed ]]; then
  mapfile -t files < <(git diff --name-only --diff-filter=d "$changed" -- 'ir/*.cpp' 'passes/*.cpp' 'codegen/*.cpp' \
    'compiler/*.cpp' 'runtime/*.cpp' 'tools/*.cpp' 'python/*.cpp')
else
  # Every library and tool source the build compiles (generated files excluded).
  mapfile -t files < <(python3 - "$build" <<'PY'
import json, os, sys
root = os.getcwd()
seen = set()
for entry in json.load(open(os.path.join(sys.argv[1], "compile_commands.json"))):
    path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), root)
    if path.split("/")[0] in {"ir", "passes", "codegen", "compiler", "runtime", "tools", "python"} and path not in seen:
        seen.add(path)
        print(path)
PY
  )
fi
if ((${#files[@]} == 0)); then
  echo "clang-tidy: no files to check"
  exit 0
fi
start=$SECONDS
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The build's compile database with the GCC-only flags clang's driver rejects
# removed (GCC's warning flags are silenced with -Wno-unknown-warning-option).
python3 - "$build/compile_commands.json" "$scratch/compile_commands.json" <<'PY'
import json, shlex, sys
gcc_only = {"-fno-lifetime-dse"}
entries = json.load(open(sys.argv[1]))
for entry in entries:
    args = entry.pop("arguments", None) or shlex.split(entry.pop("command"))
    entry["arguments"] = [a for a in args if a not in gcc_only]
json.dump(entries, open(sys.argv[2], "w"))
PY
status=0
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 2 "$clang_tidy" -p "$scratch" --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-unused-command-line-argument >"$scratch/log" 2>&1 ||
  status=$?
if ((status != 0)); then
  grep -E 'error:|warning:' "$scratch/log" | sort -u || cat "$scratch/log"
  echo "clang-tidy: findings in the files above (${#files[@]} files checked)"
  exit 1
fi
echo "clang-tidy: ${#files[@]} files clean in $((SECONDS - start)) s"
