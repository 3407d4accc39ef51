#!/usr/bin/env node
// Builds the opt-in vllm.cpp backend (build-vllm-cpp/Release/node_vllm_cpp_vllmcpp.node)
// with cmake-js against the user's vllm.cpp checkout. It builds only our adapter
// (native/vllm_cpp); vllm.cpp itself is neither fetched nor built.
//
//   VLLM_CPP_DIR=/path/to/vllm.cpp node scripts/build-vllm-cpp.mjs [--clean] [--debug] [-- <cmake-js args>]
//
// Environment:
//   VLLM_CPP_DIR        vllm.cpp source checkout (required; --vllm-cpp-dir=<dir> also works)
//   VLLM_CPP_BUILD_DIR  existing vllm.cpp build directory (optional, see docs/vllm-cpp-backend.md)
//   NODE_VLLM_CPP_JOBS  parallel compile jobs (default: cmake-js' default)
//   npm_config_nodedir  Node headers directory; defaults to this Node's own <prefix>/include/node
//                       when present, so no headers are downloaded
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));

function fail(msg) {
  console.error(`build-vllm-cpp: ${msg}`);
  process.exit(1);
}

const argv = process.argv.slice(2);
const dd = argv.indexOf('--');
const own = dd === -1 ? argv : argv.slice(0, dd);
const passthrough = dd === -1 ? [] : argv.slice(dd + 1);
let vllmDir = process.env.VLLM_CPP_DIR;
let clean = false;
let config = 'Release';
for (const a of own) {
  if (a.startsWith('--vllm-cpp-dir=')) vllmDir = a.slice('--vllm-cpp-dir='.length);
  else if (a === '--clean') clean = true;
  else if (a === '--debug') config = 'Debug';
  else if (a === '-h' || a === '--help') {
    console.log('usage: VLLM_CPP_DIR=/path/to/vllm.cpp node scripts/build-vllm-cpp.mjs [--clean] [--debug] [-- <cmake-js args>]');
    process.exit(0);
  } else fail(`unknown argument ${JSON.stringify(a)} (put cmake-js arguments after --)`);
}

if (!vllmDir) {
  fail('VLLM_CPP_DIR is not set. Point it at a source checkout of https://github.com/mudler/vllm.cpp:\n' +
    '  VLLM_CPP_DIR=/path/to/vllm.cpp npm run build:vllm-cpp');
}
vllmDir = path.resolve(vllmDir);
for (const f of ['third_party/minja/minja.hpp', 'third_party/nlohmann/json.hpp', 'src/vllm/entrypoints/chat_template.cpp']) {
  if (!fs.existsSync(path.join(vllmDir, f))) {
    fail(`VLLM_CPP_DIR=${vllmDir} does not look like a vllm.cpp checkout (${f} is missing)`);
  }
}
const buildDir = process.env.VLLM_CPP_BUILD_DIR ? path.resolve(process.env.VLLM_CPP_BUILD_DIR) : undefined;
if (buildDir && !fs.statSync(buildDir, { throwIfNoEntry: false })?.isDirectory()) {
  fail(`VLLM_CPP_BUILD_DIR=${buildDir} is not a directory`);
}

let cmakeJs;
try {
  cmakeJs = require.resolve('cmake-js/bin/cmake-js');
} catch {
  fail('cmake-js is not installed; run `npm install` (it is a devDependency) or `npm install --no-save cmake-js`');
}
let addonApiDir;
try {
  addonApiDir = path.dirname(require.resolve('node-addon-api/package.json'));
} catch {
  fail('node-addon-api is not installed; run `npm install`');
}

const env = { ...process.env, VLLM_CPP_DIR: vllmDir };
// Use this Node's own headers when the installation ships them (<prefix>/include/node),
// so cmake-js does not try to download a header tarball.
if (!env.npm_config_nodedir) {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  if (fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) env.npm_config_nodedir = prefix;
}

const args = [
  cmakeJs,
  clean ? 'rebuild' : 'build',
  '--directory', path.join(root, 'native', 'vllm_cpp'),
  '--out', path.join(root, 'build-vllm-cpp'),
  '--config', config,
  `--CDVLLM_CPP_DIR=${vllmDir}`,
  `--CDNODE_ADDON_API_DIR=${addonApiDir}`,
];
if (buildDir) args.push(`--CDVLLM_CPP_BUILD_DIR=${buildDir}`);
if (process.env.NODE_VLLM_CPP_JOBS) args.push('--parallel', process.env.NODE_VLLM_CPP_JOBS);
args.push(...passthrough);

console.log(`build-vllm-cpp: vllm.cpp checkout ${vllmDir}` + (env.npm_config_nodedir ? `, Node headers from ${env.npm_config_nodedir}` : ''));
const started = Date.now();
const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
if (r.error) fail(r.error.message);
if (r.status !== 0) fail(`cmake-js exited with status ${r.status}`);

const out = path.join(root, 'build-vllm-cpp', config, 'node_vllm_cpp_vllmcpp.node');
if (!fs.existsSync(out)) fail(`build finished but ${out} is missing`);
console.log(`build-vllm-cpp: built ${path.relative(root, out)} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
if (config !== 'Release') console.log(`build-vllm-cpp: load it with NODE_VLLM_CPP_VLLM_ADDON=${out}`);
