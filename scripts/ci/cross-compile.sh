#!/usr/bin/env bash
# Compiles every addon source (scripts/gyp-sources.js: native/addon,
# native/jinja, native/engine) for the prebuild platforms from one Linux
# machine, with zig's clang and libc++ (zig from PyPI, in a temporary venv),
# so code that only builds with one C++ standard library or one OS's headers
# is caught without the macOS and Windows runners. By default objects only:
# nothing is linked or kept (see LINK below).
#
#   scripts/ci/cross-compile.sh [TARGET ...]
#
# Default targets: aarch64-macos x86_64-macos x86_64-windows-gnu
# x86_64-linux-musl aarch64-linux-gnu.2.28. Env: ZIG (a zig binary; default
# the PyPI package), JOBS (default 2), KEEP_LOGS=1 to keep the per-file logs.
# Exit status: 0 when every file compiled for every target, 1 otherwise.
# (MSVC itself is not covered: windows-gnu uses clang with Windows headers.)
#
# LINK=DIR: for linux-gnu targets, also build the addon itself (-O2, -fPIC,
# libc++ linked in statically, stripped) as DIR/<target>/node_vllm_cpp.node,
# check that it needs no glibc symbol newer than the target's version
# (x86_64-linux-gnu.2.28: nothing past GLIBC_2.28), and, when the target is
# this machine's architecture, load it in Node and render a template with it.
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

# Links the objects of target $1 into $2/node_vllm_cpp.node and checks it.
link_addon() {
  local t=$1 dir=$2 out
  mkdir -p "$dir"
  out="$dir/node_vllm_cpp.node"
  # zig links a shared object without crtbeginS, whose destructor runs the
  # object's __cxa_atexit handlers when it is unloaded. Node unloads an addon
  # that only worker threads loaded once they are gone, and handlers left
  # behind would run at process exit in unmapped code: supply that destructor.
  cat > "$work/$t/dso-fini.c" <<'EOF_C'
extern char __dso_handle;
extern void __cxa_finalize(void *) __attribute__((weak));
__attribute__((destructor)) static void run_dso_exit_handlers(void) {
  if (__cxa_finalize) __cxa_finalize(&__dso_handle);
}
EOF_C
  if ! "${zig[@]}" cc -target "$t" -fPIC -O2 -c -o "$work/$t/dso-fini.o" "$work/$t/dso-fini.c" > "$work/$t/link.log" 2>&1 ||
     ! "${zig[@]}" c++ -target "$t" -shared -fPIC -s -o "$out" "$work/$t"/*.o >> "$work/$t/link.log" 2>&1; then
    echo "$t: link FAILED"; head -20 "$work/$t/link.log" | sed 's/^/    /'; return 1
  fi
  local want=${t##*.gnu.} newest
  [ "$want" != "$t" ] || want=""
  newest=$(objdump -T "$out" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)
  echo "$t: linked $out ($(stat -c %s "$out") bytes), newest glibc symbol version ${newest:-none}"
  if [ -n "$want" ] && [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "GLIBC_$want" "$newest" | sort -V | tail -1)" != "GLIBC_$want" ]; then
    echo "$t: needs $newest, newer than glibc $want"; return 1
  fi
  if [ "${t%%-*}" = "$(uname -m)" ]; then
    NVC_ADDON="$out" node -e '
      const a = require(process.env.NVC_ADDON);
      const t = new a.CompiledTemplate("{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content | upper }}{% endfor %}");
      const out = t.render(JSON.stringify({ bos_token: "<s>", messages: [{ role: "user", content: "hé" }] }), {});
      if (out !== "<s>[user] HÉ") { console.error("unexpected render: " + JSON.stringify(out)); process.exit(1); }
      console.log("  loads in node " + process.version + " and renders: " + JSON.stringify(out));' || return 1
    # loaded by worker threads only, then unloaded: the process must exit cleanly
    NVC_ADDON="$out" node -e '
      const { Worker } = require("node:worker_threads");
      (async () => {
        for (let i = 0; i < 5; i++) {
          const w = new Worker("require(process.env.NVC_ADDON); require(\"node:worker_threads\").parentPort.postMessage(1)", { eval: true });
          await new Promise((r) => w.once("message", r));
          await w.terminate();
        }
      })();' || { echo "$t: the process did not exit cleanly after workers unloaded the addon"; return 1; }
    echo "  unloads cleanly after worker threads"
  fi
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64-macos x86_64-macos x86_64-windows-gnu x86_64-linux-musl aarch64-linux-gnu.2.28)
read -r -a sources <<< "$(node scripts/gyp-sources.js)"
jobs=${JOBS:-2}
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  link=""
  cflags="-O0"
  if [ -n "${LINK:-}" ] && [[ "$t" == *-linux-gnu* ]]; then link="$LINK/$t"; cflags="-O2 -fPIC"; fi
  pids=()
  for f in "${sources[@]}"; do
    name=$(basename "$f")
    (nice "${zig[@]}" c++ -target "$t" -std=c++20 -fexceptions -frtti $cflags -c -o "$work/$t/$name.o" \
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
    if [ -n "$link" ]; then link_addon "$t" "$link" || failed=1; fi
  fi
done
exit $failed
