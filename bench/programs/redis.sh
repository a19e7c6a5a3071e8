#!/usr/bin/env bash
# bench/programs/redis.sh [-t THREADS] [-s SCALE]: the redis real-program benchmark
# (bench/programs/drive.py: MORTISE_BENCH_PRELOAD is preloaded into the
# measured program only; last line `ok wall_s=.. maxrss_kb=..` or FAIL).
exec "${MORTISE_BENCH_PYTHON:-python3}" "$(dirname "$0")/drive.py" redis "$@"
