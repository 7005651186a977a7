# dvv — see README.md. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     ?= bin
PKGS    := ./...
export GOFLAGS ?= -buildvcs=false
# One version for all three binaries and the packages: the VERSION file a
# release tarball carries, else the nearest tag (v1.2.3 → 1.2.3, with
# -N-gHASH past it), else 0.1.0-dev when there is no tag or no git.
VERSION ?= $(shell cat VERSION 2>/dev/null || git describe --tags --match 'v[0-9]*' 2>/dev/null | sed -e 's/^v//' -e 's/-\([0-9]*\)-g/+\1.g/')
ifeq ($(VERSION),)
VERSION := 0.1.0-dev
endif
NFPM    ?= $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.0
# Pinned, and run through the module proxy: nothing to install by hand.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
LDFLAGS := -s -w $(foreach p,pkg/daemon pkg/cli pkg/mcp,-X github.com/dvvhq/dvv/$(p).Version=$(VERSION))

.PHONY: all build web share test test-race test-short testdeps demo bench lint docs clean fuzz package release

all: build

# Static binaries (no cgo): no libc to load at each start (faster `dvv`
# start-up) and packages that run on any glibc or musl.
build: web
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/dvvd ./cmd/dvv ./cmd/dvvmcp
	@# dvvocr, the resident text reader, links libtesseract (cgo); without
	@# libtesseract-dev it is left out and dvvd runs the tesseract program.
	@if pkg-config --exists tesseract 2>/dev/null; then \
		echo "CGO_ENABLED=1 $(GO) build -tags libtesseract -trimpath -ldflags '-s -w' -o $(BIN)/ ./cmd/dvvocr"; \
		CGO_ENABLED=1 $(GO) build -tags libtesseract -trimpath -ldflags '-s -w' -o $(BIN)/ ./cmd/dvvocr; \
	else echo "build: libtesseract-dev not found (apt install libtesseract-dev): bin/dvvocr not built"; fi

# Installs the real servers the tests start (apt, as root), then runs every
# test against them. DVV_REQUIRE_SERVERS=1 turns "server missing" into a
# failure instead of a skip.
test: testdeps web
	DVV_REQUIRE_SERVERS=1 $(GO) test -count=1 -timeout 20m $(PKGS)

# The browser viewer's libraries (noVNC, xterm.js) from npm, by the lock
# file, copied into pkg/viewer/assets/dist for go:embed. A release tarball
# carries them already (dist/.release), so it builds with no npm and no
# network. Without either, dvvd still builds and its viewer page says what
# is missing.
web:
	@if [ -e pkg/viewer/assets/dist/.release ]; then \
		echo "web: using the viewer assets the release tarball carries"; \
	elif command -v npm >/dev/null 2>&1; then \
		cd pkg/viewer/web && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build; \
	else echo "web: npm not found; dvvd's viewer will lack noVNC and xterm.js"; fi

# The race detector over the packages that run real servers and the
# daemon's concurrency (CI runs it after `make test`).
RACE_PKGS := ./pkg/daemon ./pkg/rfb/... ./pkg/rdp/... ./pkg/limb/...
test-race: testdeps
	DVV_REQUIRE_SERVERS=1 $(GO) test -race -count=1 -timeout 10m $(RACE_PKGS)

test-short:
	$(GO) test -count=1 $(PKGS)

testdeps:
	./scripts/testdeps.sh

# A throw-away local desktop, dvvd, a limb and a screenshot.
demo: testdeps build
	./scripts/demo.sh

# Go benchmarks and side-by-side runs; figures go to docs/benchmarks.md.
bench: testdeps build
	./scripts/bench.sh

# Every fuzz target in the repository for FUZZTIME each (default 3s, the
# CI budget; FUZZTIME=1m or more for a long local run).
fuzz:
	./scripts/fuzz.sh

lint:
	$(GO) vet $(PKGS)
	@# The benchmarks build only with their tag: vet them too, so they keep up.
	$(GO) vet -tags bench ./test/bench
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@# go.mod and go.sum must be what `go mod tidy` makes of the imports.
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' (what it would change: go mod tidy -diff)"; exit 1; }
	$(STATICCHECK) $(PKGS)

docs:
	$(GO) run ./internal/gen/args
	$(GO) run ./cmd/dvvmcp --gen-docs > docs/tools.md
	$(GO) run ./cmd/dvv gen-docs > docs/cli.md
	$(GO) run ./internal/gen/docs docs/protocol.md

# What the packages install beside the binaries, in $(BIN)/share:
# completions, man pages (gzipped) and the changelog, headed by an entry for
# this version when packaging/changelog has none. The .deb/.rpm and the
# Homebrew formula all take them from here.
share: build
	@# A package or a formula install must not ship a viewer without its
	@# libraries: go:embed takes whatever pkg/viewer/assets/dist holds.
	@for f in pkg/viewer/assets/dist/novnc/core/rfb.js pkg/viewer/assets/dist/xterm/xterm.mjs; do \
		[ -s $$f ] || { echo "share: $$f is missing: the viewer would lack noVNC or xterm.js; install npm 7+ and rerun"; exit 1; }; \
	done
	rm -rf $(BIN)/share && mkdir -p $(BIN)/share/completions $(BIN)/share/man
	$(BIN)/dvv completion bash > $(BIN)/share/completions/dvv.bash
	$(BIN)/dvv completion zsh > $(BIN)/share/completions/_dvv
	$(BIN)/dvv completion fish > $(BIN)/share/completions/dvv.fish
	$(GO) run -ldflags '$(LDFLAGS)' ./internal/gen/man $(BIN)/share/man
	$(BIN)/dvvd --gen-man $(BIN)/share/man
	$(BIN)/dvvmcp --gen-man $(BIN)/share/man
	gzip -9n $(BIN)/share/man/*.1
	./scripts/changelog.sh $(VERSION) | gzip -9n > $(BIN)/share/changelog.gz

# .deb and .rpm in bin/, carrying completions, man pages and the user units.
package: share
	@test -x $(BIN)/dvvocr || { echo "package: bin/dvvocr is missing: apt install libtesseract-dev pkg-config, then make package"; exit 1; }
	DVV_VERSION=$(VERSION) GOARCH=$$($(GO) env GOARCH) $(NFPM) package -p deb -f packaging/nfpm.yaml -t $(BIN)/
	DVV_VERSION=$(VERSION) GOARCH=$$($(GO) env GOARCH) $(NFPM) package -p rpm -f packaging/nfpm.yaml -t $(BIN)/

# A source tarball for $(VERSION) that builds with no npm and no network:
# the sources, vendor/ (the Go modules) and the built viewer assets, plus
# SHA256SUMS and the Homebrew formula pointing at it, in $(DIST)/.
DIST ?= dist
release: web
	./scripts/release.sh $(VERSION) $(DIST)

clean:
	rm -rf $(BIN) $(DIST)
