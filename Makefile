# dvv — see README.md. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     ?= bin
PKGS    := ./...
export GOFLAGS ?= -buildvcs=false

.PHONY: all build test test-short testdeps demo bench lint docs clean fuzz

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/dvvd ./cmd/dvv ./cmd/dvvmcp

# Installs the real servers the tests start (apt, as root), then runs every
# test against them. DVV_REQUIRE_SERVERS=1 turns "server missing" into a
# failure instead of a skip.
test: testdeps
	DVV_REQUIRE_SERVERS=1 $(GO) test -count=1 -timeout 20m $(PKGS)

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

# Each fuzz target for a short while (FUZZTIME=1m for longer).
fuzz:
	./scripts/fuzz.sh

lint:
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

docs:
	$(GO) run ./cmd/dvvmcp --gen-docs > docs/tools.md
	$(GO) run ./cmd/dvv gen-docs > docs/cli.md
	$(GO) run ./internal/gendocs docs/protocol.md

clean:
	rm -rf $(BIN)
