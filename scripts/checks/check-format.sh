#!/usr/bin/env bash
# Fails when a C/C++ file is not formatted as .clang-format says (clang-format-19).
# Usage: check-format.sh [FILE...]   (default: every C/C++ file git tracks)
# To fix: clang-format-19 -i FILE...
set -euo pipefail
cd "$(dirname "$0")/../.."
clang_format=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$clang_format" >/dev/null; then
  echo "check-format: $clang_format not found (scripts/setup.sh installs it)" >&2
  exit 1
fi
if (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c' '*.cuh' ':!:test/data/**' ':!:test/repo/Inputs/**')
fi
# One process for all files; each misformatted line is reported as "FILE:LINE:COL: error: ...".
status=0
output=$("$clang_format" --dry-run -Werror "${files[@]}" 2>&1) || status=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' <<<"$output" | sort -u)
if ((status != 0 && ${#bad[@]} == 0)); then
  echo "$output" >&2
  echo "check-format: $clang_format failed" >&2
  exit 1
fi
if ((${#bad[@]})); then
  printf 'check-format: not formatted: %s\n' "${bad[@]}"
  echo "check-format: run '$clang_format -i' on the files above"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
