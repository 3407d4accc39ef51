// Lists the C++ sources of the addon (embedded backend + engine bridge) for binding.gyp, so new files
// under native/jinja are picked up without editing the build file.
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..');
const out = [];
for (const dir of ['native/addon', 'native/conversation', 'native/jinja', 'native/engine']) {
  for (const f of fs.readdirSync(path.join(root, dir)).sort()) {
    if (/\.(cc|cpp)$/.test(f)) out.push(`${dir}/${f}`);
  }
}
process.stdout.write(out.join(' '));
