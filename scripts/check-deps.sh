#!/usr/bin/env bash
# Checks that every Debian package a configured build actually read is installed by
# scripts/install-deps.sh: named there, or pulled in by a named package's Depends/Pre-Depends
# (followed recursively, the way apt installs them on a fresh machine), or Essential.
#
#   scripts/check-deps.sh [--install-script FILE] BUILD_DIR
#
# Why: a package installed by hand on a developer's or CI's machine makes the build green there
# and broken on a fresh one (qt6-charts-dev needs libqt6opengl6-dev but does not depend on it).
# What "read" means, from the build itself:
#   - CMake package configs it found: the `<Name>_DIR` entries of CMakeCache.txt (the
#     <Name>Config.cmake inside);
#   - every header the compiler included (`ninja -t deps`);
#   - every shared library the built programs and libraries link (`ldd`).
# Each file is mapped to the package that installed it through dpkg's file lists. A file no
# package owns (installed by hand, /usr/local, a home folder) is a miss too.
# Exit 0 when all is declared; 1 naming each missing package with one file that needed it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/.." && pwd)"
install_script="$here/install-deps.sh"
if [[ "${1:-}" == "--install-script" ]]; then
    install_script="$2"
    shift 2
fi
build_dir="${1:?usage: check-deps.sh [--install-script FILE] BUILD_DIR}"
build_dir="$(cd "$build_dir" && pwd)"
[[ -f "$build_dir/CMakeCache.txt" ]] || {
    echo "check-deps: $build_dir is not a configured build (no CMakeCache.txt)" >&2
    exit 2
}
for tool in dpkg-query ninja ldd realpath awk; do
    command -v "$tool" >/dev/null || {
        echo "check-deps: needs $tool" >&2
        exit 2
    }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. The packages the install script names (it prints them with --list).
bash "$install_script" --list >"$work/named"
[[ -s "$work/named" ]] || {
    echo "check-deps: $install_script --list printed no packages" >&2
    exit 2
}

