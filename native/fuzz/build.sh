#!/usr/bin/env bash
# Builds the libFuzzer targets into build-fuzz/ (clang with
# -fsanitize=fuzzer,address,undefined). Engine objects are compiled once with
# the same sanitizers and shared by every target (fuzz_plan also links the
# planned path's objects, native/conversation); a source or header newer
# than its object is rebuilt.
#   native/fuzz/build.sh            # all targets
# Env: CXX (default clang++), JOBS (default 1), OUT (default build-fuzz;
# not under build/, which node-gyp rebuilds from scratch),
# STDLIB (default -stdlib=libc++: clang in C++20 mode rejects the engine's
# headers against libstdc++ 12; apt-get install -y clang libc++-dev
# libc++abi-dev; set STDLIB= to use the default library; libcxx_compat.h
# fills in what libc++ 14 lacks).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$root/build-fuzz}"
CXX="${CXX:-clang++}"
JOBS="${JOBS:-1}"
if ! command -v "$CXX" >/dev/null; then
  echo "native/fuzz/build.sh: $CXX not found (apt-get install -y clang)" >&2
  exit 2
fi
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
STDLIB="${STDLIB--stdlib=libc++}"
# native/: the planned path includes "jinja/..." and "conversation/..." (as binding.gyp's include_dirs)
flags=(-std=c++20 -O1 -g $STDLIB "${san[@]}" -I"$root/native/jinja" -I"$root/native")
link=""
if [[ "$STDLIB" == *libc++* ]]; then
  flags+=(-include "$root/native/fuzz/libcxx_compat.h")
  link="-Wl,-l:libstdc++.so.6"  # clang would turn a plain -lstdc++ into -lc++
fi
mkdir -p "$out/obj"
newest_header=$(ls -t "$root"/native/jinja/*.h "$root"/native/fuzz/*.h | head -1)
newest_plan_header=$(ls -t "$root"/native/jinja/*.h "$root"/native/fuzz/*.h "$root"/native/conversation/*.h | head -1)
objs=()
plan_objs=()
pids=()
for src in "$root"/native/jinja/*.cpp "$root"/native/conversation/*.cpp; do
  obj="$out/obj/$(basename "${src%.cpp}").o"
  headers="$newest_header"
  if [[ "$src" == */conversation/* ]]; then
    obj="$out/obj/conversation_$(basename "${src%.cpp}").o"
    headers="$newest_plan_header"
    plan_objs+=("$obj")
  else
    objs+=("$obj")
  fi
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$headers" -nt "$obj" ]]; then
    # written aside and renamed: a concurrent run never links a half-written object
    { nice -n 10 "$CXX" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj.$$.tmp" && mv -f "$obj.$$.tmp" "$obj"; } &
    pids+=($!)
    if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
for target in template json plan; do
  extra=()
  if [[ "$target" == plan ]]; then extra=("${plan_objs[@]}"); fi
  # the libFuzzer runtime itself is built against libstdc++
  nice -n 10 "$CXX" "${flags[@]}" -fsanitize=fuzzer "$root/native/fuzz/fuzz_$target.cpp" "${objs[@]}" "${extra[@]}" $link -o "$out/fuzz_$target"
  echo "$out/fuzz_$target"
done
