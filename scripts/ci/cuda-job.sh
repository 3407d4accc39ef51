#!/usr/bin/env bash
# The GPU check (the body of .github/workflows/cuda.yml; runs by hand on any
# CUDA machine from a checkout):
#
#   1. the golden suite on the embedded backend (must be byte-exact) and on
#      the vllm.cpp backend (measured: vllm.cpp's own renderer), as vitest
#      test/golden plus `golden report --json` per backend;
#   2. the engine end-to-end tests, test/engine-bridge, against a CUDA build
#      of libvllm with real checkpoints on the GPU, including the tool loop
#      user -> assistant tool call -> tool result -> next generation, whose
#      parsed call and next-turn prompt are compared with the prompts pinned
#      Python vLLM rendered (test/golden/expected);
#   3. a report directory: JUnit and JSON results, golden reports, GPU and
#      library facts, and summary.md.
#
# It never downloads or builds vllm.cpp: the runner provides
#   VLLM_CPP_LIB             (required) CUDA build of libvllm (libvllm.so)
#   VLLM_CPP_DIR             (required) the vllm.cpp checkout it was built from, for the
#                            vllm.cpp render backend (our adapter is compiled against it)
#   VLLM_CPP_BUILD_DIR       (optional) that checkout's build directory
#   NODE_VLLM_CPP_MODELS     (required) directory of real checkpoints (HF layout, one per folder);
#                            the engine tests take the Gemma 4 and the Qwen3 one found there by
#                            config.json's model_type, or NODE_VLLM_CPP_GEMMA4_MODEL /
#                            NODE_VLLM_CPP_QWEN3_MODEL when set
#   NODE_VLLM_CPP_TEMPLATES  (required) the shared chat templates (../shared/templates in a checkout)
#   NODE_VLLM_CPP_PYTHON     (optional) Python with jinja2 3.1 (and numpy, safetensors, tokenizers
#                            for the tiny generated models); default python3
#   NODE_VLLM_CPP_REPORT_DIR (optional) where the report goes; default ./cuda-report
#   NODE_VLLM_CPP_SKIP_NPM_CI=1  reuse an existing node_modules and build
#
# Exit status: 0 when every step passed and the engine tests really ran
# (none skipped), 1 otherwise, 2 when the runner lacks something above.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
report=${NODE_VLLM_CPP_REPORT_DIR:-$root/cuda-report}
mkdir -p "$report"
summary=$report/summary.md
: > "$summary"

say() { printf '%s\n' "$*" | tee -a "$summary"; }

missing=0
need_file() { # name, description
  local v=${!1:-}
  if [ -z "$v" ] || [ ! -e "$v" ]; then
    say "- missing: \`$1\` ($2)${v:+: $v does not exist}"
    missing=1
  fi
}

say "# node-vllm-cpp CUDA job"
say ""
say "commit $(git rev-parse HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%dT%H:%M:%SZ), node $(node --version)"
say ""
need_file VLLM_CPP_LIB 'a CUDA build of libvllm'
need_file VLLM_CPP_DIR 'the vllm.cpp checkout libvllm was built from'
need_file NODE_VLLM_CPP_MODELS 'the directory of real checkpoints'
need_file NODE_VLLM_CPP_TEMPLATES 'the shared chat templates'
if [ "$missing" = 1 ]; then
  say ""
  say "The runner must provide the paths above (see the header of scripts/ci/cuda-job.sh)."
  exit 2
fi
export VLLM_CPP_LIB VLLM_CPP_DIR NODE_VLLM_CPP_MODELS NODE_VLLM_CPP_TEMPLATES

# The engine tests take one Gemma 4 and one Qwen3 checkpoint: named directly,
# or found in the models directory by config.json's model_type.
pick_model() { # family regex
  node -e '
    const fs = require("fs"), path = require("path");
    const [dir, re] = process.argv.slice(1);
    for (const name of fs.readdirSync(dir).sort()) {
      try {
        const cfg = JSON.parse(fs.readFileSync(path.join(dir, name, "config.json"), "utf8"));
        const types = [cfg.model_type, cfg.text_config && cfg.text_config.model_type].filter(Boolean);
        if (types.some((t) => new RegExp(re).test(t))) { console.log(path.join(dir, name)); process.exit(0); }
      } catch {}
    }
    process.exit(1);
  ' "$NODE_VLLM_CPP_MODELS" "$1"
}
for family in GEMMA4:'^gemma4' QWEN3:'^qwen3'; do
  var=NODE_VLLM_CPP_${family%%:*}_MODEL
  if [ -z "${!var:-}" ]; then
    found=$(pick_model "${family#*:}") || { say "- missing: no ${family%%:*} checkpoint (config.json model_type ${family#*:}) in $NODE_VLLM_CPP_MODELS; or set $var"; exit 2; }
    printf -v "$var" '%s' "$found"
  fi
  export "${var?}"
  say "- $var=${!var}"
