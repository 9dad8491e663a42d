#!/bin/bash
# qtest group /femu/doorbells (and /femu/doorbells/events, /values):
# doorbell writes for missing queues, beyond the BAR, head/tail beyond the
# queue size; a CQ head past the posted completions and an SQ tail back
# into unfetched entries (Error event 01h Invalid Doorbell Write Value,
# exact AER result).  Expected NVMe statuses are in tests/qtest/femu-queues.c.
. "$(dirname "$0")/lib.sh"
qtest_group doorbells
