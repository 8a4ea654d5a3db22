#!/usr/bin/env bash
# Proves that ngi-core built without default features links neither `std` nor `alloc`,
# and that nothing in its dependency tree does: it builds for a bare-metal target whose
# sysroot has no `std` at all, then reads the crate dependencies recorded in every rlib
# of that build (rustc's `-Z ls`, allowed on stable through RUSTC_BOOTSTRAP for this
# read-only query).
set -euo pipefail
cd "$(dirname "$0")/.."
target=thumbv7em-none-eabihf
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
cargo build -p ngi-core --no-default-features --target "$target" --quiet
status=0
shopt -s nullglob
rlibs=(target/"$target"/debug/deps/*.rlib)
[ ${#rlibs[@]} -gt 0 ] || { echo "no rlib was built for $target" >&2; exit 1; }
for rlib in "${rlibs[@]}"; do
  deps=$(RUSTC_BOOTSTRAP=1 rustc -Z ls=root "$rlib" | sed -n '/=External Dependencies=/,$p')
  [ -n "$deps" ] || { echo "cannot read the dependencies of $rlib" >&2; exit 1; }
  if grep -Eq '^[0-9]+ (std|alloc)-' <<<"$deps"; then
    echo "$rlib links std or alloc:" >&2
    echo "$deps" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "no-std check: ${#rlibs[@]} rlib(s) for $target link neither std nor alloc"
exit $status
