.PHONY: run test bench lint

run:  ## set up and run the app (embedded database, jobs, web server, demo login)
	scripts/run

test:  ## set up and run the whole test suite
	scripts/test

bench:  ## run the benchmarks in bench/ (prints figures; not part of the tests)
	scripts/bootstrap requirements-dev.txt && .venv/bin/python -m bench

lint:
	.venv/bin/ruff check . && .venv/bin/lint-imports