done

{
  echo '## GPU'
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  else
    echo 'nvidia-smi not found'
  fi
  echo
  echo '## libvllm'
  ls -l "$VLLM_CPP_LIB"
  (cd "$VLLM_CPP_DIR" && git rev-parse HEAD 2> /dev/null) || true
  echo
  echo '## models'
  ls -1 "$NODE_VLLM_CPP_MODELS"
} > "$report/environment.txt" 2>&1

failures=()
# step NAME COMMAND...: runs it, logs to NAME.log, records a failure.
# measure NAME COMMAND...: the same, but a non-zero exit is reported, not a failure.
step() { run_step fail "$@"; }
measure() { run_step measure "$@"; }
run_step() {
  local mode=$1 name=$2
  shift 2
  local log="$report/$name.log"
  local t0=$SECONDS
  echo "::group::$name"
  "$@" > >(tee "$log") 2>&1
  local rc=$?
  echo "::endgroup::"
  if [ "$rc" = 0 ]; then
    say "- $name: ok ($((SECONDS - t0)) s)"
  elif [ "$mode" = measure ]; then
    say "- $name: differences, exit $rc ($((SECONDS - t0)) s; measured, see $name.log)"
  else
    say "- $name: FAILED, exit $rc ($((SECONDS - t0)) s; see $name.log)"
    failures+=("$name")
  fi
  return "$rc"
}

py=${NODE_VLLM_CPP_PYTHON:-python3}
say ""
say "## steps"
if [ "${NODE_VLLM_CPP_SKIP_NPM_CI:-}" != 1 ]; then
  step npm-ci npm ci --no-audit --no-fund || { say ""; say "cannot continue without the package built"; exit 1; }
fi
if ! "$py" -c 'import jinja2, sys; sys.exit(0 if jinja2.__version__.startswith("3.1.") else 1)' 2> /dev/null; then
  step jinja2 "$py" -m pip install --quiet 'jinja2==3.1.6'
fi
step vllm-cpp-backend npm run build:vllm-cpp

vitest() { # name, json-file, paths...
  local name=$1 json=$2
  shift 2
  npx vitest run "$@" --reporter=default --reporter=json --outputFile.json="$json" \
    --reporter=junit --outputFile.junit="$report/$name.junit.xml"
}

# The embedded backend must match pinned vLLM byte for byte; the vllm.cpp
# backend renders through vllm.cpp's own renderer, which the suite measures.
NODE_VLLM_CPP_BACKEND=embedded step golden-embedded vitest golden-embedded "$report/golden-embedded.json" test/golden
NODE_VLLM_CPP_BACKEND=vllm.cpp measure golden-vllm.cpp vitest golden-vllm.cpp "$report/golden-vllm.cpp.json" test/golden
for backend in embedded vllm.cpp; do
  step "golden-report-$backend" bash -c "node bin/node-vllm-cpp.js golden report --backend '$backend' --json > '$report/golden-report-$backend.json'"
done

NODE_VLLM_CPP_PYTHON=$py step engine-bridge vitest engine-bridge "$report/engine-bridge.json" test/engine-bridge

# The engine tests skip themselves without a usable library: on this job that is a failure.
if [ -f "$report/engine-bridge.json" ]; then
  counts=$(node -e '
    const r = require(process.argv[1]);
    const all = r.testResults.flatMap((f) => f.assertionResults);
    const n = (s) => all.filter((a) => a.status === s).length;
    console.log(`${n("passed")} ${n("failed")} ${n("pending") + n("skipped") + n("todo")}`);
  ' "$report/engine-bridge.json")
  read -r passed failed skipped <<< "$counts"
  say "- engine-bridge tests: $passed passed, $failed failed, $skipped skipped"
  if [ "$skipped" != 0 ] || [ "$passed" = 0 ]; then
    say "- engine-bridge: FAILED, the real-engine tests must all run here (see engine-bridge.log for why they skipped)"
    failures+=(engine-bridge-skipped)
  fi
fi

for backend in embedded vllm.cpp; do
  f=$report/golden-report-$backend.json
  [ -s "$f" ] && say "- golden $backend: $(node -e 'const r = require(process.argv[1]); console.log(`${r.matches}/${r.total} byte-exact`)' "$f")"
done

say ""
if [ "${#failures[@]}" = 0 ]; then
  say "result: passed"
  exit 0
fi
say "result: FAILED (${failures[*]})"
exit 1
