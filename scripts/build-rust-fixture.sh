#!/bin/sh
# Rebuilds the Rust/clap test fixture (test/fixtures/rust-clap/rcat.wasm) offline from Debian's
# packaged crates and checks it against the committed SHA-256. Needs Debian bookworm's
#   rustc cargo libstd-rust-dev-wasm32 librust-clap-dev lld-14
# (Rust 1.63, clap 4.0.32, target wasm32-wasi). Tests never need this: they run the committed
# .wasm. Exit 0: rebuilt and identical; 1: rebuilt but different (the new hash is printed;
# pass --update to keep it); 2: the toolchain is missing (what is missing is printed).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
fixture="$here/test/fixtures/rust-clap"
registry=/usr/share/cargo/registry
update=0
[ "${1:-}" = "--update" ] && update=1
# Debian's toolchain first: a rustup install elsewhere on PATH would build a different module.
PATH="/usr/lib/llvm-14/bin:/usr/bin:$PATH"
export PATH

missing=""
command -v cargo >/dev/null 2>&1 || missing="$missing cargo"
command -v rustc >/dev/null 2>&1 || missing="$missing rustc"
if command -v rustc >/dev/null 2>&1; then
  sysroot=$(rustc --print sysroot)
  [ -d "$sysroot/lib/rustlib/wasm32-wasi" ] || missing="$missing libstd-rust-dev-wasm32(target wasm32-wasi)"
fi
[ -d "$registry" ] && ls "$registry" | grep -q '^clap-4' || missing="$missing librust-clap-dev($registry/clap-4.*)"
command -v wasm-ld >/dev/null 2>&1 || command -v wasm-ld-14 >/dev/null 2>&1 || [ -x /usr/lib/llvm-14/bin/wasm-ld ] || missing="$missing lld-14(wasm-ld)"
if [ -n "$missing" ]; then
  echo "build-rust-fixture: cannot rebuild, missing:$missing" >&2
  echo "  on Debian bookworm: apt-get install rustc cargo libstd-rust-dev-wasm32 librust-clap-dev lld-14" >&2
  exit 2
fi

# A private CARGO_HOME whose crates-io source is Debian's crate directory: nothing is fetched.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cargo-home"
cat >"$work/cargo-home/config.toml" <<CONF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$registry"
CONF
cp -r "$fixture/Cargo.toml" "$fixture/src" "$work/"
[ -f "$fixture/Cargo.lock" ] && cp "$fixture/Cargo.lock" "$work/"
# Paths are remapped so the module does not depend on where it was built.
(cd "$work" && CARGO_HOME="$work/cargo-home" RUSTFLAGS="--remap-path-prefix=$work=/build --remap-path-prefix=$registry=/registry" \
  cargo build --offline --locked --release --target wasm32-wasi -q)
built="$work/target/wasm32-wasi/release/rcat.wasm"
want=$(cut -d' ' -f1 "$fixture/rcat.wasm.sha256")
got=$(sha256sum "$built" | cut -d' ' -f1)
if [ "$got" = "$want" ]; then
  echo "build-rust-fixture: rebuilt rcat.wasm is identical to the committed one ($got)"
  exit 0
fi
if [ "$update" = 1 ]; then
  cp "$built" "$fixture/rcat.wasm"
  echo "$got  rcat.wasm" >"$fixture/rcat.wasm.sha256"
  echo "build-rust-fixture: rcat.wasm updated ($got, $(wc -c <"$built") bytes)"
  exit 0
fi
echo "build-rust-fixture: the rebuilt rcat.wasm differs from the committed one" >&2
echo "  committed: $want" >&2
echo "  rebuilt:   $got (run with --update to keep it)" >&2
exit 1
