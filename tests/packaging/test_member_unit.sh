#!/bin/sh
# tideline-run-member (the ExecStart of tideline-run-member@NAME:K.service) without installing
# anything: the instance name is split and checked, tideline-run gets the member name HOST-K and
# the shared checkpoint folder of tideline-run@NAME, and a real run through it works.
#   usage: test_member_unit.sh SCRIPT TIDELINE_RUN
set -u
script=$1
runner=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

mkdir -p "$work/etc" "$work/state"
# Relative paths in a pipeline resolve against its folder (/etc/tideline, read-only under
# systemd): outputs go under the state folder by absolute path, as docs/operations.md says.
cat >"$work/etc/clicks.json" <<JSON
{"format":"tideline/1","name":"clicks","nodes":[
  {"id":"g","kind":"source.generator","params":{"count":300}},
  {"id":"out","kind":"sink.file","params":{"path":"$work/state/clicks/out.jsonl"}}],
 "edges":[{"from":"g.out","to":"out.in"}]}
JSON
export TIDELINE_ETC="$work/etc" TIDELINE_STATE="$work/state"

# Wrong instance names: exit 2 (the unit does not restart) and a message naming the fix.
expect_refused() { # instance, text the message must contain
    TIDELINE_RUN="$runner" "$script" "$1" host >"$work/o" 2>"$work/e"
    code=$?
    [ "$code" -eq 2 ] || fail "instance '$1': exit $code, expected 2"
    grep -qF "$2" "$work/e" || fail "instance '$1': message lacks '$2': $(cat "$work/e")"
}
expect_refused clicks "is not NAME:K: start e.g. tideline-run-member@clicks:2"
expect_refused clicks:two "member number \"two\" in \"clicks:two\" is not a number"
expect_refused ../x:2 "pipeline name \"../x\""
expect_refused orders:2 "/orders.json does not exist"

# The arguments tideline-run gets (a stand-in that prints them, one per line).
cat >"$work/fake-run" <<'SH'
#!/bin/sh
pwd
for a in "$@"; do echo "$a"; done
SH
chmod +x "$work/fake-run"
TIDELINE_RUN="$work/fake-run" TIDELINE_RUN_ARGS="--metrics-listen 9465" \
    "$script" clicks:3 web1 >"$work/args" 2>"$work/e" || fail "fake run failed: $(cat "$work/e")"
printf '%s\n' "$work/state/clicks" --checkpoint-dir "$work/state/clicks" --member web1-3 \
    --log-format text --metrics-listen 9465 "$work/etc/clicks.json" >"$work/want"
cmp -s "$work/args" "$work/want" || fail "arguments differ: $(diff "$work/want" "$work/args")"

# A real run through the script.
TIDELINE_RUN="$runner" "$script" clicks:2 web1 >"$work/o" 2>"$work/e" ||
    fail "real run failed: $(cat "$work/e")"
lines=$(wc -l <"$work/state/clicks/out.jsonl" 2>/dev/null || echo 0)
[ "$lines" -eq 300 ] || fail "real run wrote $lines lines to state/clicks/out.jsonl, expected 300"

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "tideline-run-member: all checks passed"
