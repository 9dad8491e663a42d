#!/usr/bin/env python3
"""Show FEMU's log page C1h (completion lateness), layout version 2, with
its histograms.  Scripts read the summary with scripts/femu-log.sh c1, the
project's decoder of C0h and C1h; this is for a person reading the buckets.

    nvme get-log /dev/nvme0 --log-id=0xc1 --log-len=8960 -b | c1h.py [--hist] [--kv]

The layout is documented in docs/log-pages.md.  Without options it prints
the summary of both histograms in microseconds; --kv prints one
"name=value" per field (nanoseconds) for scripts; --hist also lists the
non-empty buckets with their ranges.  A 512-byte read (the header only)
is enough for the summary.  Version 1 pages (power-of-two buckets) are
recognised by their zero version field and decoded from the header only.
"""
import struct
import sys

HDR = 512


def bucket_low(b, sub):
    """Smallest lateness (ns) of bucket b; sub = sub-buckets per octave."""
    if b < sub:
        return b
    bits = sub.bit_length() - 1
    k = b - sub
    e = bits + k // sub
    return (sub + k % sub) << (e - bits)


def summary(d, off):
    return dict(zip(("count", "sum_ns", "max_ns", "p50_ns", "p99_ns",
                     "p999_ns"), struct.unpack_from("<6Q", d, off)))


def main():
    args = sys.argv[1:]
    d = sys.stdin.buffer.read()
    if len(d) < 64:
        sys.exit("c1h.py: short page (%d bytes)" % len(d))
    ver = struct.unpack_from("<I", d, 48)[0]
    cqe = summary(d, 0)
    out = {"version": ver}
    out.update({"cqe_" + k: v for k, v in cqe.items()})
    if ver >= 2:
        sub, nb, cqe_off = struct.unpack_from("<H2xII", d, 52)
        out["cqe_p90_ns"] = struct.unpack_from("<Q", d, 64)[0]
        out.update({"irq_" + k: v for k, v in summary(d, 80).items()})
        irq_off = struct.unpack_from("<I", d, 128)[0]
        out["irq_p90_ns"] = struct.unpack_from("<Q", d, 136)[0]
        out["wake_margin_ns"] = struct.unpack_from("<Q", d, 144)[0]
    if "--kv" in args:
        for k, v in out.items():
            print("%s=%d" % (k, v))
    else:
        for name in ("cqe", "irq"):
            if name + "_count" not in out:
                continue
            c = out[name + "_count"]
            mean = out[name + "_sum_ns"] / c / 1000 if c else 0
            what = ("CQE in guest memory" if name == "cqe" else
                    "interrupt step done")
            print("%-20s count=%d mean=%.2fus p50<=%.2fus p99<=%.2fus "
                  "p99.9<=%.2fus max=%.2fus" % (
                      what, c, mean, out[name + "_p50_ns"] / 1000,
                      out[name + "_p99_ns"] / 1000,
                      out[name + "_p999_ns"] / 1000,
                      out[name + "_max_ns"] / 1000))
        if "wake_margin_ns" in out:
            print("poller wake margin now: %.1fus" %
                  (out["wake_margin_ns"] / 1000))
    if "--hist" in args and ver >= 2:
        for name, off in (("cqe", cqe_off), ("irq", irq_off)):
            if len(d) < off + 8 * nb:
                print("%s histogram: not in this read (read %d bytes)" %
                      (name, off + 8 * nb))
                continue
            for b, n in enumerate(struct.unpack_from("<%dQ" % nb, d, off)):
                if n:
                    hi = bucket_low(b + 1, sub) - 1 if b + 1 < nb else -1
                    print("%s [%d, %s] ns: %d" % (
                        name, bucket_low(b, sub), hi if hi >= 0 else "inf",
                        n))


if __name__ == "__main__":
    main()
