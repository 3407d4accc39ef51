#!/usr/bin/env bash
# npm run test:asan [-- VITEST ARGS]
#
# Builds the addon with AddressSanitizer + UndefinedBehaviorSanitizer (g++,
# -fsanitize=address,undefined, -O1 -g) into build-asan/ — the regular
# build/ is left alone — and runs vitest against it (NODE_VLLM_CPP_ADDON
# points the loader at the instrumented addon). Node itself is not
# instrumented, so the ASan runtime is preloaded (LD_PRELOAD) to be first in
# the process. Leak checking is off (detect_leaks=0): Node does not free
# everything at exit, and those reports are not about this package; every
# other ASan/UBSan report aborts the process, which fails the test that hit it.
# Tests that bound the process's RSS allow three times as much under it
# (NODE_VLLM_CPP_SANITIZED).
# With no arguments the whole vitest suite runs.
# Env: CXX (default g++), JOBS (default 2).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/build-asan"
CXX="${CXX:-g++}"
JOBS="${JOBS:-2}"
node_prefix="$(dirname "$(dirname "$(command -v node)")")"
node_inc="$node_prefix/include/node"
if [[ ! -f "$node_inc/node_api.h" ]]; then
  node_inc="$(ls -d "$HOME"/.cache/node-gyp/"$(node -p process.versions.node)"/include/node 2>/dev/null | head -1)"
fi
if [[ ! -f "$node_inc/node_api.h" ]]; then
  echo "test-asan: Node's headers (node_api.h) not found next to node or in the node-gyp cache" >&2
  exit 2
fi
napi_inc="$(cd "$root" && node -p "require('node-addon-api').include_dir")"
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
flags=(-std=c++20 -O1 -g -fPIC "${san[@]}" -fexceptions -frtti
  -DNAPI_VERSION=8 -DNAPI_CPP_EXCEPTIONS -DNODE_ADDON_API_DISABLE_DEPRECATED -DNODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS
  -I"$node_inc" -I"$root/$napi_inc" -I"$root/native")
mkdir -p "$out/obj"
# the same sources binding.gyp builds
read -r -a srcs <<<"$(cd "$root" && node scripts/gyp-sources.js)"
newest_header=$(ls -t "$root"/native/*/*.h | head -1)
objs=()
pids=()
for rel in "${srcs[@]}"; do
  src="$root/$rel"
  obj="$out/obj/$(echo "$rel" | tr '/' '_').o"
  objs+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
    # written aside and renamed: a concurrent run never links a half-written object
    { nice -n 10 "$CXX" "${flags[@]}" -c "$src" -o "$obj.$$.tmp" && mv -f "$obj.$$.tmp" "$obj"; } &
    pids+=($!)
    if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
nice -n 10 "$CXX" -shared "${san[@]}" "${objs[@]}" -o "$out/node_vllm_cpp.node.$$.tmp" -ldl -lpthread
mv -f "$out/node_vllm_cpp.node.$$.tmp" "$out/node_vllm_cpp.node"
echo "test-asan: built $out/node_vllm_cpp.node" >&2

libasan="$("$CXX" -print-file-name=libasan.so)"
cd "$root"
export NODE_VLLM_CPP_ADDON="$out/node_vllm_cpp.node"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:print_summary=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# tests that bound the process's memory (RSS) allow for ASan's shadow
# memory, redzones and quarantine of freed blocks
export NODE_VLLM_CPP_SANITIZED=1
# fails fast when the instrumented addon cannot load
LD_PRELOAD="$libasan" node -e "require(process.env.NODE_VLLM_CPP_ADDON)"
exec env LD_PRELOAD="$libasan" npx vitest run "$@"
