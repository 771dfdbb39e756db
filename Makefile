# Convenience targets; each one does its own set-up on a fresh machine.
.PHONY: build test demo clean
build:
	scripts/build.sh
test:
	scripts/test.sh
demo:
	scripts/demo.sh
clean:
	rm -rf build
