// The WASM host of the check (scripts/wasm-check.sh): loads ngi-wasm's module, serves it
// an RsLi file through its one import, `env.read_at(offset, ptr, len)` (the file stays
// here, as it stays in flash on an embedded host), decodes every entry in the module, and
// compares each entry with what the native `ngi` command prints for it. It counts the
// bytes the module reads: opening must take the header, the table and the trailer only.
//
//   node wasm/host.mjs MODULE.wasm LIBRARY.rsli NGI_BINARY
//
// Per entry it prints index, name, method, size and the SHA-256 of the decoded bytes.
// Exit status 1 on any difference (bytes, name, method, size), when an entry fails to
// decode, when one of the seven methods is missing, when opening reads more than the
// header, table and trailer, or when an error path returns the wrong code. Node.js 18 or
// later, no packages.

import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';

const METHODS = new Map([
  [0x000, 'stored'],
  [0x020, 'xor'],
  [0x040, 'lzss'],
  [0x060, 'xor-lzss'],
  [0x080, 'lzhuf'],
  [0x0a0, 'xor-lzhuf'],
  [0x100, 'deflate'],
]);
// The error codes of wasm/src/lib.rs (`Error`).
const E_HOST_READ = -1;
const E_BAD_LIBRARY = -2;
const E_NO_SUCH_ENTRY = -4;

const [modulePath, libraryPath, ngi] = process.argv.slice(2);
if (!ngi) {
  console.error('usage: node wasm/host.mjs MODULE.wasm LIBRARY.rsli NGI_BINARY');
  process.exit(2);
}

let failures = 0;
function fail(message) {
  console.error(`FAIL: ${message}`);
  failures += 1;
}
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

const module = await WebAssembly.compile(readFileSync(modulePath));
const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
if (imports.join() !== 'env.read_at') {
  // The module needs nothing from its host but the file: no std shims, no allocator hooks.
  fail(`the module imports ${imports.join(', ')}, not env.read_at alone`);
}
const file = Buffer.from(readFileSync(libraryPath));
// What read_at serves, and how many bytes it has served; `failing` makes it fail.
let served = 0;
let failing = false;
let wasm = null;
// The buffer of the memory is replaced if the module ever grows it: take a fresh view.
const bytesAt = (ptr, len) => new Uint8Array(wasm.memory.buffer, ptr, len);
function read_at(offset, ptr, len) {
  if (failing) return -1;
  // wasm's i32 arrive signed: take them as the u32 they are.
  [offset, ptr, len] = [offset >>> 0, ptr >>> 0, len >>> 0];
  const bytes = file.subarray(offset, Math.min(offset + len, file.length));
  bytesAt(ptr, bytes.length).set(bytes);
  served += bytes.length;
  return bytes.length;
}
const instance = await WebAssembly.instantiate(module, { env: { read_at } });
wasm = instance.exports;
const outputPtr = wasm.output_ptr();
const len = file.length;

// What the native build says: `ngi list --json` for names, methods and sizes, `ngi cat
// --index N` for the bytes.
function run(args) {
  const r = spawnSync(ngi, args, { maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`ngi ${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  }
  return r.stdout;
}
const native = JSON.parse(run(['list', '--json', libraryPath]).toString('utf8'));

served = 0;
const count = wasm.entry_count(len);
console.log(`${libraryPath}: ${len} bytes, ${count} entries (native: ${native.length})`);
if (count !== native.length) fail(`entry count ${count}, native ${native.length}`);
// Opening reads the 32-byte header, the 32-byte records and the 6-byte trailer, no more.
const opening = 32 + 32 * count + 6;
console.log(`opening read ${served} bytes of ${len} (header ${32}, table ${32 * count}, trailer 6)`);
if (served !== opening) fail(`opening read ${served} bytes, not ${opening}`);

const seen = new Set();
for (let index = 0; index < Math.max(count, 0); index += 1) {
  const nameLen = wasm.entry_name(len, index);
  const name = nameLen >= 0 ? Buffer.from(bytesAt(outputPtr, nameLen)) : null;
  const bits = wasm.entry_method(len, index);
  const size = Number(wasm.decode_entry(len, index));
  const nat = native[index] ?? {};
  const expected = run(['cat', libraryPath, '--index', String(index)]);
  const method = METHODS.get(bits) ?? `error ${bits}`;
  if (size < 0) {
    fail(`entry ${index}: decode_entry returned error ${size}`);
    continue;
  }
  const decoded = Buffer.from(bytesAt(outputPtr, size));
  const [got, want] = [sha256(decoded), sha256(expected)];
  const same = got === want && decoded.equals(expected);
  console.log(
    `${String(index).padStart(3)}  ${(name?.toString('latin1') ?? '?').padEnd(12)}  ` +
      `${method.padEnd(9)}  ${String(size).padStart(7)}  sha256 ${got}  ` +
      (same ? 'same as native' : `NATIVE ${want}`),
  );
  seen.add(bits);
  if (!same) fail(`entry ${index}: decoded bytes differ from \`ngi cat --index ${index}\``);
  if (name === null || name.toString('hex') !== nat.name_hex) {
    fail(`entry ${index}: name ${name?.toString('hex')}, native ${nat.name_hex}`);
  }
  if (bits !== (nat.flags & 0x1e0) || method !== nat.method) {
    fail(`entry ${index}: method ${method}, native ${nat.method}`);
  }
  if (size !== nat.size) fail(`entry ${index}: size ${size}, native ${nat.size}`);
}
for (const [bits, method] of METHODS) {
  if (!seen.has(bits)) fail(`no entry of method ${method} (0x${bits.toString(16)})`);
}

// Error paths return their codes rather than trapping.
const expectCode = (what, got, want) => {
  if (Number(got) !== want) fail(`${what}: returned ${got}, expected ${want}`);
};
expectCode('decode_entry past the last entry', wasm.decode_entry(len, count), E_NO_SUCH_ENTRY);
failing = true;
expectCode('entry_count when the host cannot read', wasm.entry_count(len), E_HOST_READ);
failing = false;
expectCode('entry_count of the header alone, cut', wasm.entry_count(31), E_BAD_LIBRARY);
file.set([0x4e, 0x4d]); // "NM": bad magic
expectCode('entry_count with a bad magic', wasm.entry_count(len), E_BAD_LIBRARY);

if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
console.log(`all ${count} entries (${seen.size} methods) decode in WASM as natively`);
