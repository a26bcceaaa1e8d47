#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet.
# Every step checks for its result first, so a second run takes seconds.
#
# The Rust toolchain that can build wasm32 is chosen in this order:
#   1. the default rustup toolchain, if it already has the wasm32 standard library;
#   2. `rustup target add wasm32-unknown-unknown`, if it answers within 60 s;
#   3. Debian's rustc-web 1.96 with its std source, linked into rustup as
#      `lathe-wasm`, with a wasm32 std built here once (see README, "Set-up").
# Its name is written to .tools/rust-toolchain; the Makefile exports it as
# RUSTUP_TOOLCHAIN for every cargo and wasm-pack call. LATHE_WASM_FALLBACK=1 skips
# straight to 3, to exercise that path on a machine that would not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain is chosen here; an inherited choice (even an empty one) must not interfere.
unset RUSTUP_TOOLCHAIN

# Pinned tool versions. WASM_BINDGEN must equal the wasm-bindgen crate pin in core/Cargo.toml.
WASM_PACK_VERSION=0.15.1
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' core/Cargo.toml)
FALLBACK_TOOLCHAIN=lathe-wasm
TARGET=wasm32-unknown-unknown

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=
apt_install() {
  if ! command -v apt-get >/dev/null; then
    echo "setup: please install $* with your system's package manager" >&2
    exit 1
  fi
  if [ -z "$apt_updated" ]; then
    sudo_if_needed apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install $*"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# True when toolchain $1 has a wasm32 standard library in its sysroot.
has_wasm_std() {
  local sysroot
  sysroot=$(rustc "+$1" --print sysroot 2>/dev/null) || return 1
  compgen -G "$sysroot/lib/rustlib/$TARGET/lib/libstd-*.rlib" >/dev/null
}

choose_toolchain() {
  local default
  default=$(rustup show active-toolchain 2>/dev/null | cut -d' ' -f1)
  if [ -n "${LATHE_WASM_FALLBACK:-}" ]; then
    has_wasm_std "$FALLBACK_TOOLCHAIN" || build_fallback_toolchain >&2
    echo "$FALLBACK_TOOLCHAIN"
    return
  fi
  if [ -n "$default" ] && has_wasm_std "$default"; then
    echo "$default"
    return
  fi
  if has_wasm_std "$FALLBACK_TOOLCHAIN"; then
    echo "$FALLBACK_TOOLCHAIN"
    return
  fi
  if [ -n "$default" ]; then
    log "trying: rustup target add $TARGET (60 s timeout)" >&2
    if timeout 60 rustup target add "$TARGET" --toolchain "$default" >&2 && has_wasm_std "$default"; then
      echo "$default"
      return
    fi
    log "rustup could not fetch the target; building the wasm32 std from Debian's Rust" >&2
  fi
  build_fallback_toolchain >&2
  echo "$FALLBACK_TOOLCHAIN"
}

build_fallback_toolchain() {
  local pkgs=()
  for p in rustc-web cargo-web rust-web-src rust-web-clippy rustfmt-web lld-22; do
    dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p")
  done
  [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
  rustup toolchain list | grep -q "^$FALLBACK_TOOLCHAIN" || rustup toolchain link "$FALLBACK_TOOLCHAIN" /usr
  local host_bin=/usr/lib/rustlib/x86_64-unknown-linux-gnu/bin
  sudo_if_needed mkdir -p "$host_bin"
  sudo_if_needed ln -sfn /usr/lib/llvm-22/bin/lld "$host_bin/rust-lld"

  log "building the wasm32 standard library (about a minute)"
  local scratch
  scratch=$(mktemp -d)
  cargo "+$FALLBACK_TOOLCHAIN" init -q --lib --name wasm_std_scratch "$scratch"
  (cd "$scratch" && RUSTC_BOOTSTRAP=1 cargo "+$FALLBACK_TOOLCHAIN" build -q --release \
    --target "$TARGET" -Z build-std=std,panic_abort,test,proc_macro)
  local libdir=/usr/lib/rustlib/$TARGET/lib
  sudo_if_needed mkdir -p "$libdir"
  find "$scratch/target/$TARGET/release/deps" -name 'lib*.rlib' ! -name 'libwasm_std_scratch-*' \
    -exec cp {} "$libdir/" \;
  rm -rf "$scratch"
}

cargo_install() {
  local bin=$1 crate=$2 version=$3
  shift 3
  if command -v "$bin" >/dev/null && "$bin" --version | grep -q " $version"; then
    return
  fi
  log "cargo install $crate $version (a few minutes)"
  # Built with the default toolchain: these are host tools, not wasm.
  env -u RUSTUP_TOOLCHAIN cargo install -q "$crate" --version "$version" "$@"
}

mkdir -p .tools
toolchain=$(choose_toolchain)
echo "$toolchain" > .tools/rust-toolchain
log "Rust toolchain for wasm32: $toolchain"

# rustfmt and clippy for the chosen toolchain (rustup installs them where it can).
if ! cargo "+$toolchain" fmt --version >/dev/null 2>&1 || ! cargo "+$toolchain" clippy --version >/dev/null 2>&1; then
  if [ "$toolchain" = "$FALLBACK_TOOLCHAIN" ]; then
    apt_install rust-web-clippy rustfmt-web
  else
    timeout 120 rustup component add rustfmt clippy --toolchain "$toolchain"
  fi
fi

export PATH="$HOME/.cargo/bin:$PATH"
# wasm-pack's own npm wrapper downloads a binary from elsewhere; crates.io works everywhere.
cargo_install wasm-pack wasm-pack "$WASM_PACK_VERSION" --locked
# Not --locked: its lock names a webpki-roots version some registry mirrors lack.
cargo_install wasm-bindgen wasm-bindgen-cli "$WASM_BINDGEN_VERSION"

# Chromium and its driver for wasm-pack's browser tests and Playwright.
if [ -n "${CHROMIUM:-}" ]; then
  :
elif ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt_install chromium chromium-driver
fi

# Java for the W3C Nu HTML Checker (vnu-jar, from npm).
command -v java >/dev/null || apt_install openjdk-17-jre-headless

# Node packages, exactly as package-lock.json pins them (binaryen's wasm-opt among them).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

log "ready"
