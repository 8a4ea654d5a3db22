#!/usr/bin/env bash
# Proves that ngi-core built without default features links neither `std` nor `alloc`,
# and that nothing in its dependency tree does: it builds for a bare-metal target whose
# sysroot has no `std` at all, then reads the crate dependencies recorded in every rlib
# of that build (rustc's `-Z ls`, allowed on stable through RUSTC_BOOTSTRAP for this
# read-only query). Three builds: no feature at all, `embedded-io`, and it with `heapless` (the
# embedded readers, the opener driver and heapless storage), each in a folder of its own
# under the target directory ($CARGO_TARGET_DIR when set).
set -euo pipefail
cd "$(dirname "$0")/.."
target=thumbv7em-none-eabihf
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
out=${CARGO_TARGET_DIR:-target}
status=0
shopt -s nullglob
for features in "" "embedded-io" "embedded-io,heapless"; do
  dir=$out/no-std/${features:-none}
  cargo build -p ngi-core --no-default-features ${features:+--features "$features"} \
    --target "$target" --target-dir "$dir" --locked --quiet
  rlibs=("$dir/$target"/debug/deps/*.rlib)
  [ ${#rlibs[@]} -gt 0 ] || { echo "no rlib was built for $target in $dir" >&2; exit 1; }
  for rlib in "${rlibs[@]}"; do
    deps=$(RUSTC_BOOTSTRAP=1 rustc -Z ls=root "$rlib" | sed -n '/=External Dependencies=/,$p')
    [ -n "$deps" ] || { echo "cannot read the dependencies of $rlib" >&2; exit 1; }
    if grep -Eq '^[0-9]+ (std|alloc)-' <<<"$deps"; then
      echo "$rlib links std or alloc:" >&2
      echo "$deps" >&2
      status=1
    fi
  done
  [ $status -eq 0 ] && echo "no-std check (features: ${features:-none}): ${#rlibs[@]} rlib(s) for $target link neither std nor alloc"
done
exit $status
