# Functions for FEMU's configure (sourced; expects die and note).
#
# Cache layout (default $HOME/.cache/femu):
#   apt/sources.list, apt/lists, apt/cache   private apt state for deb-src
#   qemu-src/qemu-10.0.*                     unpacked Debian source, patched
#   logs/                                    logs of failed steps

# The Debian mirror this machine's apt already uses (never hard-coded):
# $FEMU_DEBIAN_MIRROR if set; else the URIs of the first non-security
# stanza of /etc/apt/sources.list.d/debian.sources, then of any other
# deb822 *.sources file; else the first non-security "deb" line of
# /etc/apt/sources.list or *.list (skipping "[option=...]" blocks).
# Shared by configure, scripts/guest/build-guest.sh and build-os-image.sh.
femu_mirror() {
    local m= f
    if [ -n "${FEMU_DEBIAN_MIRROR:-}" ]; then echo "${FEMU_DEBIAN_MIRROR%/}"; return; fi
    for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        # deb822: a blank line ends a stanza; skip -security suites/URIs.
        m=$(awk '
            function emit() { if (u != "" && s !~ /-security/ && u !~ /security/) { print u; exit } }
            /^[[:space:]]*$/ { emit(); u = ""; s = ""; next }
            tolower($1) == "uris:"   { u = $2 }
            tolower($1) == "suites:" { s = $0 }
            END { emit() }' "$f" | head -n 1)
        [ -n "$m" ] && break
    done
    if [ -z "$m" ]; then
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -r "$f" ] || continue
            m=$(awk '$1 == "deb" {
                       for (i = 2; i <= NF; i++) {
                           if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; continue }
                           if ($i !~ /security/) print $i
                           break
                       } }' "$f" | head -n 1)
            [ -n "$m" ] && break
        done
    fi
    [ -n "$m" ] || die "cannot find the Debian mirror in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (set FEMU_DEBIAN_MIRROR)"
    echo "${m%/}"
}

femu_codename() {
    (. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
}

# meson >= 1.5, importable by /usr/bin/python3 (QEMU's configure builds its
# venv from that interpreter with the system's site packages).
femu_meson_ok() {
    /usr/bin/python3 - <<'EOF' 2>/dev/null
import sys
from mesonbuild.coredata import version
sys.exit(0 if tuple(int(x) for x in version.split('.')[:2]) >= (1, 5) else 1)
EOF
}

# Each check: "TEST|package|what".  TEST is cmd:NAME, pc:MODULE, file:PATH,
# pymod:MODULE (for /usr/bin/python3), or meson / venv (special cases).
femu_dep_checks=(
    "cmd:gcc|gcc|a C compiler (gcc)"
    "cmd:make|make|make"
    "cmd:ninja|ninja-build|ninja"
    "cmd:pkg-config|pkg-config|pkg-config"
    "cmd:flex|flex|flex"
    "cmd:bison|bison|bison"
    "cmd:ccache|ccache|ccache"
    "cmd:flock|util-linux|flock"
    "cmd:dpkg-source|dpkg-dev|dpkg-source (unpacks Debian's qemu source)"
    "file:/usr/bin/python3|python3|/usr/bin/python3"
    "venv|python3-venv|python3's venv module"
    "meson|meson|meson >= 1.5 for /usr/bin/python3"
    "pc:glib-2.0|libglib2.0-dev|glib-2.0 (pkg-config)"
    "pc:pixman-1|libpixman-1-dev|pixman-1 (pkg-config)"
    "pc:slirp|libslirp-dev|slirp (pkg-config)"
    "pc:zlib|zlib1g-dev|zlib (pkg-config)"
    "file:/usr/include/libfdt.h|libfdt-dev|libfdt (libfdt.h; x86_64-softmmu needs the device tree library)"
    "file:/usr/share/seabios/bios-256k.bin|seabios|SeaBIOS (bios-256k.bin)"
    "file:/usr/share/qemu/linuxboot_dma.bin|qemu-system-data|QEMU option ROMs (linuxboot_dma.bin)"
    "file:/usr/share/qemu/kvmvapic.bin|qemu-system-data|QEMU option ROMs (kvmvapic.bin)"
    "file:/usr/lib/ipxe/qemu/efi-virtio.rom|ipxe-qemu|iPXE ROMs (efi-virtio.rom)"
)
# Where Debian's packages put the firmware QEMU loads (seabios, qemu-system-data,
# ipxe-qemu), in search order.
femu_firmware_dirs="/usr/share/qemu /usr/share/seabios /usr/lib/ipxe/qemu"

# Packages Debian 12 only has new enough in bookworm-backports.
femu_backports_pkgs=" meson qemu-system-data seabios python3-pycotap "

femu_dep_present() {
    local t=$1
    case $t in
    cmd:*) command -v "${t#cmd:}" >/dev/null 2>&1 ;;
    file:*) [ -e "${t#file:}" ] ;;
    pc:*) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "${t#pc:}" ;;
    pymod:*) [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import ${t#pymod:}" >/dev/null 2>&1 ;;
    venv) [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 ;;
    meson) [ -x /usr/bin/python3 ] && femu_meson_ok ;;
    esac
}

