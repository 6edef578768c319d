#!/usr/bin/env bash
# Random inputs for the file source's chunk boundaries: DIR/random-S.jsonl and DIR/random-S.csv
# for seeds S in 1..COUNT, ~300 KiB each (about ten 32 KiB chunks), lines of random lengths and
# kinds, so that chunk boundaries fall at every kind of place: inside a line, on a line start,
# inside a blank or CRLF line, inside a quoted CSV cell, a multi-line one included. Seeded:
# the same files every run.
# Usage: write_random_inputs.sh DIR COUNT
set -euo pipefail
dir=$1
count=$2
mkdir -p "$dir"
for s in $(seq 1 "$count"); do
    awk -v seed="$s" 'function str(n,   t, k) { t = ""; for (k = 0; k < n; k++) t = t substr("abcdefgh ,xyz", int(rand() * 13) + 1, 1); return t }
    BEGIN {
        srand(seed)
        for (i = 1; i <= 2600; i++) {
            r = rand()
            if (r < 0.80) line = "{\"id\":" i ",\"user_id\":" int(rand() * 50) ",\"s\":\"" str(int(rand() * 200)) "\"}"
            else if (r < 0.86) line = "{\"id\":" i ",\"bad\":" str(int(rand() * 30)) "}"
            else if (r < 0.90) line = ""
            else if (r < 0.93) line = substr("   \t  ", 1, int(rand() * 6))
            else if (r < 0.97) line = "{\"id\":" i ",\"crlf\":true}\r"
            else line = "{\"id\":" i ",\"long\":\"" str(int(rand() * 20000)) "\"}"
            if (rand() < 0.01) printf "%s", line; else print line
            if (rand() < 0.01) print ""
        }
    }' >"$dir/random-$s.jsonl"
    awk -v seed="$s" 'function str(n,   t, k) { t = ""; for (k = 0; k < n; k++) t = t substr("abcdefgh xyz", int(rand() * 12) + 1, 1); return t }
    BEGIN {
        srand(seed)
        print "id,user_id,note"
        for (i = 1; i <= 3500; i++) {
            r = rand()
            if (r < 0.70) print i "," int(rand() * 50) "," str(int(rand() * 120))
            else if (r < 0.80) print i "," int(rand() * 50) ",\"" str(int(rand() * 60)) ", with comma \"\"q\"\"\""
            else if (r < 0.85) print i ",only-two"
            else if (r < 0.88) print ""
            else if (r < 0.9995) print i "," int(rand() * 50) ",\"" str(int(rand() * 40)) "\"\r"
            else print i "," int(rand() * 50) ",\"first " str(int(rand() * 30)) "\nsecond, line\""
        }
        if (seed % 3 == 0) printf "%s", "9999,1,\"unclosed to the end"
    }' >"$dir/random-$s.csv"
done
