#!/usr/bin/env bash
# Builds Tideline and runs it:
#   ./run.sh              the designer with an example pipeline (needs a display; under a
#                         headless server it starts an Xvfb display for you)
#   ./run.sh --headless   tideline-run on an example pipeline, printing its results
set -euo pipefail
cd "$(dirname "$0")"
headless=0
[[ "${1:-}" == "--headless" ]] && headless=1

if ((headless)); then
    scripts/install-deps.sh --runner-only
    cmake --preset runner-only >/dev/null
    cmake --build --preset runner-only --target tideline-run
    example=pipelines/clicks-per-user/pipeline.json
    echo "== tideline-run $example"
    build/runner-only/app/runner/tideline-run "$example"
    echo "== results (pipelines/clicks-per-user/out/)"
    for f in pipelines/clicks-per-user/out/*.jsonl; do
        echo "-- $f"
        cat "$f"
    done
    exit 0
fi

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tideline tideline-run
example=pipelines/sessions-late-data/pipeline.json
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "tideline: no display found, starting the designer under xvfb-run (screenshot: /tmp/tideline.png)"
    exec xvfb-run -a -s "-screen 0 1600x1000x24" build/release/app/designer/tideline "$example" --screenshot /tmp/tideline.png
fi
exec build/release/app/designer/tideline "$example"
