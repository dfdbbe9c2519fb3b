# The two entry points a newcomer needs; see README.md.
#   make demo   installs what is missing, builds, and walks through clmap on an example kernel
#   make test   installs what is missing and runs every test

CARGO ?= cargo

.PHONY: demo test deps build fmt

deps:
	@scripts/install-deps.sh

build: deps
	$(CARGO) build --release --locked -p clmap -p clmap-opencl

demo: build
	@scripts/demo.sh target/release/clmap

# Tests that need clang or an OpenCL device fail instead of skipping: this target installs them.
test: deps
	CLMAP_REQUIRE_OPENCL=1 CLMAP_REQUIRE_CLANG=1 $(CARGO) test --workspace --locked
	tests/corpus/check_clang.sh

fmt:
	$(CARGO) fmt --all
