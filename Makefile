# The two commands a newcomer needs: `make start` and `make test`. See README.md.
# Every target works as the first command on a fresh clone: each runs the set-up first
# (scripts/setup.sh, a fraction of a second once everything is installed).
ifneq ($(filter 3.%,$(MAKE_VERSION)),)
$(error GNU make 4 or newer is needed (this is $(MAKE_VERSION)). On macOS: brew install make, then run gmake)
endif

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Tools installed by scripts/setup.sh: cargo's bin for wasm-pack and wasm-bindgen, and
# node_modules/.bin first so that wasm-pack finds binaryen's current wasm-opt.
export PATH := $(CURDIR)/node_modules/.bin:$(or $(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)
# The Rust toolchain that builds wasm32, as chosen by scripts/setup.sh; and cargo's own jobs
# (as many as cores), not make's: under make test's -j2 a cargo took its jobs from make's
# jobserver and, beside a recipe that waited, compiled one crate at a time for six minutes.
RUST = env -u MAKEFLAGS -u MFLAGS RUSTUP_TOOLCHAIN="$$(cat .tools/rust-toolchain)"
# The browser for every test: CHROMIUM if set, else the first Chromium on PATH, looked up
# each time a recipe needs it. Set but empty counts as unset: on a fresh machine make
# test's first make runs before the set-up has installed Chromium, and hands the empty
# value it found to the makes that run the tests (scripts/tests/setup.test.mjs).
ifeq ($(strip $(CHROMIUM)),)
CHROMIUM = $(shell command -v chromium || command -v chromium-browser || command -v google-chrome || true)
endif
export CHROMIUM
# The Chromium the Playwright suites drive (the browser tests, the npm consumers): its
# headless shell where installed (scripts/setup.sh): the same engine without the full
# browser's windows, GPU process and extensions. Measured on two cores, the accessibility
# and site suites took 71 s and 117 CPU-seconds with it, 94 s and 174 with the full
# browser. make bench measures pages in CHROMIUM, the browser visitors use.
TEST_CHROMIUM ?= $(or $(shell command -v chromium-headless-shell),$(CHROMIUM))
PORT ?= 4173

CORE_SOURCES := Cargo.toml Cargo.lock $(wildcard core/Cargo.toml core/README.md core/src/*.rs core/constants/Cargo.toml core/constants/src/*.rs core/solver/Cargo.toml core/solver/src/*.rs)
# The site's server, built once in release for what make serves and ships (make start,
# make collect, the container image): linked statically for the target scripts/setup.sh
# chose (.tools/static-target: musl, or glibc linked statically where rustup has no musl),
# natively where there is none (macOS). In a build folder of its own
# (target/static-build), so that it never waits for Cargo's lock on target/release, which
# the wasm builds take. make bench measures the native build, target/release.
SERVER := target/static/lathe-site
# The server make test runs (the builds' compression, the browser tests, the image's
# test): the test build's own binary, where that is static (the tests built for musl, see
# TEST_TARGET), so that make test compiles the server once, not once more in release (a
# fat-LTO build: 430 CPU-seconds, the largest single step of make test). Elsewhere the
# release build above. The same sources, the same recipe; `make SITE=$(SERVER) ...`
# chooses the release build for any target.
TEST_SERVER := target/test/lathe-site
SITE ?= $(SERVER)
# For the browser tests and deploy/nginx/run-local.sh: the server they start.
export LATHE_SITE := $(CURDIR)/$(SITE)
# The target make test's Rust is built for, in a recipe: the static target where it is musl
# (a static musl program runs here as any other; its debug build then serves the browser
# tests and the image), else none (the machine's own). In a build folder of its own, so
# that the tests' build never waits for Cargo's lock on target/, which the wasm package and
# clippy take beside it. Our own crates are compiled there by clippy's driver, which
# compiles as rustc does and runs clippy's lints as it goes: make lint reads its warnings
# (scripts/lints.mjs), so that clippy needs no build of its own (`cargo clippy` checked every
# dependency again: 200 CPU-seconds of make test's 1,800). Elsewhere, `cargo clippy`. Linked
# by the toolchain's own lld where it has one: the sixteen test programs took 17.5
# CPU-seconds to link with the system's ld, 4.8 with lld.
TEST_TARGET = export CARGO_TARGET_DIR=target/test-build; \
  target="$$(cat .tools/static-target 2>/dev/null || true)"; [[ "$$target" == *-musl ]] || target=""; \
  sysroot="$$($(RUST) rustc --print sysroot)"; clippy="$$sysroot/bin/clippy-driver"; \
  if [ -n "$$target" ] && [ -x "$$clippy" ]; then export RUSTC_WORKSPACE_WRAPPER="$$clippy"; fi; \
  lld="$$(echo "$$sysroot"/lib/rustlib/*/bin/gcc-ld)"; \
  if [ -n "$$target" ] && [ -x "$$lld/ld.lld" ]; then \
    export "CARGO_TARGET_$$(echo "$$target" | tr a-z- A-Z_)_RUSTFLAGS=-C link-arg=-B$$lld -C link-arg=-fuse-ld=lld"; \
  fi
# The wasm tests' build (test-wasm), compiled by clippy's driver as the native tests' is:
# make lint builds it for each crate as wasm-pack test will (its `cargo test` in the crate's
# folder: the same features) and reads its lints, and test-wasm finds it built. Its
# `--lib --test web` are every target that has code for wasm32. `cargo clippy --target
# wasm32` had checked every dependency a second time beside that build (41 CPU-seconds).
# In a build folder of its own, as the native tests' is: in target/ the wasm package's
# build waited for Cargo's lock while this one held it (a clean clone's package came 4 to
# 5.7 minutes in, and everything that needs it after).
WASM_TEST_BUILD = export CARGO_TARGET_DIR="$(CURDIR)/target/wasm-test" \
  RUSTC_WORKSPACE_WRAPPER="$$($(RUST) rustc --print sysroot)/bin/clippy-driver"
RUST_SOURCES := Cargo.toml Cargo.lock $(shell find core server -type f \( -name '*.rs' -o -name Cargo.toml -o -name '*.sql' \) -not -path '*/target/*')
SERVER_SOURCES := Cargo.toml Cargo.lock server/Cargo.toml $(shell find server/src server/migrations -type f)
WEB_SOURCES := $(shell find web/src web/public web/scripts web/index.html web/vite.config.ts -type f 2>/dev/null)

.PHONY: help setup start collect dev build pkg test lint test-setup test-rust test-wasm test-web test-html test-package test-e2e image test-image screenshots bench bench-paint bench-report fuzz clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## Install whatever is missing (Rust and its wasm32 target, wasm-pack, Chromium, Java, npm packages)
	@scripts/setup.sh

start: build ## Install, build and serve the site on http://localhost:4173 (PORT=... to change)
	$(SERVER) serve --dist web/dist --port $(PORT)

# The site collecting its waitlist for real: the build with WAITLIST_URL=/api/waitlist (in
# web/dist-waitlist), served with a database. Sign-ups land in DATABASE: a SQLite file
# (created if missing) or a postgres:// URL. `lathe-site waitlist --help` for the owner's tools.
# SMTP=smtp://HOST:PORT also confirms addresses by email (double opt-in), sent from
# MAIL_FROM, with links to this local server, signed by a key made once in .tools/.
DATABASE ?= waitlist.db
SMTP ?=
MAIL_FROM ?= Lathe <waitlist@localhost>
WAITLIST_DIST := web/dist-waitlist
TOKEN_KEY := .tools/token.key
PROOF_KEY := .tools/proof.key
collect: $(WAITLIST_DIST)/index.html $(PROOF_KEY) $(if $(SMTP),$(TOKEN_KEY)) ## Like start, but the form's sign-ups (each with a proof of work) are stored in DATABASE (waitlist.db unless set); SMTP=smtp://HOST:PORT confirms addresses by email
	$(if $(SMTP),LATHE_TOKEN_KEY_FILE=$(TOKEN_KEY)) $(SERVER) serve --dist $(WAITLIST_DIST) --port $(PORT) --database $(DATABASE) \
	  --proof-of-work --proof-key-file $(PROOF_KEY) \
	  $(if $(SMTP),--smtp "$(SMTP)" --mail-from "$(MAIL_FROM)" --site-url http://localhost:$(PORT))

# The keys links and proof-of-work challenges are signed with, made once.
$(TOKEN_KEY) $(PROOF_KEY):
	mkdir -p .tools && umask 077 && head -c 32 /dev/urandom | base64 > $@

dev: pkg ## The Vite dev server with hot reload; a change under core/ rebuilds the wasm and reloads
	npm run dev -w web

build: web/dist/index.html ## Build the static site into web/dist/

pkg: pkg/package.json ## Build the wasm core into pkg/ (the lathe-core npm package)

# The Node packages, exactly as package-lock.json pins them: scripts/setup.sh installs them
# beside the rest of the set-up, except under make test, where this rule does, as a job of
# its own beside the tests' Rust build (which needs none of them): from a clean clone, the
# set-up was 45 s of npm ci with a core idle.
NODE_MODULES := node_modules/.package-lock.json
$(NODE_MODULES): package-lock.json | setup
	npm ci --no-audit --no-fund --loglevel=error

# The package (scripts/pkg.mjs says what each entry is): wasm-pack's bundler, web and Node
# builds (wasm-opt on the first only: the three modules are the same, as scripts/pkg.mjs
# checks), a default entry with the wasm inlined, the wake-up helper, and the constants as
# JSON (written natively from the same Rust values, so a page or a server can use them
# before any wasm has loaded).
pkg/package.json: $(CORE_SOURCES) core/js/wake.ts scripts/pkg.mjs | setup $(NODE_MODULES)
	rm -rf .tools/pkg-build
	for target in bundler web nodejs; do \
	  $(RUST) wasm-pack --quiet build core --release --target $$target --out-dir ../.tools/pkg-build/$$target \
	    $$([ $$target = bundler ] || echo --no-opt); \
	done
	$(RUST) wasm-pack --quiet build core/solver --release --target web --out-dir ../../.tools/pkg-build/solver
	$(RUST) cargo run -q -p lathe-core-constants > .tools/pkg-build/constants.json
	node scripts/pkg.mjs
	@echo "pkg/bundler/lathe_core_bg.wasm: $$(gzip -9c pkg/bundler/lathe_core_bg.wasm | wc -c | tr -d ' ') bytes gzipped (budget $$(node --input-type=module -e "import { targets } from './bench/report.mjs'; console.log(targets.wasmGzipBytes.toLocaleString('en-GB'))"))"

# The site's server (server/): `lathe-site serve`, and the build's compression step.
$(SERVER): $(SERVER_SOURCES) | setup
	target="$$(cat .tools/static-target 2>/dev/null || true)"; \
	  static=""; [[ "$$target" == *-gnu ]] && static="-C target-feature=+crt-static"; \
	  CARGO_TARGET_DIR=target/static-build RUSTFLAGS="$$static" \
	    $(RUST) cargo build --release -q -p lathe-site $${target:+--target "$$target"}; \
	  mkdir -p $(@D) && cp "target/static-build/$${target:+$$target/}release/lathe-site" $@

# make test's server: its Rust tests' build, copied where make finds it (only when it
# changed, so that an unchanged build rebuilds nothing after it).
$(TEST_SERVER): $(RUST_SOURCES) | setup
	$(TEST_TARGET); \
	  if [ -n "$$target" ]; then \
	    $(RUST) cargo test --all-targets --no-run -q --target "$$target"; \
	    built="$$CARGO_TARGET_DIR/$$target/debug/lathe-site"; \
	  else \
	    $(MAKE) $(SERVER); built=$(SERVER); \
	  fi; \
	  mkdir -p $(@D) && { cmp -s "$$built" $@ || cp "$$built" $@; }

# The native release build, for make bench (it measures the server beside nginx).
target/release/lathe-site: $(SERVER_SOURCES) | setup
	$(RUST) cargo build --release -q -p lathe-site

# The container image (deploy/Containerfile): the static lathe-site (SITE, above), its
# symbols stripped, the collecting build and an empty /data, staged in target/image as the
# build's context. Only podman (or docker) and this machine's files: nothing is pulled.
# The image IMAGE named before is removed once the new one has the name (each rebuild left
# an untagged 34 MB image behind: fifteen in one day of CI runs), unless something uses it.
IMAGE ?= lathe-site:latest
CONTAINER ?= podman
image: $(SITE) $(WAITLIST_DIST)/index.html | setup ## The container image of deploy/Containerfile, tagged IMAGE (lathe-site:latest)
	rm -rf target/image && mkdir -p target/image/data
	strip -o target/image/lathe-site $(SITE)
	cp -R $(WAITLIST_DIST) target/image/site
	old="$$($(CONTAINER) image inspect --format '{{.Id}}' $(IMAGE) 2>/dev/null || true)"; \
	$(CONTAINER) build --quiet $(if $(filter podman,$(CONTAINER)),--format docker) -f deploy/Containerfile -t $(IMAGE) target/image >/dev/null && \
	if [ -n "$$old" ] && [ "$$old" != "$$($(CONTAINER) image inspect --format '{{.Id}}' $(IMAGE))" ]; then \
	  $(CONTAINER) image rm "$$old" >/dev/null 2>&1 || echo "kept the image $(IMAGE) was before ($$old): a container or another tag still uses it"; \
	fi
	@echo "$(IMAGE): $$($(CONTAINER) image inspect --format '{{.Size}}' $(IMAGE) | numfmt --to=si)B"

# WAITLIST_URL, the build setting (docs/server.md, "Collecting sign-ups"): recorded in a file that
# changes only when the setting does, so that changing it rebuilds web/dist.
WAITLIST_URL ?=
BUILD_SETTINGS := .tools/build-settings
$(shell mkdir -p .tools; [ "$$(cat $(BUILD_SETTINGS) 2>/dev/null)" = "WAITLIST_URL=$(WAITLIST_URL)" ] || echo "WAITLIST_URL=$(WAITLIST_URL)" > $(BUILD_SETTINGS))

web/dist/index.html: pkg/package.json $(WEB_SOURCES) package-lock.json $(SITE) $(BUILD_SETTINGS) | setup
	WAITLIST_URL="$(WAITLIST_URL)" npm run build -w web
	$(SITE) compress --dist web/dist

$(WAITLIST_DIST)/index.html: pkg/package.json $(WEB_SOURCES) package-lock.json $(SITE) | setup
	WAITLIST_URL=/api/waitlist LATHE_OUT_DIR=dist-waitlist npm run build -w web
	$(SITE) compress --dist $(WAITLIST_DIST)

# make test in two parts, each carried on past a failure (-k), so that one failure hides no
# other result; it fails if anything did. First, two jobs at a time: the checks, the tests
# that need only the sources and the package's consumers (most of their time is compiling,
# or waiting on timeouts and browsers; the machine stays busy, so that the last job's tail
# does not leave a core idle), and the builds' HTML check. Then the browser tests, whose
# load is chosen in tests/playwright.config.ts, and the image's. Both parts run the test
# build's server (SITE).
FIRST = lint $(TEST_SERVER) test-setup test-rust $(CONSUMERS) test-wasm test-web test-package test-html
THEN = test-e2e test-image
test: ## Install, then run every check and test
	@export LATHE_SETUP_NPM=0; status=0; \
	  $(MAKE) -k -j2 --output-sync=target SITE=$(TEST_SERVER) $(FIRST) || status=1; \
	  $(MAKE) -k SITE=$(TEST_SERVER) $(THEN) || status=1; \
	  if [ $$status = 0 ]; then echo "All checks and tests passed."; else echo "Some checks or tests failed (above)."; exit 1; fi

# The type check: TypeScript 7, the compiler in Go (web/ took 2 CPU-seconds to check
# instead of 13 with TypeScript 6, whose compiler in JavaScript stays installed as
# `typescript` for typescript-eslint's typed rules: that needs its JavaScript API).
TSC := node_modules/typescript-7/bin/tsc

# Native clippy last: in make test it reads the tests' build, which $(TEST_SERVER) makes
# beside it (this waits for Cargo's lock on target/test-build, then finds it built).
lint: pkg/package.json | setup ## rustfmt, clippy (native and wasm32), tsc, ESLint, Prettier
	$(RUST) cargo fmt --all --check
	$(RUST) rustfmt --check --edition 2024 bench/before-line/confirmations.rs
	$(WASM_TEST_BUILD); for crate in lathe-core lathe-core-solver; do \
	  $(RUST) cargo test --no-run -p $$crate --lib --test web --target wasm32-unknown-unknown \
	    --message-format=json | node scripts/lints.mjs || exit 1; \
	done
	for project in web tests core/js bench; do $(TSC) --noEmit -p $$project || exit 1; done
	npm run lint
	prettier --check .
	$(TEST_TARGET); set -o pipefail; if [ -n "$${RUSTC_WORKSPACE_WRAPPER:-}" ]; then \
	  $(RUST) cargo test --all-targets --no-run --target "$$target" --message-format=json | node scripts/lints.mjs; \
	else \
	  $(RUST) cargo clippy --all-targets -- -D warnings; \
	fi

test-setup: | setup ## The scripts' tests: the set-up's messages (an old Node, no apt-get, no pkg/), the lint reader, make bench's report, what it builds and its saved sections
	node --test scripts/tests/

test-rust: $(TEST_SERVER) | setup ## Native Rust tests: rules, timings, simulation, the shared invariant checker and regex oracle
	$(TEST_TARGET); $(RUST) cargo test --all-targets --no-fail-fast $${target:+--target "$$target"}

test-wasm: | setup ## The wasm boundary (the core's, the solver's) in headless Chromium and Firefox
	node scripts/webdriver-json.mjs > .tools/webdriver.json
	$(WASM_TEST_BUILD); for crate in core core/solver; do \
	  WASM_BINDGEN_TEST_WEBDRIVER_JSON="$(CURDIR)/.tools/webdriver.json" \
	    CHROMEDRIVER="$$(command -v chromedriver)" $(RUST) wasm-pack test --headless --chrome $$crate --test web && \
	  WASM_BINDGEN_TEST_WEBDRIVER_JSON="$(CURDIR)/.tools/webdriver.json" \
	    GECKODRIVER="$$(command -v geckodriver)" $(RUST) wasm-pack test --headless --firefox $$crate --test web || exit 1; \
	done

test-web: pkg/package.json | setup ## Vitest: facade, hooks, components
	npm test -w web

# The consumer projects' own tools (Vite, webpack, Next.js, ...), from their lock file.
CONSUMERS := tests/consumers/node_modules/.package-lock.json
$(CONSUMERS): tests/consumers/package.json tests/consumers/package-lock.json
	cd tests/consumers && npm install --no-audit --no-fund --loglevel=error

test-package: pkg/package.json $(CONSUMERS) | setup ## The packed lathe-core installed into consumer projects (Node, Vitest, Jest, esbuild, webpack, Vite, Next.js, TypeScript 4.9 and 6), publint, attw, types, README examples
	CHROMIUM=$(TEST_CHROMIUM) node tests/consumers/run.mjs

test-html: build $(WAITLIST_DIST)/index.html ## The W3C Nu HTML Checker on every built page (both builds): no error
	java -jar node_modules/vnu-jar/build/dist/vnu.jar --errors-only --skip-non-html web/dist $(WAITLIST_DIST)
	@echo "vnu: $$(find web/dist $(WAITLIST_DIST) -name '*.html' | wc -l | tr -d ' ') pages, no error"

test-e2e: build $(WAITLIST_DIST)/index.html ## Playwright against the production builds: Chromium, nginx, Firefox and WebKit
	CHROMIUM=$(TEST_CHROMIUM) npm test -w tests

# The whole workspace's test build, as test-rust's: with `-p lathe-site` alone Cargo resolves
# other features and built the process tests again (30 s at the end of make test).
test-image: image ## The image run as a container (podman run; where containers cannot start, from its root by chroot) and probed
	$(TEST_TARGET); LATHE_IMAGE=$(IMAGE) LATHE_CONTAINER=$(CONTAINER) \
	  $(RUST) cargo test -q --workspace $${target:+--target "$$target"} --test process image:: -- --ignored --nocapture

screenshots: build ## Every route, both themes, 1280 and 375 px, into screenshots/
	mkdir -p screenshots
	cd tests && npx playwright test -c screenshots.config.ts

# make bench's own tools (Lighthouse and its Chrome launcher, about 200 packages), from
# bench/'s lock file: installed for make bench only, since make test never runs them (in the
# root's install they took 18 of npm ci's 46 CPU-seconds on every clean clone).
BENCH_TOOLS := bench/node_modules/.package-lock.json
$(BENCH_TOOLS): bench/package.json bench/package-lock.json | setup
	cd bench && npm ci --no-audit --no-fund --loglevel=error

# Defined above the bench rule, which expands them as make reads it.
# The same bench as main stood before SQLite's sign-ups and confirmations became one
# script each (BASELINE, "today's path" in docs/server.md, "One request to the
# database"): make bench runs both in one run, on the same disk. Built from a worktree of
# that commit, with a target folder of its own.
BASELINE := 711d823
BASELINE_LINE := target/baseline-$(BASELINE)/target/release/examples/line
$(BASELINE_LINE): | setup
	rm -rf target/baseline-$(BASELINE)
	git worktree prune
	git worktree add --detach target/baseline-$(BASELINE) $(BASELINE)
	$(RUST) cargo build --release -q -p lathe-site --example line \
		--manifest-path target/baseline-$(BASELINE)/Cargo.toml --target-dir target/baseline-$(BASELINE)/target

# The line's confirmations and sign-ups beside main as it stood before the line and
# referrals (BEFORE_LINE, issue 38's "today"): bench/before-line/confirmations.rs, built
# in a worktree of that commit against its API, as its examples/before_line.
BEFORE_LINE := 62c994e
BEFORE_LINE_BENCH := target/before-line-$(BEFORE_LINE)/target/release/examples/before_line
$(BEFORE_LINE_BENCH): bench/before-line/confirmations.rs | setup
	rm -rf target/before-line-$(BEFORE_LINE)
	git worktree prune
	git worktree add --detach target/before-line-$(BEFORE_LINE) $(BEFORE_LINE)
	cp bench/before-line/confirmations.rs target/before-line-$(BEFORE_LINE)/server/examples/before_line.rs
	$(RUST) cargo build --release -q -p lathe-site --example before_line \
		--manifest-path target/before-line-$(BEFORE_LINE)/Cargo.toml --target-dir target/before-line-$(BEFORE_LINE)/target

bench: build $(WAITLIST_DIST)/index.html target/release/lathe-site target/release/examples/proofs target/release/examples/line $(BASELINE_LINE) $(BEFORE_LINE_BENCH) $(BENCH_TOOLS) ## Lighthouse, sizes, the background's frame cost, the proof of work, the servers; updates docs/measurements.md
	node bench/run.mjs

bench-paint: build target/release/lathe-site ## Where each page's time before its first paint goes, beside the floor page's (about 3 minutes)
	node bench/first-paint.mjs

bench-report: | setup ## The last make bench's report again, from its figures (bench/results/bench.json); writes docs/measurements.md
	node bench/report.mjs --write

# Valid proofs of work for the sign-up bench (server/examples/proofs.rs).
target/release/examples/proofs: server/examples/proofs.rs $(SERVER_SOURCES) | setup
	$(RUST) cargo build --release -q -p lathe-site --example proofs

# The line at a million entries for make bench (server/examples/line.rs).
target/release/examples/line: server/examples/line.rs $(SERVER_SOURCES) | setup
	$(RUST) cargo build --release -q -p lathe-site --example line

FUZZ_SECONDS ?= 60
fuzz: | setup ## Fuzz validation and the form machine, FUZZ_SECONDS each (nightly; not in CI)
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked
	cd fuzz && cargo +nightly fuzz run validation -- -max_total_time=$(FUZZ_SECONDS)
	cd fuzz && cargo +nightly fuzz run form_events -- -max_total_time=$(FUZZ_SECONDS)

clean: ## Remove build output (keeps installed tools)
	rm -rf pkg web/dist web/dist-server $(WAITLIST_DIST) $(WAITLIST_DIST)-server target fuzz/target test-results playwright-report
