# jobs.test.sh: the thread pool on none to eight threads.
check "unit: the pool runs every job once, into its own slot, on 0 to 8 threads (tests/unit/pool_check.c)" \
	"$BUILD/tests/unit/pool_check"
