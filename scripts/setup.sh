#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet. Every make target
# that needs a tool runs this first; every step checks for its result before doing
# anything, so once all is there it takes a fraction of a second.
#
# On Debian and Ubuntu it installs system packages itself (apt-get, as root or through
# sudo). Elsewhere (macOS, Fedora, ...) it says exactly what is missing and how to get
# it, then stops, instead of failing later deep inside a build.
#
# The Rust toolchain that builds wasm32 is chosen in this order:
#   1. the release pinned in rust-toolchain.toml, installed by rustup with its wasm32
#      target, rustfmt and clippy (a short timeout: some networks never answer);
#   2. where rustup cannot fetch it: Debian's rustc-web with its standard-library
#      source, linked into rustup as `lathe-wasm`, with a wasm32 std built here once.
# Its name is written to .tools/rust-toolchain, and the Makefile passes it on as
# RUSTUP_TOOLCHAIN to every cargo and wasm-pack call. LATHE_WASM_FALLBACK=1 goes
# straight to 2, to exercise that path on a machine that would not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain is chosen here; an inherited choice (even an empty one) must not interfere,
# and rustup must not start a download of its own (without a timeout) when asked about one.
unset RUSTUP_TOOLCHAIN
export RUSTUP_AUTO_INSTALL=0

# Pinned tool versions. WASM_BINDGEN must equal the wasm-bindgen crate pin in core/Cargo.toml.
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' core/Cargo.toml)
PINNED_TOOLCHAIN=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
FALLBACK_TOOLCHAIN=lathe-wasm
TARGET=wasm32-unknown-unknown
OS=$(uname -s)
ARCH=$(uname -m)

# Whether a command's output contains a text. Not `cmd | grep -q`: with pipefail, grep's
# early exit can kill the command with SIGPIPE and fail the test on a match.
prints() {
  local text=$1 out
  shift
  out=$("$@" 2>/dev/null) || return 1
  [[ $out == *"$text"* ]]
}

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }
fail() {
  printf '\033[1;31m[setup]\033[0m %s\n' "$@" >&2
  exit 1
}
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# `timeout` is GNU coreutils; macOS has it as gtimeout (Homebrew), or not at all.
with_timeout() {
  local seconds=$1
  shift
  if command -v timeout >/dev/null; then
    timeout "$seconds" "$@"
  elif command -v gtimeout >/dev/null; then
    gtimeout "$seconds" "$@"
  else
    "$@"
  fi
}

has_apt() { command -v apt-get >/dev/null && command -v dpkg >/dev/null; }

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then
    sudo_if_needed apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install $*"
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# What is missing on a system without apt: collected, then said all at once.
missing=()
need() { missing+=("$1"); }
hint() {
  # $1: what, $2: macOS (Homebrew), $3: Fedora (dnf)
  case "$OS" in
    Darwin) echo "$1: brew install $2" ;;
    *) echo "$1: dnf install $3 (or your distribution's package of it)" ;;
  esac
}

