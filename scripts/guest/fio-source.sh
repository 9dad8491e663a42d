#!/bin/bash
# Print the path of a fio source tree whose t/zbd/ holds fio's zoned block
# device conformance scripts (test-zbd-support and its functions), for
# tests/guest/femu-zbd.t.  Debian's fio binary package does not ship them.
#
# Source, first that works:
#   1. $FEMU_FIO_SRC, a fio source tree you provide (e.g. a checkout of the
#      fio release the guest's fio binary is: `fio --version` in the guest);
#   2. the cached copy, $CACHE/fio-src/fio-VERSION;
#   3. Debian's fio source package of the guest's suite
#      (${FEMU_GUEST_SUITE:-trixie}, the suite of the guest's fio binary),
#      downloaded with apt-get source from the mirror this machine's apt
#      configuration names (as configure does for the qemu source);
#   4. the same from sid, when the guest suite's source cannot be had.
# Only the upstream part is needed: when apt-get source cannot fetch the
# whole package, its .orig tarball alone is fetched with apt-helper and
# checked against the SHA-256 of the signed Sources index.
#
# Output: one line, the tree's path; a second line "version=fio-X.Y" when
# the tree says which fio it is.  Exit 1 (with the reason on stderr) when
# no source can be had.
#
# Environment: FEMU_CACHE_DIR (default $HOME/.cache/femu), FEMU_FIO_SRC,
# FEMU_GUEST_SUITE, FEMU_DEBIAN_MIRROR.
set -euo pipefail

ME=fio-source
die() { echo "$ME: $*" >&2; exit 1; }
CACHE=${FEMU_CACHE_DIR:-$HOME/.cache/femu}
SUITE=${FEMU_GUEST_SUITE:-trixie}

version_of() {  # fio tree -> fio-X.Y (FIO-VERSION-GEN's default)
    sed -n 's/^DEF_VER=\(fio-[0-9][^ ]*\).*/\1/p' "$1/FIO-VERSION-GEN" 2>/dev/null | head -1
}
report() {
    echo "$1"
    local v
    v=$(version_of "$1")
    [ -n "$v" ] && echo "version=$v"
    exit 0
}

if [ -n "${FEMU_FIO_SRC:-}" ]; then
    [ -f "$FEMU_FIO_SRC/t/zbd/test-zbd-support" ] ||
        die "FEMU_FIO_SRC=$FEMU_FIO_SRC has no t/zbd/test-zbd-support"
    report "$(cd "$FEMU_FIO_SRC" && pwd)"
fi

D=$CACHE/fio-src
mkdir -p "$D"
exec 9>"$D/.lock"
flock 9
for t in "$D"/fio-*/; do
    [ -f "$t/t/zbd/test-zbd-support" ] && report "${t%/}"
done

command -v apt-get >/dev/null 2>&1 || die "apt-get not found: cannot download Debian's fio source"
# shellcheck source=../graft/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../graft/lib.sh"
MIRROR=$(femu_mirror)
fetch_suite() {  # SUITE: Debian's fio source of that suite into $D; prints the tree
    # runs in a subshell: die and report end it
    local SUITE=$1 APTD O t v line uri file sum
    APTD=$D/apt-$SUITE
    mkdir -p "$APTD/lists/partial" "$APTD/cache/archives/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" >"$APTD/sources.list"
    O=(-o "Dir::Etc::SourceList=$APTD/sources.list" -o Dir::Etc::SourceParts=/dev/null
       -o "Dir::State::Lists=$APTD/lists" -o "Dir::Cache=$APTD/cache" -o Debug::NoLocking=1
       -o Acquire::Languages=none)
    if ! compgen -G "$APTD/lists/*Sources*" >/dev/null; then
        apt-get "${O[@]}" -q update >"$APTD/update.log" 2>&1 ||
            die "apt-get update for $SUITE deb-src failed (see $APTD/update.log)"
    fi
    if (cd "$TMP" && apt-get "${O[@]}" -q source fio) >"$D/source.log" 2>&1; then
        t=$(ls -d "$TMP"/fio-*/ 2>/dev/null | head -1)
        [ -n "$t" ] && [ -f "$t/t/zbd/test-zbd-support" ] ||
            die "apt-get source fio left no t/zbd/test-zbd-support (see $D/source.log)"
        v=$(version_of "$t"); v=${v:-fio-$(basename "$t" | sed 's/^fio-//')}
        rm -rf "${D:?}/$v"
        mv "${t%/}" "$D/$v"
        report "$D/$v"
    fi
    # The whole package could not be had; the upstream tarball is enough.
    line=$(apt-get "${O[@]}" -q source --print-uris fio 2>>"$D/source.log" |
           grep "\.orig\.tar\.[a-z0-9]*' " | head -1) ||
        die "Debian's fio source for $SUITE is not in the mirror's index (see $D/source.log)"
    uri=$(echo "$line" | cut -d"'" -f2)
    file=$(echo "$line" | awk '{print $2}')
    sum=$(echo "$line" | awk '{print $4}')
    [[ $sum == SHA256:* ]] || die "no SHA-256 for $file in the Sources index"
    /usr/lib/apt/apt-helper "${O[@]}" download-file "$uri" "$TMP/$file" "$sum" >>"$D/source.log" 2>&1 ||
        die "Debian's fio source ($SUITE, $file) cannot be downloaded from $MIRROR: $(grep '^E:.*orig' "$D/source.log" | tail -1)"
    mkdir -p "$TMP/x"
    tar -C "$TMP/x" -xf "$TMP/$file" ||
        die "cannot unpack $file"
    t=$(ls -d "$TMP"/x/fio-*/ 2>/dev/null | head -1)
    [ -n "$t" ] && [ -f "$t/t/zbd/test-zbd-support" ] || die "$file has no t/zbd/test-zbd-support"
    v=$(version_of "$t")
    [ -n "$v" ] || die "$file: no DEF_VER in FIO-VERSION-GEN"
    rm -rf "${D:?}/$v"
    mv "${t%/}" "$D/$v"
    report "$D/$v"
}

# The guest's suite first (its fio binary's own scripts); then sid, whose
# newer t/zbd keeps the test numbers (3.41 adds bad-block tests for
# null_blk and scsi_debug), when a mirror no longer serves the guest
# suite's source (seen: trixie's fio 3.39 .orig tarball answered 404).
errs=
for s in "$SUITE" sid; do
    TMP=$(mktemp -d "$D/.fetch.XXXXXX")
    if out=$(fetch_suite "$s" 2>&1); then
        rm -rf "$TMP"
        printf '%s\n' "$out"
        exit 0
    fi
    rm -rf "$TMP"
    errs+="${errs:+; }${out##*$'\n'}"
done
die "$errs"
