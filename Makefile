# The two commands a newcomer needs: `make start` and `make test`. See README.md.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Tools installed by scripts/setup.sh: cargo's bin for wasm-pack and wasm-bindgen, and
# node_modules/.bin first so that wasm-pack finds binaryen's current wasm-opt.
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
# The Rust toolchain that can build wasm32, as chosen by scripts/setup.sh.
RUST := RUSTUP_TOOLCHAIN="$$(cat .tools/rust-toolchain)"
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || true)

CORE_SOURCES := Cargo.toml Cargo.lock $(wildcard core/Cargo.toml core/README.md core/src/*.rs core/examples/*.rs)
WEB_SOURCES := $(shell find web/src web/public web/scripts web/index.html web/vite.config.ts -type f 2>/dev/null)

.PHONY: help setup start build pkg test lint test-rust test-wasm test-web test-html test-e2e screenshots bench fuzz clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

setup: ## Install whatever is missing (Rust wasm32 target, wasm-pack, Chromium, npm packages)
	@scripts/setup.sh

start: build ## Install, build and serve the site on http://localhost:4173
	@echo "Serving the production build on http://localhost:4173 (Ctrl-C stops it)"
	node web/scripts/serve.mjs --port 4173

build: setup web/dist/index.html ## Build the static site into web/dist/

pkg: setup pkg/package.json ## Build the wasm core into pkg/ (the lathe-core npm package)

pkg/package.json: $(CORE_SOURCES)
	$(RUST) wasm-pack build core --release --target bundler --out-dir ../pkg
	@rm -f pkg/.gitignore
	$(RUST) cargo run -q -p lathe-core --example constants > pkg/constants.json
	@node -e 'const f="pkg/package.json",p=JSON.parse(require("fs").readFileSync(f));p.files.push("constants.json");require("fs").writeFileSync(f,JSON.stringify(p,null,2)+"\n")'
	@echo "pkg/lathe_core_bg.wasm: $$(gzip -9c pkg/lathe_core_bg.wasm | wc -c) bytes gzipped (budget 40,000)"

web/dist/index.html: pkg/package.json $(WEB_SOURCES) package-lock.json
	npm run build -w web

test: setup lint test-rust test-wasm test-web test-html test-e2e ## Install, then run every check and test
	@echo "All checks and tests passed."

lint: pkg/package.json ## rustfmt, clippy (native and wasm32), tsc, ESLint, Prettier
	$(RUST) cargo fmt --all --check
	$(RUST) cargo clippy --all-targets -- -D warnings
	$(RUST) cargo clippy -p lathe-core --all-targets --target wasm32-unknown-unknown -- -D warnings
	npm run typecheck -w web
	npm run lint -w web
	npm run typecheck -w tests
	prettier --check .

test-rust: ## Native Rust tests: rules, timings, simulation, regex oracle
	$(RUST) cargo test --all-targets

test-wasm: ## The wasm boundary in headless Chromium
	CHROMEDRIVER="$$(command -v chromedriver)" $(RUST) wasm-pack test --headless --chrome core --test web

test-web: pkg/package.json ## Vitest: facade, hooks, components
	npm test -w web

test-html: build ## The W3C Nu HTML Checker on every built page: no error
	java -jar node_modules/vnu-jar/build/dist/vnu.jar --errors-only --skip-non-html web/dist
	@echo "vnu: $$(find web/dist -name '*.html' | wc -l) pages, no error"

test-e2e: build ## Playwright against the production build in system Chromium
	CHROMIUM="$(CHROMIUM)" npm test -w tests

screenshots: build ## Every route, both themes, 1280 and 375 px, into screenshots/
	mkdir -p screenshots
	cd tests && CHROMIUM="$(CHROMIUM)" npx playwright test -c screenshots.config.ts

bench: build ## Lighthouse, sizes and the background's frame cost: a table and bench/results/bench.json
	CHROMIUM="$(CHROMIUM)" node bench/run.mjs

FUZZ_SECONDS ?= 60
fuzz: ## Fuzz validation and the form machine, FUZZ_SECONDS each (nightly; not in CI)
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked
	cd fuzz && cargo +nightly fuzz run validation -- -max_total_time=$(FUZZ_SECONDS)
	cd fuzz && cargo +nightly fuzz run form_events -- -max_total_time=$(FUZZ_SECONDS)

clean: ## Remove build output (keeps installed tools)
	rm -rf pkg web/dist target fuzz/target test-results playwright-report
