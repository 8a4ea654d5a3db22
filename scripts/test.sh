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

step "format"
cargo fmt --all -- --check

step "lints (workspace, then ngi-core without default features)"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p ngi-core --no-default-features --all-targets --locked -- -D warnings

step "ngi-core builds with no std and no alloc"
cargo build -p ngi-core --no-default-features --locked
bash scripts/check-no-std.sh

step "tests"
cargo test --workspace --locked

step "benches and fuzz targets build (so they cannot rot)"
cargo bench -p ngi-benches --no-run --locked
cargo check --manifest-path fuzz/Cargo.toml --bins

step "README's first command"
cargo run --release -p ngi-cli -- list samples/sample.rsli
