/*
 * When an idle poller sleeps as SCHED_BATCH (include/hw/femu/poller-batch.h):
 * never with a completion due, never at one command per sleep (QD1),
 * after a run of untimed sleeps at depth, and not flapping on the edge.
 */
#include "test.h"
#include "hw/femu/poller-batch.h"

/* n sleeps of per commands each (timed or not); returns the last answer */
static bool sleeps(FemuBatchPolicy *b, uint64_t *cmds, int n, uint64_t per,
                   bool timed)
{
    bool want = false;

    for (int i = 0; i < n; i++) {
        *cmds += per;
        want = femu_batch_want(b, *cmds, timed);
        b->batch = want;        /* as if the kernel took every change */
    }
    return want;
}

static void test_qd1_never(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;
    bool ever = false;

    /* one command per sleep, then idle wake-ups with none */
    for (int i = 0; i < 1000; i++) {
        ever |= sleeps(&b, &cmds, 1, i % 3 ? 1 : 0, false);
    }
    CHECK(!ever);
}

static void test_depth_after_run(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;
    int first = -1;

    for (int i = 0; i < 100 && first < 0; i++) {
        if (sleeps(&b, &cmds, 1, 4, false)) {
            first = i;
        }
    }
    /* not before FEMU_BATCH_AFTER_SLEEPS untimed sleeps in a row */
    CHECK(first >= FEMU_BATCH_AFTER_SLEEPS - 1);
    CHECK(first >= 0 && first < 40);
    /* a timed sleep turns it back at once, whatever the depth */
    CHECK(!sleeps(&b, &cmds, 1, 64, true));
    CHECK(!b.batch);
    /* and the run starts again */
    CHECK(!sleeps(&b, &cmds, FEMU_BATCH_AFTER_SLEEPS - 1, 8, false));
    CHECK(sleeps(&b, &cmds, 1, 8, false));
}

static void test_alternating_timed(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;
    bool ever = false;

    /* NAND times at depth: each untimed sleep follows a timed one */
    for (int i = 0; i < 1000; i++) {
        ever |= sleeps(&b, &cmds, 1, 8, i % 2 || i % 7 == 0);
    }
    CHECK(!ever);
}

/*
 * n sleeps of base commands each but every period-th, which has burst
 * commands: how often the answer changed (a system call each time)
 */
static int changes(FemuBatchPolicy *b, uint64_t *cmds, int n, uint64_t base,
                   int period, uint64_t burst)
{
    bool was = b->batch;
    int count = 0;

    for (int i = 0; i < n; i++) {
        bool now = sleeps(b, cmds, 1, i % period == period - 1 ? burst : base,
                          false);

        count += now != was;
        was = now;
    }
    return count;
}

/*
 * 200 sleeps of 2, 2, 2, 1, ... commands: 1.75 per sleep, between
 * FEMU_BATCH_KEEP_CMDS and FEMU_BATCH_MIN_CMDS
 */
static int changes_between(FemuBatchPolicy *b, uint64_t *cmds)
{
    return changes(b, cmds, 200, 2, 4, 1);
}

static void test_hysteresis(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;

    CHECK(sleeps(&b, &cmds, 64, 4, false));
    /* between KEEP and MIN: it stays as it is, either way */
    CHECK_EQ(changes_between(&b, &cmds), 0);
    CHECK(b.batch);
    /* down to one per sleep: back to SCHED_OTHER within the average's
     * span */
    CHECK(!sleeps(&b, &cmds, FEMU_BATCH_AVG_SLEEPS, 1, false));
    CHECK_EQ(changes_between(&b, &cmds), 0);
    CHECK(!b.batch);
}

static void test_no_flapping(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;

    /* one command per sleep with a burst of 9 every 40 (1.2 on
     * average, like one job at QD16) */
    CHECK_EQ(changes(&b, &cmds, 2000, 1, 40, 9), 0);
}

static void test_burst_capped(void)
{
    FemuBatchPolicy b = { 0 };
    uint64_t cmds = 0;

    /* one huge burst does not hold it SCHED_BATCH over a QD1 tail
     * (uncapped, this one would for about 350 sleeps) */
    sleeps(&b, &cmds, 2 * FEMU_BATCH_AVG_SLEEPS, 4, false);
    CHECK(b.batch);
    cmds += 1000000;
    sleeps(&b, &cmds, 1, 0, false);
    CHECK(!sleeps(&b, &cmds, 4 * FEMU_BATCH_AVG_SLEEPS, 1, false));
}

int main(void)
{
    RUN(test_qd1_never);
    RUN(test_depth_after_run);
    RUN(test_alternating_timed);
    RUN(test_hysteresis);
    RUN(test_no_flapping);
    RUN(test_burst_capped);
    return test_done("test-poller-batch");
}
