#!/usr/bin/env bash
# The WASM check (README "WASM"): builds ngi-core with no default features for
# wasm32-unknown-unknown, inside the #![no_std] wrapper crate wasm/ (ngi-wasm, no
# allocator), runs the module in Node.js on an RsLi with one entry of each of the seven
# methods, compares every entry with what the native `ngi cat` prints, and reports the
# module's size. Called by scripts/test.sh; safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
target=wasm32-unknown-unknown

if ! rustup target list --installed | grep -qx "$target"; then
  rustup target add "$target" || {
    echo "wasm-check: 'rustup target add $target' was refused. The fallback the issue" >&2
    echo "names is Debian's rustc-web, cargo-web, rust-web-src and lld with" >&2
    echo "-Zbuild-std=core (RUSTC_BOOTSTRAP=1); rustc-web conflicts with rustup, so it is" >&2
    echo "not installed automatically." >&2
    exit 1
  }
fi
if ! command -v node >/dev/null 2>&1; then
  as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq nodejs
fi

out=${CARGO_TARGET_DIR:-target}
work=$out/wasm-check
mkdir -p "$work"

# The native side: the fixture, written by ngi's builder (deterministic), and the CLI.
fixture=$work/all-methods.rsli
cargo run --quiet --locked -p ngi-tests --bin make-samples -- --all-methods "$fixture"
cargo build --quiet --locked --release -p ngi-cli
ngi=$out/release/ngi

# The module, in a target folder of its own (wasm/ is a workspace of its own).
cargo build --manifest-path wasm/Cargo.toml --release --target "$target" --locked \
  --target-dir "$out/wasm" --message-format=json-render-diagnostics >"$work/build.json"
module=$out/wasm/$target/release/ngi_wasm.wasm
# The main workspace's format and lint steps do not reach wasm/: they are here.
cargo fmt --manifest-path wasm/Cargo.toml -- --check
cargo clippy --manifest-path wasm/Cargo.toml --target "$target" --locked --quiet \
  --target-dir "$out/wasm" -- -D warnings

# No std, no alloc. The build itself proves it: ngi-wasm is #![no_std] with its own
# #[panic_handler] and no #[global_allocator], so a graph linking std fails to compile
# (duplicate lang item `panic_impl`) and one linking alloc fails to link (no global memory
# allocator). Belt and braces, as scripts/check-no-std.sh does for the bare-metal build:
# the crates the ngi-core rlib of this very build records (rustc's `-Z ls`, read-only).
core_rlib=$(node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const m = JSON.parse(line);
    if (m.reason === "compiler-artifact" && m.target.name === "ngi_core") {
      const rlib = m.filenames.find((f) => f.endsWith(".rlib"));
      if (rlib) console.log(rlib);
    }
  }' "$work/build.json")
[ -n "$core_rlib" ] || { echo "wasm-check: no ngi-core rlib in the build" >&2; exit 1; }
deps=$(RUSTC_BOOTSTRAP=1 rustc -Z ls=root "$core_rlib" | sed -n '/=External Dependencies=/,$p')
[ -n "$deps" ] || { echo "wasm-check: cannot read the dependencies of $core_rlib" >&2; exit 1; }
if grep -Eq '^[0-9]+ (std|alloc)-' <<<"$deps"; then
  echo "wasm-check: ngi-core for $target links std or alloc:" >&2
  echo "$deps" >&2
  exit 1
fi
echo "ngi-core for $target links $(grep -Eo '^[0-9]+ [a-z_]+' <<<"$deps" | cut -d' ' -f2 | paste -sd' ') only"

# The host: every entry decoded in WASM, compared with `ngi cat --index N`.
node wasm/host.mjs "$module" "$fixture" "$ngi"

echo "wasm-check: $(basename "$module") is $(stat -c %s "$module") bytes" \
  "(opt-level \"z\", LTO, stripped); check took $((SECONDS - start)) s"