# --- Node, first: everything else is driven from npm scripts -------------------------
# The range is package.json's `engines` (what Vite 8 and the test tools need).
node_ok() {
  local v major minor
  v=$(node --version 2>/dev/null) || return 1
  v=${v#v}
  major=${v%%.*}
  minor=${v#*.}
  minor=${minor%%.*}
  { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; } ||
    { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } ||
    [ "$major" -ge 23 ]
}
if ! node_ok; then
  fail "Node.js ^20.19 or >=22.12 is needed; found: $(node --version 2>/dev/null || echo none)." \
    "With nvm: nvm install (reads .nvmrc). Or your system's package, or nodejs.org."
fi

# --- Rust ------------------------------------------------------------------------------
if ! command -v rustup >/dev/null; then
  fail "rustup is needed (it installs the pinned Rust release and its wasm32 target)." \
    "Install it as https://rustup.rs says, then run this again."
fi

# True when toolchain $1 has a standard library for target $2 in its sysroot.
has_std() {
  local sysroot
  sysroot=$(rustc "+$1" --print sysroot 2>/dev/null) || return 1
  compgen -G "$sysroot/lib/rustlib/$2/lib/libstd-*.rlib" >/dev/null
}
has_wasm_std() { has_std "$1" "$TARGET"; }

choose_toolchain() {
  if [ -z "${LATHE_WASM_FALLBACK:-}" ]; then
    if has_wasm_std "$PINNED_TOOLCHAIN" && cargo "+$PINNED_TOOLCHAIN" clippy --version >/dev/null 2>&1 &&
      cargo "+$PINNED_TOOLCHAIN" fmt --version >/dev/null 2>&1; then
      echo "$PINNED_TOOLCHAIN"
      return
    fi
    log "rustup toolchain install $PINNED_TOOLCHAIN (rust-toolchain.toml; 5 min timeout)" >&2
    if with_timeout 300 rustup toolchain install "$PINNED_TOOLCHAIN" --profile minimal \
      --target "$TARGET" --component rustfmt --component clippy >&2 &&
      has_wasm_std "$PINNED_TOOLCHAIN"; then
      echo "$PINNED_TOOLCHAIN"
      return
    fi
    log "rustup could not fetch Rust $PINNED_TOOLCHAIN for $TARGET" >&2
  fi
  if has_wasm_std "$FALLBACK_TOOLCHAIN"; then
    echo "$FALLBACK_TOOLCHAIN"
    return
  fi
  if ! has_apt || [ "$ARCH" != x86_64 ]; then
    fail "rustup could not install Rust $PINNED_TOOLCHAIN with the $TARGET target, and the" \
      "fallback (Debian's Rust, building the wasm32 standard library here) needs Debian or" \
      "Ubuntu on x86-64. Check that rustup can reach its server, then run:" \
      "  rustup toolchain install $PINNED_TOOLCHAIN --target $TARGET --component rustfmt --component clippy"
  fi
  build_fallback_toolchain >&2
  echo "$FALLBACK_TOOLCHAIN"
}

build_fallback_toolchain() {
  local pkgs=() p
  for p in rustc-web cargo-web rust-web-src rust-web-clippy rustfmt-web lld-22; do
    dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p")
  done
  [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
  prints "$FALLBACK_TOOLCHAIN" rustup toolchain list || rustup toolchain link "$FALLBACK_TOOLCHAIN" /usr
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

# Long steps run in the background, all at once, while the rest of the set-up goes on
# (the system packages, above all): `in_background NAME COMMAND...` starts one, its output
# in .tools/logs/NAME.log (shown if it fails); `background_done` waits for them all.
running=()
in_background() {
  local name=$1
  shift
  mkdir -p .tools/logs
  "$@" >".tools/logs/$name.log" 2>&1 &
  running+=("$name:$!")
}
background_done() {
  local entry failed=()
  for entry in "${running[@]}"; do
    if ! wait "${entry#*:}"; then
      failed+=("${entry%%:*}")
      cat ".tools/logs/${entry%%:*}.log" >&2
    fi
  done
  [ ${#failed[@]} -eq 0 ] || fail "failed: ${failed[*]} (its output is above)"
  [ ${#running[@]} -eq 0 ] || log "done: ${running[*]%%:*}"
}

# Tools built from crates.io: no registry reachable here has them prebuilt for this
# machine (their npm wrappers and cargo-binstall download from GitHub's releases, out of
# reach), and building them is most of a new machine's set-up: in the background.
cargo_install() {
  local bin=$1 crate=$2 version=$3
  shift 3
  if command -v "$bin" >/dev/null && prints " $version" "$bin" --version; then
    return
  fi
  log "cargo install $crate $version (in the background: a few minutes)"
  # Host tools, built with the chosen toolchain (rust-toolchain.toml's may be missing).
  in_background "$crate" env RUSTUP_TOOLCHAIN="$toolchain" \
    cargo install -q "$crate" --version "$version" "$@"
}

mkdir -p .tools
toolchain=$(choose_toolchain)
echo "$toolchain" >.tools/rust-toolchain.new
# Rewritten only when it changes, so make sees no newer file on every run.
if cmp -s .tools/rust-toolchain.new .tools/rust-toolchain 2>/dev/null; then
  rm .tools/rust-toolchain.new
else
  mv .tools/rust-toolchain.new .tools/rust-toolchain
  log "Rust toolchain for wasm32: $toolchain"
fi
# rustfmt and clippy of the fallback toolchain come from Debian.
if [ "$toolchain" = "$FALLBACK_TOOLCHAIN" ] &&
  ! { cargo "+$toolchain" fmt --version && cargo "+$toolchain" clippy --version; } >/dev/null 2>&1; then
  apt_install rust-web-clippy rustfmt-web
fi

# The container image's static lathe-site (make image, deploy/Containerfile): musl, its
# target through rustup. Where rustup cannot fetch it (or with the fallback toolchain),
# glibc linked statically (the Makefile adds crt-static for a -gnu target). Chosen once,
# written to .tools/static-target.
if [ "$OS" = Linux ] && ! { [ -f .tools/static-target ] && [ .tools/static-target -nt .tools/rust-toolchain ]; }; then
  static_target="$ARCH-unknown-linux-musl"
  if ! has_std "$toolchain" "$static_target"; then
    log "rustup target add $static_target (for the container image; 60 s timeout)"
    if [ "$toolchain" = "$FALLBACK_TOOLCHAIN" ] ||
      ! with_timeout 60 rustup target add "$static_target" --toolchain "$toolchain" >&2 ||
      ! has_std "$toolchain" "$static_target"; then
      static_target="$ARCH-unknown-linux-gnu"
      log "the container image's lathe-site: glibc, linked statically ($static_target)"
    fi
  fi
  echo "$static_target" >.tools/static-target
fi

# Where `cargo install` puts programs.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# wasm-pack's own npm wrapper downloads a binary from elsewhere; crates.io works everywhere.
cargo_install wasm-pack wasm-pack "$WASM_PACK_VERSION" --locked
# Not --locked: its lock names a webpki-roots version some registry mirrors lack.
cargo_install wasm-bindgen wasm-bindgen-cli "$WASM_BINDGEN_VERSION"
# The driver for Firefox (not a Debian package).
cargo_install geckodriver geckodriver "$GECKODRIVER_VERSION" --locked

# --- Node packages, exactly as package-lock.json pins them (in the background) --------
# make test installs them itself, as a job beside the tests' Rust build (it sets
# LATHE_SETUP_NPM=0; Makefile, NODE_MODULES): a clean clone's set-up was npm ci alone.
if [ "${LATHE_SETUP_NPM:-1}" != 0 ] &&
  { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  log "npm ci (in the background)"
  in_background npm-ci npm ci --no-audit --no-fund --loglevel=error
fi

# --- System packages -------------------------------------------------------------------
# Each check below adds what is missing to `wanted` (apt_want); all are installed at
# once after the checks, while the crates above build.
wanted=()
apt_bare=()
apt_want() { wanted+=("$@"); }

# --- Browsers and Java -----------------------------------------------------------------
# Chromium and its driver, for wasm-pack's browser tests and Playwright. CHROMIUM names
# the browser where it is not on PATH as `chromium`.
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ] || ! command -v chromedriver >/dev/null; then
  if has_apt; then
    apt_want chromium chromium-driver
  else
    need "$(hint "Chromium and chromedriver" "--cask chromium && brew install chromedriver" "chromium chromedriver"), then set CHROMIUM to the browser's executable"
  fi
fi
# Chromium's headless shell, the same engine without the full browser's windows, GPU
# process and extensions, for the Playwright suites (the Makefile's TEST_CHROMIUM). Where
# a system has none, they drive CHROMIUM.
if ! command -v chromium-headless-shell >/dev/null && has_apt &&
  apt-cache show chromium-headless-shell >/dev/null 2>&1; then
  apt_want chromium-headless-shell
fi
# Firefox ESR and WebKitGTK's WebDriver (Safari's engine), with Xvfb for WebKitGTK, which
# has no headless mode; geckodriver comes from crates.io below.
if ! command -v firefox-esr >/dev/null && [ -z "${FIREFOX:-}" ] || ! command -v WebKitWebDriver >/dev/null ||
  ! command -v Xvfb >/dev/null; then
  if has_apt; then
    apt_want firefox-esr webkit2gtk-driver xvfb
  else
    need "$(hint "Firefox, and WebKitGTK's WebDriver with Xvfb (Linux only)" "--cask firefox (WebKitGTK: none on macOS; use Linux)" "firefox webkitgtk6.0 xorg-x11-server-Xvfb"), then set FIREFOX to Firefox's executable"
  fi
fi
# Java for the W3C Nu HTML Checker (vnu-jar, from npm).
if ! java -version >/dev/null 2>&1; then
  if has_apt; then
    apt_want openjdk-17-jre-headless
  else
    need "$(hint "Java 17 or newer" "openjdk@17" "java-17-openjdk-headless")"
  fi
fi
# nginx with brotli_static, to test the deployment configuration in deploy/nginx; wrk
# for make bench, which sets the Rust server beside nginx.
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ] ||
  [ ! -f /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || ! command -v wrk >/dev/null; then
  if has_apt; then
    apt_want nginx libnginx-mod-http-brotli-static wrk
  else
    need "$(hint "nginx with the brotli_static module, and wrk" "nginx wrk (and build ngx_brotli)" "nginx nginx-mod-brotli wrk")"
  fi
fi
# PostgreSQL's server programs, for the waitlist's tests and benchmarks against a real
# PostgreSQL: scripts/postgres.sh starts a throwaway cluster of its own each time, so
# the package's default cluster is not created (nothing runs as a service).
if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null && ! command -v pg_ctl >/dev/null &&
  [ -z "${PG_BIN:-}" ]; then
  if has_apt; then
    sudo_if_needed mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" | sudo_if_needed tee /etc/postgresql-common/createcluster.d/lathe.conf >/dev/null
    apt_want postgresql
  else
    need "$(hint "PostgreSQL's server programs (initdb, pg_ctl), or set PG_BIN to their folder" "postgresql@17" "postgresql-server")"
  fi
fi
# systemd-analyze, with which the tests check the service unit in deploy/systemd.
if ! command -v systemd-analyze >/dev/null; then
  if has_apt; then
    apt_want systemd
  else
    need "$(hint "systemd-analyze (systemd)" "(none on macOS: run make test on Linux)" "systemd")"
  fi
fi
# Prometheus and promtool, with which the tests scrape and lint the server's metrics.
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  if has_apt; then
    apt_bare+=(prometheus)
  else
    need "$(hint "prometheus and promtool" "prometheus" "golang-github-prometheus")"
  fi
fi
# podman, which builds the container image, and musl-gcc, which compiles SQLite's C for
# the image's static (musl) lathe-site.
if ! command -v podman >/dev/null || { [[ "$(cat .tools/static-target 2>/dev/null)" == *musl ]] &&
  ! command -v musl-gcc >/dev/null; }; then
  if has_apt; then
    apt_want podman musl-tools
  else
    need "$(hint "podman (the container image's tests; Linux only)" "podman" "podman musl-gcc")"
  fi
fi
# aiosmtpd, the real SMTP server the tests send the confirmation emails to (Debian's
# package is for Debian's own Python, /usr/bin/python3, which the tests prefer).
if ! /usr/bin/python3 -c "import aiosmtpd" 2>/dev/null && ! python3 -c "import aiosmtpd" 2>/dev/null; then
  if has_apt; then
    apt_want python3-aiosmtpd
  else
    need "$(hint "aiosmtpd (Python)" "python3 -m pip install aiosmtpd" "python3-aiosmtpd")"
  fi
fi
# The receiving side's checkers the mail tests read the server's emails with: dkimpy
# (DKIM's reference implementation; PyNaCl for Ed25519 keys) and SpamAssassin, whose
# local rules score each email (`spamassassin -L -t`). Debian's, for Debian's Python.
if ! /usr/bin/python3 -c "import dkim, nacl" 2>/dev/null; then
  if has_apt; then
    apt_want python3-dkim python3-nacl
  else
    need "$(hint "dkimpy and PyNaCl (Python)" "dkimpy (pip) and libsodium" "python3-dkimpy python3-pynacl")"
  fi
fi
if ! command -v spamassassin >/dev/null; then
  if has_apt; then
    apt_want spamassassin
  else
    need "$(hint "SpamAssassin" "spamassassin" "spamassassin")"
  fi
fi
# The reference implementations the tests check the server against, pinned: the
# Standard Webhooks library (PyPI's standardwebhooks), with which the tests' webhook
# receiver (server/tests/webhook_sink.py) checks every delivery, and ALTCHA's (PyPI's
# altcha), which solves the server's challenges and checks our solver
# (core/solver/tests/altcha_reference.py): in a virtual environment of Debian's Python of
# the project's own, .tools/python.
venv=
if ! .tools/python/bin/python -c "import standardwebhooks, altcha" 2>/dev/null; then
  venv=1
  if ! /usr/bin/python3 -c "import ensurepip" 2>/dev/null; then
    if has_apt; then
      apt_want python3-venv
    else
      need "$(hint "Python's venv module" "python3" "python3")"
    fi
  fi
fi
# The sqlite3 shell, with which the tests check a backup as an owner would.
if ! command -v sqlite3 >/dev/null; then
  if has_apt; then
    apt_want sqlite3
  else
    need "$(hint "the sqlite3 shell" "sqlite" "sqlite")"
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  fail "Missing on this $OS $ARCH machine (no apt-get here to install them):" \
    "${missing[@]/#/  - }" "Install them, then run this again."
fi
# What is missing, in one apt-get run (one download, one dpkg pass); Prometheus without
# its recommended packages (a desktop's worth), in a run of its own.
[ ${#wanted[@]} -eq 0 ] || apt_install "${wanted[@]}"
[ ${#apt_bare[@]} -eq 0 ] || apt_install --no-install-recommends "${apt_bare[@]}"
if [ -n "$venv" ]; then
  log "pip install standardwebhooks and altcha into .tools/python"
  rm -rf .tools/python
  /usr/bin/python3 -m venv .tools/python
  .tools/python/bin/pip install --quiet --disable-pip-version-check \
    standardwebhooks==1.1.0 altcha==2.3.0
fi

background_done