# 2. Files the build read, as "path<TAB>why" (why = what made the build read it).
{
    # CMake: the config file of every package find_package() found (`<Name>_DIR`). Other
    # cache entries are left out: FILEPATH entries include optional probes (FindOpenGL's GLU)
    # that the build never reads.
    grep -E '^[A-Za-z0-9_.+-]+_DIR:PATH=/' "$build_dir/CMakeCache.txt" |
        while IFS= read -r line; do
            name="${line%%_DIR:*}"
            value="${line#*=}"
            case "$value" in "$source_dir"/* | "$build_dir"/*) continue ;; esac
            [[ -d "$value" ]] || continue
            lower="$(tr '[:upper:]' '[:lower:]' <<<"$name")"
            # (FindXXX modules' XXX_INCLUDE_DIR entries have no config file: their headers
            # are among the compiler's below.)
            for config in "$value/${name}Config.cmake" "$value/${lower}-config.cmake"; do
                [[ -f "$config" ]] && printf '%s\tCMakeCache.txt %s_DIR\n' "$config" "$name"
            done
        done
    # Headers: every dependency ninja recorded that lies outside the source and build trees.
    ninja -C "$build_dir" -t deps 2>/dev/null |
        awk -v src="$source_dir/" -v bld="$build_dir/" '
            /^[^ \t]/ { target = $1; sub(/:$/, "", target); next }
            /^[ \t]+\// { p = $1; if (index(p, src) != 1 && index(p, bld) != 1 && !(p in seen)) {
                              seen[p] = 1; print p "\theader included by " target } }'
    # Shared libraries of every ELF file the build produced.
    find "$build_dir" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/CMakeFiles/*' |
        while IFS= read -r f; do
            [[ "$(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ')" == '177ELF' ]] || continue
            ldd "$f" 2>/dev/null | awk -v f="${f#"$build_dir"/}" '
                $2 == "=>" && $3 ~ /^\// { print $3 "\tlinked by " f }
                $1 ~ /^\// { print $1 "\tlinked by " f }'
        done
} | awk -F'\t' '!($1 in seen) { seen[$1] = 1; print }' >"$work/read"

# Each path with the spellings dpkg may list it under: as read, with `..` folded, with links
# resolved, and across Debian 12's merged /usr (/lib ↔ /usr/lib, /bin ↔ /usr/bin, ...).
cut -f1 "$work/read" >"$work/paths"
xargs -d '\n' realpath -s -m -- <"$work/paths" >"$work/lexical"
xargs -d '\n' realpath -m -- <"$work/paths" >"$work/resolved"
paste "$work/paths" "$work/lexical" "$work/resolved" |
    awk -F'\t' '
        function alias(p) {
            if (p ~ /^\/usr\/(lib|lib32|lib64|libx32|bin|sbin)\//) return substr(p, 5)
            if (p ~ /^\/(lib|lib32|lib64|libx32|bin|sbin)\//) return "/usr" p
            return ""
        }
        { for (i = 1; i <= 3; i++) { print $1 "\t" $i; a = alias($i); if (a != "") print $1 "\t" a } }' |
    sort -u >"$work/spellings"

# 3. Which package owns each spelling (dpkg's file lists; diversions do not matter here).
awk -F'\t' 'NR == FNR { want[$2] = want[$2] ? want[$2] SUBSEP $1 : $1; next }
            ($0 in want) { pkg = FILENAME; sub(/^.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg)
                           n = split(want[$0], originals, SUBSEP)
                           for (i = 1; i <= n; i++) print originals[i] "\t" pkg }' \
    "$work/spellings" /var/lib/dpkg/info/*.list | sort -u >"$work/owners"

# 4. What apt installs for the named packages: their Depends and Pre-Depends, recursively. An
# alternative (a | b) counts as its first installed choice, a virtual name as its installed
# providers; Essential packages are on every Debian system.
dpkg-query -W -f='${Package}\t${db:Status-Status}\t${Essential}\t${Provides}\t${Pre-Depends}, ${Depends}\n' |
    awk -F'\t' -v named="$work/named" '
        function bare(d) { sub(/^[ \t]+/, "", d); sub(/[ \t(:].*$/, "", d); return d }
        function add(p) { if (!(p in closure)) { closure[p] = 1; queue[++tail] = p } }
        $2 == "installed" {
            installed[$1] = 1; deps[$1] = $5
            if ($3 == "yes") essential[$1] = 1
            n = split($4, prov, ","); for (i = 1; i <= n; i++) { v = bare(prov[i]); if (v != "") providers[v] = providers[v] " " $1 }
        }
        END {
            while ((getline line < named) > 0) { p = bare(line); if (p == "") continue
                if (p in installed) add(p); else print "NOT-INSTALLED\t" p }
            for (p in essential) add(p)
            for (head = 1; head <= tail; head++) {
                n = split(deps[queue[head]], groups, ",")
                for (g = 1; g <= n; g++) {
                    m = split(groups[g], alts, "|")
                    for (a = 1; a <= m; a++) {
                        d = bare(alts[a]); if (d == "") continue
                        if (d in installed) { add(d); break }
                        if (d in providers) { k = split(providers[d], ps, " "); for (j = 1; j <= k; j++) add(ps[j]); break }
                    }
                }
            }
            for (p in closure) print "HAVE\t" p
        }' >"$work/closure"

# 5. Every file must have an owner in the closure.
awk -F'\t' -v script="$install_script" '
    FILENAME == ARGV[1] { if ($1 == "HAVE") have[$2] = 1; else print "check-deps: " script " names `" $2 "`, which is not installed (run it first)"; next }
    FILENAME == ARGV[2] { owners[$1] = owners[$1] " " $2; next }
    {
        path = $1; why = $2
        if (!(path in owners)) { if (!(path in unowned)) { unowned[path] = why; strays++ }; next }
        n = split(owners[path], ps, " "); ok = 0
        for (i = 1; i <= n; i++) if (ps[i] in have) ok = 1
        if (!ok && !(ps[1] in missing)) { missing[ps[1]] = path " (" why ")"; order[++count] = ps[1] }
    }
    END {
        for (i = 1; i <= count; i++)
            printf "check-deps: package `%s` is read by the build but not installed by %s: %s — add it to the packages there\n", order[i], script, missing[order[i]]
        for (p in unowned)
            printf "check-deps: %s (%s) belongs to no Debian package: install it from a package named in %s\n", p, unowned[p], script
        exit (count > 0 || strays > 0) ? 1 : 0
    }' "$work/closure" "$work/owners" "$work/read" >"$work/report" && status=0 || status=$?
grep -q '^check-deps: .* names `' "$work/report" && status=1

files=$(wc -l <"$work/read")
if ((status == 0)); then
    echo "check-deps: ok: $files files the build read come from packages $install_script installs"
else
    sort "$work/report"
    echo "check-deps: FAILED ($files files checked)"
fi
exit "$status"
