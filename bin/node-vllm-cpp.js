#!/usr/bin/env node
'use strict';
const fs = require('fs');
const { main } = require('../dist/cjs/cli/main.js');

const code = main(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stdoutBytes: (b) => process.stdout.write(b),
  stderr: (s) => process.stderr.write(s),
  // raw bytes: the CLI decodes them as strict UTF-8, as Python reads a file
  readStdin: () => fs.readFileSync(0),
});
process.exitCode = code;
