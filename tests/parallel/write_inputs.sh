#!/usr/bin/env bash
# Writes the inputs of tests/parallel/file-pipelines into DIR/data: files of several 1 MiB
# chunks (so that parallel parsing splits them) with every kind of line the file source treats
# specially. Deterministic (no randomness): the same files every run.
# Usage: write_inputs.sh DIR
set -euo pipefail
mkdir -p "$1/data"
# JSONL: a byte order mark on line 1, malformed lines, blank lines, lines without an event
# time, a line with bytes that are not UTF-8, a line over the 1 MiB limit, CRLF line ends,
# out-of-order times (late records) and no final newline.
awk 'BEGIN {
    n = 45000
    long = "x"; while (length(long) < 1100000) long = long long
    for (i = 1; i <= n; i++) {
        t = sprintf("1700%09d", i * 10 + (i * 7919) % 400)
        line = sprintf("{\"event_id\":%d,\"user_id\":%d,\"value\":%d,\"event_time\":%s,\"tag\":\"t%d\"}", i, (i * 31) % 700, i % 97, t, i % 13)
        if (i == 1) line = "\357\273\277" line
        if (i % 997 == 0) line = sprintf("{\"event_id\":%d,\"user_id\":oops}", i)
        if (i % 1499 == 0) line = ""
        if (i % 2003 == 0) line = "   \t"
        if (i == 12345) line = sprintf("{\"event_id\":%d,\"note\":\"\377bad\"}", i)
        if (i == 20000) line = "{\"event_id\":20000,\"pad\":\"" long "\"}"
        # Parsed, but no event time: the watermark sends the whole record (every field, nested
        # ones too) to `errors`, also where the fused path parsed only what it reads.
        if (i % 1201 == 0) line = sprintf("{\"event_id\":%d,\"user_id\":%d,\"value\":%d,\"ctx\":{\"a\":%d,\"b\":\"x\"}}", i, (i * 31) % 700, i % 97, i)
        if (i % 1601 == 0) line = sprintf("{\"event_id\":%d,\"user_id\":%d,\"event_time\":\"noon\",\"tag\":\"t%d\"}", i, (i * 31) % 700, i % 13)
        if (i == n) line = "{\"event_id\":45000,"
        if (i % 101 == 0) line = line "\r"
        if (i < n) print line; else printf "%s", line
    }
}' >"$1/data/events.jsonl"
# CSV: quoted cells (commas, doubled quotes), rows of the wrong width, blank lines, repeated ids.
awk 'BEGIN {
    print "event_id,user_id,value,event_time,note"
    for (i = 1; i <= 120000; i++) {
        t = sprintf("1700%09d", i * 10 + (i * 104729) % 300)
        id = (i % 50 == 0) ? i - 7 : i
        note = (i % 3 == 0) ? "\"hello, world\"" : ((i % 5 == 0) ? "\"say \"\"hi\"\"\"" : "plain")
        if (i % 1009 == 0) print i ",1,2,3,4,5"
        else if (i % 1511 == 0) print ""
        else print id "," (i * 17) % 900 "," i % 101 "," t "," note
    }
}' >"$1/data/events.csv"
# CSV whose quoted cell spans lines after about 2 MiB: parallel parsing hands over to the loop
# thread there. Rows of the wrong width before and after it, and an unclosed quote at the end.
awk 'BEGIN {
    print "event_id,user_id,value,event_time,note"
    for (i = 1; i <= 80000; i++) {
        t = sprintf("1700%09d", i * 10)
        if (i % 877 == 0) print i ",x"
        else if (i == 60000) print i ",1,2," t ",\"first line\nsecond, line\nthird\""
        else print i "," (i * 13) % 500 "," i % 89 "," t ",\"some text, quoted " i % 7 "\"" 
    }
    print "80001,1,2,3,\"never closed"
    print "80002,1,2,3,tail"
}' >"$1/data/multiline.csv"
