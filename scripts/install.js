#!/usr/bin/env node
// npm install hook: use a prebuilt addon from prebuilds/ when one loads on
// this platform, otherwise build from source with node-gyp. When Node's own
// headers ship next to the running binary (distribution packages install them
// under <prefix>/include/node), the build uses them instead of downloading a
// header tarball, so installs work on machines without access to nodejs.org.
//
// Package managers that skip install scripts (pnpm 10 by default, npm
// --ignore-scripts) still work where a prebuild matches: the addon is found
// in prebuilds/ at load time. NODE_VLLM_CPP_FORCE_BUILD=1 builds from source
// even when a prebuild matches.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');

function prebuiltLoads() {
  if (process.env.NODE_VLLM_CPP_FORCE_BUILD) return false;
  try {
    const file = require('node-gyp-build').path(root);
    if (!file.includes(`${path.sep}prebuilds${path.sep}`)) return false; // only trust prebuilds here
    require(file);
    return file;
  } catch {
    return false;
  }
}

// node-gyp: the one npm runs scripts with, else a local install, else one on PATH.
function nodeGypCommand() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && fs.existsSync(fromNpm)) return [process.execPath, fromNpm];
  try {
    return [process.execPath, require.resolve('node-gyp/bin/node-gyp.js')];
  } catch {
    return [process.platform === 'win32' ? 'node-gyp.cmd' : 'node-gyp'];
  }
}

const prebuilt = prebuiltLoads();
if (prebuilt) {
  console.log(`node-vllm-cpp: using prebuilt addon ${path.relative(root, prebuilt)}`);
  process.exit(0);
}

const [cmd, ...head] = nodeGypCommand();
const args = [...head, 'rebuild'];
const prefix = path.resolve(path.dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
  args.push(`--nodedir=${prefix}`);
}
const jobs = process.env.JOBS || 'max';
args.push(`--jobs=${jobs}`);
console.log('node-vllm-cpp: no prebuilt addon for ' + `${process.platform}-${process.arch}` + '; building from source');
const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: cmd.endsWith('.cmd') });
if (r.error || r.status !== 0) {
  console.error(
    'node-vllm-cpp: building the native addon failed' +
      (r.error ? ` (${r.error.message}: node-gyp not found; install it with npm i -g node-gyp)` : '') +
      '. It needs a C++20 compiler (g++ >= 10 or clang >= 12), python3 and make; see the messages above.',
  );
  process.exit(r.status || 1);
}