# Print "package|what" for each missing dependency.
femu_missing_deps() {
    local c t rest
    for c in "${femu_dep_checks[@]}"; do
        t=${c%%|*}; rest=${c#*|}
        femu_dep_present "$t" || echo "$rest"
    done
}

# Writes (once) an apt source for bookworm-backports on this machine's mirror.
femu_add_backports() {
    local f=/etc/apt/sources.list.d/femu-bookworm-backports.sources
    [ -f "$f" ] && return 0
    local m
    m=$(femu_mirror)
    cat > "$f" <<EOF
Types: deb
URIs: $m
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
}

femu_check_deps() {
    local install=$1 missing pkgs=() bpo=() line p
    missing=$(femu_missing_deps)
    [ -z "$missing" ] && return 0
    if [ "$install" != yes ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        line=$(echo "$missing" | head -n 1)
        die "${line#*|} not found; install it with: apt-get install ${line%%|*} (or run ./configure as root without --no-install-deps)"
    fi
    while IFS= read -r line; do
        p=${line%%|*}
        if [ "$(femu_codename)" = bookworm ] && [[ $femu_backports_pkgs == *" $p "* ]]; then
            [[ " ${bpo[*]:-} " == *" $p "* ]] || bpo+=("$p")
        else
            [[ " ${pkgs[*]:-} " == *" $p "* ]] || pkgs+=("$p")
        fi
    done <<< "$missing"
    note "installing build dependencies: ${pkgs[*]:-} ${bpo[*]:-}"
    [ ${#bpo[@]} -eq 0 ] || femu_add_backports
    local log
    log=$(mktemp /tmp/femu-apt.XXXXXX)
    export DEBIAN_FRONTEND=noninteractive
    { apt-get -o DPkg::Lock::Timeout=600 update -q &&
      { [ ${#pkgs[@]} -eq 0 ] || apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${pkgs[@]}"; } &&
      { [ ${#bpo[@]} -eq 0 ] || apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends -t bookworm-backports "${bpo[@]}"; }
    } > "$log" 2>&1 || die "apt-get install failed: $(tail -n 1 "$log") (log: $log)"
    rm -f "$log"
    missing=$(femu_missing_deps)
    if [ -n "$missing" ]; then
        line=$(echo "$missing" | head -n 1)
        die "${line#*|} still missing after apt-get install ${line%%|*}"
    fi
}

# femu_check_qemu_version DIR WHAT: DIR must hold QEMU 10.0.x.
femu_check_qemu_version() {
    local dir=$1 what=$2 v
    [ -f "$dir/VERSION" ] || die "$what: not a QEMU source tree (no VERSION file)"
    v=$(head -n 1 "$dir/VERSION")
    case $v in
    10.0.*|10.0) ;;
    *) die "$what: QEMU version $v found, FEMU needs QEMU 10.0.x" ;;
    esac
    [ -f "$dir/configure" ] && [ -f "$dir/meson.build" ] ||
        die "$what: QEMU $v tree lacks configure or meson.build"
}

# femu_debian_qemu_source CACHE INSTALL: prints the path of the unpacked,
# patched Debian qemu 10.0 source (current stable, trixie), downloading it
# into CACHE/qemu-src the first time.
femu_debian_qemu_source() {
    local cache=$1 d v best= apt tmp m
    mkdir -p "$cache/qemu-src"
    exec 9> "$cache/.lock"
    flock 9
    for d in "$cache"/qemu-src/qemu-10.0.*/; do
        [ -f "$d/VERSION" ] || continue
        v=$(head -n 1 "$d/VERSION")
        case $v in 10.0.*) best=$(printf '%s\n%s\n' "$best" "${d%/}" | sed '/^$/d' | sort -V | tail -n 1) ;; esac
    done
    if [ -n "$best" ]; then
        echo "$best"
        return 0
    fi
    command -v dpkg-source >/dev/null 2>&1 ||
        die "dpkg-source not found (needed to unpack Debian's qemu source); install it with: apt-get install dpkg-dev"
    m=$(femu_mirror)
    apt=$cache/apt
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m trixie main" > "$apt/sources.list"
    local aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
                   -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
    note "downloading Debian's qemu source (trixie) into $cache/qemu-src" >&2
    apt-get "${aptopts[@]}" update -q > "$cache/apt/update.log" 2>&1 ||
        die "apt-get update for trixie deb-src failed (log: $cache/apt/update.log)"
    tmp=$(mktemp -d "$cache/qemu-src/.fetch.XXXXXX")
    if ! (cd "$tmp" && apt-get "${aptopts[@]}" source -q qemu) > "$cache/apt/source.log" 2>&1; then
        rm -rf "$tmp"
        die "apt-get source qemu failed (log: $cache/apt/source.log)"
    fi
    d=$(ls -d "$tmp"/qemu-*/ 2>/dev/null | head -n 1)
    [ -n "$d" ] || { rm -rf "$tmp"; die "apt-get source qemu left no source tree (log: $cache/apt/source.log)"; }
    v=$(head -n 1 "$d/VERSION")
    case $v in
    10.0.*) ;;
    *) rm -rf "$tmp"; die "Debian trixie's qemu source is version $v, FEMU needs 10.0.x (use --qemu-src=DIR)" ;;
    esac
    d=${d%/}
    mv "$tmp"/qemu_* "$cache/qemu-src/" 2>/dev/null || true
    mv "$d" "$cache/qemu-src/"
    rm -rf "$tmp"
    echo "$cache/qemu-src/${d##*/}"
}

# femu_check_tree_deps DIR INSTALL: what this particular QEMU tree needs on top.
# Upstream QEMU 10.0's configure wants pycotap in its venv; Debian's source
# package comments that out (disable-pycotap.patch), other trees may not.
femu_check_tree_deps() {
    local dir=$1 install=$2
    if grep -qE '^[[:space:]]*pycotap[[:space:]]*=' "$dir/pythondeps.toml" 2>/dev/null; then
        femu_dep_checks+=("pymod:pycotap|python3-pycotap|python3's pycotap module (required by $dir/pythondeps.toml)")
        femu_check_deps "$install"
    fi
}

# femu_need CHECK... : host tools a script needs beyond configure's.  Each
# CHECK is "TEST|package" (TEST as in femu_dep_checks: cmd:NAME, file:PATH,
# pc:MODULE).  As root with apt-get, the missing packages are installed from
# this machine's Debian archive; otherwise the script stops with one line
# naming the first missing package.  Expects the caller's die.
femu_need() {
    local c p pkgs=()
    for c in "$@"; do
        femu_dep_present "${c%%|*}" && continue
        p=${c#*|}
        [[ " ${pkgs[*]:-} " == *" $p "* ]] || pkgs+=("$p")
    done
    [ ${#pkgs[@]} -eq 0 ] && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        die "${pkgs[0]} is missing; install it with: apt-get install ${pkgs[*]}"
    fi
    echo "installing ${pkgs[*]} (apt-get)" >&2
    local log
    log=$(mktemp /tmp/femu-apt.XXXXXX)
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${pkgs[@]}" \
        > "$log" 2>&1 ||
        { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q > "$log" 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${pkgs[@]}" \
              >> "$log" 2>&1; } ||
        die "apt-get install ${pkgs[*]} failed: $(tail -n 1 "$log") (log: $log)"
    rm -f "$log"
    for c in "$@"; do
        femu_dep_present "${c%%|*}" || die "${c#*|} still missing after apt-get install"
    done
}
