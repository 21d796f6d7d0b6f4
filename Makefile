# The two commands of the README. Each installs what a fresh machine lacks.
#   make demo   -- the main job: generated data through every kernel beside its reference
#   make test   -- every test: Rust, C ABI (+valgrind, pyarrow), fuzz smoke, Java
#   make nexmark -- Nexmark q0-q22 stock Flink vs sluice installed (EVENTS=N P=N), table + chart
.PHONY: demo test nexmark

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

nexmark:
	EVENTS=$(EVENTS) P=$(P) bash scripts/nexmark.sh
