#!/bin/sh
# Every option `tideline-run --help` lists is in its man page too (an option added to one and
# not the other is how the man page fell sixteen options behind).
#   usage: test_man_options.sh TIDELINE_RUN MAN_PAGE
set -u
help=$("$1" --help 2>&1) || { echo "FAIL: $1 --help failed"; exit 1; }
missing=0
for opt in $(printf '%s\n' "$help" | grep -oE '^  --[a-z][a-z-]*' | sort -u); do
    roff=$(printf '%s' "$opt" | sed 's/-/\\\\-/g') # --foo-bar is \-\-foo\-bar in roff
    if ! grep -q -- "$roff" "$2"; then
        echo "FAIL: $opt is in --help but not in $2"
        missing=$((missing + 1))
    fi
done
[ "$missing" -eq 0 ] || exit 1
echo "every --help option is in the man page"
