// Loads a Trace Event Format JSON file (or any format speedscope detects: fxt flame --folded
// stacks) with speedscope's own importer, headless in node, and
// prints one line per imported profile: "profile <name> frames=<n> weight=<total>".
// speedscope ships one browser bundle (dist/release/speedscope-*.js) whose importer module is
// reached through a promise the bundle keeps private; this script cuts the bundle right after
// that promise, exposes it, and runs the cut bundle in a vm context with minimal browser stubs.
// An error the importer logs fails the import too. Its warnings (frames ended out of order)
// are counted and printed: speedscope adds durations to timestamps in floating point, so a
// call ending at the same nanosecond as its caller can end "after" it by 1e-11 us.
// Usage: node speedscope-import.mjs SPEEDSCOPE_PACKAGE_DIR FILE.json   (exit 1: import failed)
// SPDX-License-Identifier: MIT
import fs from 'node:fs'
import path from 'node:path'
import vm from 'node:vm'

const [pkg, file] = process.argv.slice(2)
const dir = path.join(pkg, 'dist', 'release')
const bundle = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f))
const src = fs.readFileSync(path.join(dir, bundle), 'utf8')
const m = /var (\w+)=Promise\.resolve\(\)\.then\(\(\)=>\(\w+\(\),\w+\)\);/.exec(src)
if (!m) {
  console.error('speedscope-import: importer promise not found in ' + bundle)
  process.exit(1)
}
const cut = src.slice(0, m.index + m[0].length) + `globalThis.__importer=${m[1]};})();`

const any = new Proxy(function () {}, {
  get: (t, p) => (p === Symbol.toPrimitive ? () => 0 : p === 'then' ? undefined : any),
  apply: () => any,
  construct: () => any,
})
const complaints = []
const warnings = []
const quiet = {
  log: (...a) => console.error(...a),
  info: (...a) => console.error(...a),
  warn: (...a) => warnings.push(a.join(' ')),
  error: (...a) => complaints.push(a.join(' ')),
}
const ctx = {
  console: quiet, setTimeout, clearTimeout, TextDecoder, TextEncoder, URL, Uint8Array, ArrayBuffer,
  DataView, Promise, atob, btoa, performance, queueMicrotask,
  document: any, navigator: { userAgent: 'node' }, localStorage: any, location: any,
}
ctx.window = ctx
ctx.self = ctx
ctx.globalThis = ctx
vm.createContext(ctx)
vm.runInContext(cut, ctx)
const importer = await ctx.__importer
const text = fs.readFileSync(file, 'utf8')
const group = await importer.importProfileGroupFromText(path.basename(file), text)
if (!group || !group.profiles || group.profiles.length === 0) {
  console.error('speedscope-import: speedscope imported no profile from ' + file)
  process.exit(1)
}
if (complaints.length) {
  console.error('speedscope-import: the importer complained:\n' + complaints.join('\n'))
  process.exit(1)
}
for (const w of warnings) console.log('warning: ' + w)
for (const p of group.profiles) {
  let frames = 0
  p.forEachFrame(() => frames++)
  console.log(`profile ${p.getName()} frames=${frames} weight=${p.getTotalWeight()}`)
}
