#!/bin/sh
# Builds the library check driver: native/tools/library/build/libcheck.
# Usage: native/tools/library/build.sh [-O1|-O2|-g ...]  (one compile at a time, niced)
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out="$here/build"
mkdir -p "$out"
flags="${*:--O1}"
srcs="value bigint unicode unicode_tables pyformat json operators strformat access methods filters tests globals"
objs=""
for s in $srcs; do
  src="$root/native/jinja/$s.cpp"
  obj="$out/$s.o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/native/jinja" -name '*.h' -newer "$obj")" ]; then
    echo "cc $s"
    nice g++ -std=c++20 -Wall -Wextra $flags -I"$root/native/jinja" -c "$src" -o "$obj"
  fi
  objs="$objs $obj"
done
nice g++ -std=c++20 -Wall -Wextra $flags -I"$root/native/jinja" "$here/libcheck.cpp" $objs -o "$out/libcheck"
echo "built $out/libcheck"
