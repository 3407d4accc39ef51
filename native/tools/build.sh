#!/usr/bin/env bash
# Builds the standalone engine driver build/tools/jinja-render from
# native/jinja/*.cpp + native/tools/jinja-render.cpp. Objects are cached per
# source file and rebuilt when the source or any engine header is newer.
# Env: OPT (default -O1), JOBS (default 2), CXX (default g++), NAME (binary
# name, default jinja-render), OUT (output folder, default build/tools).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$root/build/tools}"  # OUT overrides the output folder
mkdir -p "$out/obj"
CXX="${CXX:-g++}"
OPT="${OPT:--O1}"
NAME="${NAME:-jinja-render}"  # output binary name (e.g. for a sanitizer build)
JOBS="${JOBS:-2}"
flags=(-std=c++20 $OPT -g0 -Wall -Wextra -Wno-unused-parameter -I"$root/native/jinja")
newest_header=$(ls -t "$root"/native/jinja/*.h | head -1)
srcs=("$root"/native/jinja/*.cpp "$root"/native/tools/jinja-render.cpp)
objs=()
pids=()
for src in "${srcs[@]}"; do
  obj="$out/obj/$(basename "${src%.cpp}")${OPT//[^A-Za-z0-9]/}.o"
  objs+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || "$newest_header" -nt "$obj" ]]; then
    nice "$CXX" "${flags[@]}" -c "$src" -o "$obj" &
    pids+=($!)
    if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
nice "$CXX" "${flags[@]}" "${objs[@]}" -o "$out/$NAME"
echo "$out/$NAME"
