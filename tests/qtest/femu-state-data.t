#!/bin/bash
# qtest group /femu/state-data: host data in the state file (state=PATH) survives a save on demand and the exit save and reads back after a restart, with QEMU running under a mincore() that reports every page not resident (as Linux reports swapped-out pages): the device saves the chunks its own record says were written.
# Expected NVMe statuses are in tests/qtest/femu-admin-io.c.
root=${FEMU_ROOT:-$(cd "$(dirname "$0")/../.." && pwd -P)}
real=${FEMU_QEMU:-${FEMU_BUILD_DIR:-$root/build-femu}/qemu-system-x86_64}
T=$(mktemp -d /tmp/femu-state-data.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat > "$T/nores.c" <<'C'
/* every page "not resident": what mincore() says of swapped-out pages */
#include <stddef.h>
#include <string.h>
#include <unistd.h>
int mincore(void *addr, size_t len, unsigned char *vec)
{
    long psz = sysconf(_SC_PAGESIZE);

    (void)addr;
    memset(vec, 0, (len + psz - 1) / psz);
    return 0;
}
C
gcc -shared -fPIC -o "$T/nores.so" "$T/nores.c" || { echo "FAIL: building the mincore shim"; exit 1; }
# the wrapper keeps the name libqtest wants (*-system-ARCH); a sanitizer
# build wants its runtime first: let the shim come before it
printf '#!/bin/sh\nASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD=%s exec %s "$@"\n' \
    "$T/nores.so" "$real" > "$T/qemu-system-x86_64"
chmod +x "$T/qemu-system-x86_64"
[ -x "$real" ] && FEMU_QEMU=$T/qemu-system-x86_64
. "$(dirname "$0")/lib.sh"
qtest_group state-data
