# The two commands of the README. Each installs what a fresh machine lacks.
#   make demo   -- the main job: generated data through every kernel beside its reference
#   make test   -- every test: Rust, C ABI (+valgrind, pyarrow), fuzz smoke, Java
.PHONY: demo test

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh
