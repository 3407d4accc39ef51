#!/usr/bin/env bash
# Compiles every addon source (scripts/gyp-sources.js: native/addon,
# native/jinja, native/engine) for the prebuild platforms from one Linux
# machine, with zig's clang and libc++ (zig from PyPI, in a temporary venv),
# so code that only builds with one C++ standard library or one OS's headers
# is caught without the macOS and Windows runners. Objects only: nothing is
# linked or kept.
#
#   scripts/ci/cross-compile.sh [TARGET ...]
#
# Default targets: aarch64-macos x86_64-macos x86_64-windows-gnu
# x86_64-linux-musl aarch64-linux-gnu.2.28. Env: ZIG (a zig binary; default
# the PyPI package), JOBS (default 2), KEEP_LOGS=1 to keep the per-file logs.
# Exit status: 0 when every file compiled for every target, 1 otherwise.
# (MSVC itself is not covered: windows-gnu uses clang with Windows headers.)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/nvc-cross-XXXXXX")
trap '[ "${KEEP_LOGS:-}" = 1 ] || rm -rf "$work"' EXIT

if [ -n "${ZIG:-}" ]; then
  zig=("$ZIG")
else
  python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q 'ziglang==0.17.1' || { echo "cross-compile: could not install ziglang from PyPI" >&2; exit 1; }
  zig=("$work/venv/bin/python" -m ziglang)
fi
echo "zig $("${zig[@]}" version)"

node_inc=""
for d in "$(dirname "$(dirname "$(command -v node)")")/include/node" /usr/include/node /usr/local/include/node; do
  if [ -f "$d/node_api.h" ]; then node_inc=$d; break; fi
done
[ -n "$node_inc" ] || { echo "cross-compile: node_api.h not found beside node" >&2; exit 1; }
addon_inc=$(node -p "require('node-addon-api').include_dir")

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64-macos x86_64-macos x86_64-windows-gnu x86_64-linux-musl aarch64-linux-gnu.2.28)
read -r -a sources <<< "$(node scripts/gyp-sources.js)"
jobs=${JOBS:-2}
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  pids=()
  for f in "${sources[@]}"; do
    name=$(basename "$f")
    (nice "${zig[@]}" c++ -target "$t" -std=c++20 -fexceptions -frtti -O0 -c -o "$work/$t/$name.o" \
        -DNAPI_VERSION=8 -DNAPI_CPP_EXCEPTIONS -DNODE_ADDON_API_DISABLE_DEPRECATED -DNODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS \
        -I"$addon_inc" -I"$root/native" -I"$node_inc" "$root/$f" > "$work/$t/$name.log" 2>&1 || echo "$f" >> "$work/$t/failed") &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  wait
  if [ -s "$work/$t/failed" ]; then
    failed=1
    echo "$t: FAILED"
    while read -r f; do
      echo "  $f"; grep -m5 'error:' "$work/$t/$(basename "$f").log" | sed 's/^/    /'
    done < "$work/$t/failed"
  else
    echo "$t: ${#sources[@]} files ok"
  fi
done
exit $failed
