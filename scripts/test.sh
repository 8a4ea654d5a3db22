#!/usr/bin/env bash
# The project's test command (README.md): installs what the tests use, then runs every
# check CI runs. Safe to rerun; needs network only for what is not installed yet.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "tools"
rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed | grep -q '^clippy' || rustup component add clippy
target=thumbv7em-none-eabihf
rustup target list --installed | grep -qx "$target" || rustup target add "$target"

step "reference tools the conformance tests use (nobody on the team wrote them)"
# Debian: lhasa decodes LHA -lh1- (LZHUF); jlha-utils is an independent Java LZHUF encoder.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
command -v lha >/dev/null 2>&1 || command -v lhasa >/dev/null 2>&1 || missing+=(lhasa)
[ -e /usr/share/java/jlha.jar ] || missing+=(jlha-utils)
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
# Deflate encoders: zopfli, pigz, libdeflate, 7-Zip.
for pair in zopfli:zopfli pigz:pigz libdeflate-gzip:libdeflate-tools 7z:p7zip-full; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
# ngi serve's pages are checked in a real browser: Debian's headless Chromium.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
fi
# PyPI, in a venv of the project's: pylzss (module `lzss`) is a port of Okumura's LZSS.C;
# isal is Intel's ISA-L Deflate encoder.
venv=target/ref-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import lzss' 2>/dev/null || "$venv/bin/pip" install -q pylzss==0.3.9
"$venv/bin/python" -c 'import isal' 2>/dev/null || "$venv/bin/pip" install -q isal==1.9.1
export NGI_PYTHON="$PWD/$venv/bin/python"

step "format"
cargo fmt --all -- --check

step "lints (workspace, then ngi-core and ngi-tokio without default features, and with all of them)"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p ngi-core --no-default-features --all-targets --locked -- -D warnings
cargo clippy -p ngi-core --all-features --all-targets --locked -- -D warnings
cargo clippy -p ngi-tokio --no-default-features --all-targets --locked -- -D warnings
cargo clippy -p ngi-tokio --all-features --all-targets --locked -- -D warnings

step "ngi-core builds with no std and no alloc (bare metal, with and without embedded-io)"
cargo build -p ngi-core --no-default-features --locked
bash scripts/check-no-std.sh

step "docs (broken links and missing docs fail)"
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-core --no-deps --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-core --no-deps --no-default-features --locked --quiet
# `alloc` without `std`: the editors' links to what only `std` has.
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-core --no-deps --no-default-features --features alloc --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-core --no-deps --all-features --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-tokio --no-deps --locked --quiet
RUSTDOCFLAGS="-D warnings" cargo doc -p ngi-tokio --no-deps --all-features --locked --quiet

step "tests"
# The tests run with a temporary folder of their own, so that what they leave there can
# be seen: every file or folder they make is named ngi-*, and none may be left.
tests_tmp=$(mktemp -d)
TMPDIR="$tests_tmp" cargo test --workspace --locked
# ngi-tokio alone, without the futures-io feature the workspace build turns on (its doc
# tests, the README's among them).
TMPDIR="$tests_tmp" cargo test -p ngi-tokio --locked
# ngi-core alone without its default features: its no-alloc unit and doc tests (the
# workspace build turns alloc and std on for it).
TMPDIR="$tests_tmp" cargo test -p ngi-core --no-default-features --locked
# And with `alloc` alone: the writers without Deflate packing, which they refuse.
TMPDIR="$tests_tmp" cargo test -p ngi-core --no-default-features --features alloc --locked
left=$(find "$tests_tmp" -mindepth 1 -maxdepth 1 -name 'ngi-*')
if [ -n "$left" ]; then
  printf 'the tests left these behind in the temporary folder:\n%s\n' "$left"
  exit 1
fi
rm -rf "$tests_tmp"

step "benches and fuzz targets build (so they cannot rot)"
cargo bench -p ngi-benches --no-run --locked
cargo check --manifest-path fuzz/Cargo.toml --bins

step "WASM host (Node.js)"
bash scripts/wasm-check.sh

step "README's first command"
cargo run --release -p ngi-cli -- list samples/sample.rsli
