#!/bin/bash
# Regenerate docs/differences.md's table of FEMU upstream's properties:
# one row per property of tests/data/femu-upstream-props.txt, with this
# device's help text for it (-device femu,help) and what
# tests/config/femu-names.t saw when it gave FEMU's default value
# (accepted, or refused with the message).
#   scripts/tables/femu-names.sh [QEMU]   (default build-femu/qemu-system-x86_64)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
qemu=${1:-$root/build-femu/qemu-system-x86_64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FEMU_QEMU=$qemu FEMU_TEST_LOGDIR=$tmp bash "$root/tests/config/femu-names.t" \
    >"$tmp/names.out" || { tail -5 "$tmp/names.out"; exit 1; }
"$qemu" -device femu,help >"$tmp/femu.help" 2>&1
"$qemu" -device femu-subsys,help >"$tmp/subsys.help" 2>&1
/usr/bin/python3 - "$tmp" "$root" <<'PY'
import re, sys
tmp, root = sys.argv[1], sys.argv[2]
seen = {}
for l in open(f'{tmp}/names.out'):
    m = re.match(r'ok   (accepted|refused)\s+\[(.*?)\](?::\s*(.*))?$', l.rstrip())
    if m:
        seen.setdefault(m.group(2), (m.group(1), m.group(3) or ''))
helps = {}
for dev in ('femu', 'subsys'):
    for l in open(f'{tmp}/{dev}.help'):
        m = re.match(r'  ([\w.]+)=<[^>]*>\s+- (.*?)(?: \(default: .*\))?$', l.rstrip())
        if m:
            helps[(dev, m.group(1))] = m.group(2)
rows = ['| device | property | FEMU default | here |', '|---|---|---|---|']
for l in open(f'{root}/tests/data/femu-upstream-props.txt'):
    if l.startswith('#') or not l.strip():
        continue
    dev, name, val = l.split()
    h = helps[('subsys' if dev == 'femu-subsys' else 'femu', name)]
    h = h.replace('|', '/').replace('<', '&lt;').replace('>', '&gt;')
    out = next((r for a, r in seen.items()
                if any(t.startswith(name + '=')
                       for t in a.replace(' ', ',').split(','))), None)
    if out is None:
        sys.exit(f'femu-names.t gave no row for {name}')
    if h.startswith('FEMU upstream only: '):
        here = 'refused whatever the value: `%s: %s`' % (
            name, h[len('FEMU upstream only: '):])
    elif out[0] == 'accepted':
        here = h + "; FEMU's default accepted"
    else:
        here = h + "; FEMU's default refused: `" + out[1].replace('|', '\\|') + '`'
    rows.append(f"| {dev} | `{name}` | {'(none)' if val == '-' else val} | {here} |")
p = f'{root}/docs/differences.md'
s = open(p).read()
a = s.index('| device | property | FEMU default | here |')
b = s.index('\n\n', a) + 1
open(p, 'w').write(s[:a] + '\n'.join(rows) + '\n' + s[b:])
print(f'docs/differences.md: {len(rows) - 2} rows')
PY
