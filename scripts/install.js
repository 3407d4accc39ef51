#!/usr/bin/env node
// npm install hook: use a prebuilt addon from prebuilds/ when one loads on
// this platform, otherwise build from source with node-gyp. When Node's own
// headers ship next to the running binary (distribution packages install them
// under <prefix>/include/node), the build uses them instead of downloading a
// header tarball, so installs work on machines without access to nodejs.org.
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
    return true;
  } catch {
    return false;
  }
}

function nodeGypCommand() {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm && fs.existsSync(fromNpm)) return fromNpm;
  return require.resolve('node-gyp/bin/node-gyp.js');
}

if (prebuiltLoads()) {
  console.log('node-vllm-cpp: using prebuilt addon');
  process.exit(0);
}

const args = [nodeGypCommand(), 'rebuild'];
const prefix = path.resolve(path.dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
  args.push(`--nodedir=${prefix}`);
}
const jobs = process.env.JOBS || 'max';
args.push(`--jobs=${jobs}`);
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(
    'node-vllm-cpp: building the native addon failed. It needs a C++20 compiler (g++ >= 10 or clang >= 12), ' +
      'python3 and make; see the messages above.',
  );
  process.exit(r.status ?? 1);
}
