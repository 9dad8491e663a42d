#!/bin/bash
# qtest group /femu/cq-full: a host that does not consume completions: the
# controller stops at a full CQ (3 of 4 entries), overwrites nothing, and
# delivers the other 17 in order once the head doorbell moves.
. "$(dirname "$0")/lib.sh"
qtest_group cq-full
