// The WASM host of the check (scripts/wasm-check.sh): loads ngi-wasm's module, copies an
// RsLi file into its linear memory, decodes every entry there, and compares each entry
// with what the native `ngi` command prints for it.
//
//   node wasm/host.mjs MODULE.wasm LIBRARY.rsli NGI_BINARY
//
// Per entry it prints index, name, method, size and the SHA-256 of the decoded bytes.
// Exit status 1 on any difference (bytes, name, method, size), when an entry fails to
// decode, when one of the seven methods is missing, or when an error path returns the
// wrong code. Node.js 18 or later, no packages.

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
const E_INPUT_TOO_LONG = -1;
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
const imports = WebAssembly.Module.imports(module);
if (imports.length !== 0) {
  // The module is meant to need nothing from its host: no std shims, no allocator hooks.
  fail(`the module imports ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}`);
}
const instance = await WebAssembly.instantiate(module, {});
const wasm = instance.exports;
// The buffer of the memory is replaced if the module ever grows it: take a fresh view.
const bytesAt = (ptr, len) => new Uint8Array(wasm.memory.buffer, ptr, len);

const file = readFileSync(libraryPath);
const inputPtr = wasm.input_ptr();
const inputCapacity = wasm.input_capacity();
const outputPtr = wasm.output_ptr();
if (file.length > inputCapacity) {
  console.error(`${libraryPath}: ${file.length} bytes, the module takes ${inputCapacity}`);
  process.exit(1);
}
bytesAt(inputPtr, file.length).set(file);
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

const count = wasm.entry_count(len);
console.log(`${libraryPath}: ${len} bytes, ${count} entries (native: ${native.length})`);
if (count !== native.length) fail(`entry count ${count}, native ${native.length}`);

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
expectCode('entry_count of a too long input', wasm.entry_count(inputCapacity + 1), E_INPUT_TOO_LONG);
expectCode('entry_count of the header alone, cut', wasm.entry_count(31), E_BAD_LIBRARY);
bytesAt(inputPtr, 2).set([0x4e, 0x4d]); // "NM": bad magic
expectCode('entry_count with a bad magic', wasm.entry_count(len), E_BAD_LIBRARY);

if (failures > 0) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
console.log(`all ${count} entries (${seen.size} methods) decode in WASM as natively`);
