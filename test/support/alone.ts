/**
 * The test files that judge REAL elapsed time, run one at a time after every other file (vitest.config.ts,
 * project `alone`): each bound below holds on an idle machine and can fail beside another file competing for the
 * 2 cores of CI. Every other test file — fake clocks, pure logic, functional checks over sockets and processes
 * whose outcome does not depend on how fast they answer — runs in project `parallel`, two or more at a time.
 *
 * A NEW test file runs in `parallel` unless it is listed here. List it when it judges real time: a process fleet
 * on an accelerated clock (break14b/procs.ts `fakeClock`, clock-preload.mjs), real sync intervals or sleeps that
 * must outlast the code's timers, "served within X ms", a store stalled for a real duration, or a CPU-heavy case
 * under a timeout. test/alone-list.test.ts fails when a file with such a marker is missing here.
 */
export const ALONE: Record<string, string> = {
  'test/proxy-h1.test.ts': 'origin timeouts answered 504 after a real wait',
  'test/breaker/break14/observed-double.test.ts': 'a sync applied 5 ms late, bursts 20 ms apart',
  // break14b: CLI proxies on accelerated clocks (SIGKILL, SIGSTOP, store stalls), real sync intervals.
  'test/breaker/breakslice18/session-end.test.ts': 'place reused within a refresh: syncs on real timers between fake-clock steps (CI: a rival 6.7 s late at load)',
  'test/breaker/breakslice18/stale-cookie.test.ts': 'places live vs newcomers queued: syncs on real timers between fake-clock steps (CI: 25 s of 2 of 3 live at load)',
  'test/breaker/break14b/cluster-failover.test.ts': 'Redis Cluster failover under an 11 s real burst',
  'test/breaker/break14b/cold-proxy-stall.test.ts': 'served < 1 s while the store stalls 4 s',
  'test/breaker/break14b/crash-dense.test.ts': 'proxy fleet on a 10x clock, SIGKILL timing',
  'test/breaker/break14b/crash-random-redis.test.ts': 'proxy fleet on a 10x clock, SIGKILL timing',
  'test/breaker/break14b/crash-random-sqlite.test.ts': 'proxy fleet on a 10x clock, SIGKILL timing',
  'test/breaker/break14b/hung-coordinator.test.ts': 'each admitted request < 50 ms real',
  'test/breaker/break14b/lost-renewal.test.ts': 'proxies on a 20x clock, SIGKILL right after renewing',
  'test/breaker/break14b/origin-commands.test.ts': 'streamed answers with real pauses',
  'test/breaker/break14b/paused-proxy.test.ts': 'proxies on a 10x clock, SIGSTOP for two fake minutes',
  'test/breaker/break14b/raw-proxy.test.ts': 'what reached the origin read after a real 100 ms',
  'test/breaker/break14b/revoke-procs-redis.test.ts': 'proxies on a 20x clock, real sync intervals',
  'test/breaker/break14b/revoke-procs-sqlite.test.ts': 'proxies on a 20x clock, real sync intervals',
  'test/breaker/break14b/seen-high-rate.test.ts': 'CPU-heavy (1.2 M ids) under the test timeout',
  'test/breaker/break14b/shm.test.ts': 'real waits for the proxy to reopen its store',
  'test/breaker/break14b/stall-redis.test.ts': 'max < 300 ms while Redis stalls 4 s',
  'test/breaker/break14b/stall-sqlite.test.ts': 'max < 300 ms while SQLite is locked 4 s',
  // break14c/d/e/g: slow or stalled stores in real ms against the 150 ms / coordinatorTimeoutMs waits.
  'test/breaker/break14c/probe-crash.test.ts': 'proxy fleet on an accelerated clock, SIGKILL timing',
  'test/breaker/break14c/probe-lat.test.ts': 'latency under a real Redis stall',
  'test/breaker/break14c/probe-rk.test.ts': 'Redis paused for a real hold, SIGKILL timing',
  'test/breaker/break14c/replay-starve.test.ts': 'a proxy on a 20x clock, one request a fake minute',
  'test/breaker/break14c/slow-report-kill.test.ts': 'a 0.5 s stall against the 150 ms wait, SIGKILL 250 ms after',
  'test/breaker/break14d/late-report.test.ts': 'reports held and released in real ms',
  'test/breaker/break14d/outage-logout.test.ts': 'background reports given real ms to land',
  'test/breaker/break14d/slow-store-logout.test.ts': 'a store 80-200 ms late against the 150 ms wait',
  'test/breaker/break14e/flaky-logout.test.ts': 'calls hanging 150 ms against coordinatorTimeoutMs',
  'test/breaker/break14e/hold-probe.test.ts': 'hold times of renewals while the store hangs',
  'test/breaker/break14e/outage-memory.test.ts': 'background reports given real ms to land',
  'test/breaker/break14e/slow-redis-kill-cli.test.ts': 'proxies on a 3x clock, Redis 600 ms away, SIGKILL timing',
  'test/breaker/break14e/slow-store-kill.test.ts': 'a store 270-380 ms late against T 400, SIGKILL timing',
  'test/breaker/break14e/putback-race.test.ts': 'concurrent grants against coordinatorTimeoutMs 400: a timed-out re-entry stays pending (12 of 6 once at load 14)',
  'test/breaker/break14h/cold-latency.test.ts': 'the first grant of a cold process within two real round trips of a store 250-400 ms away',
  'test/breaker/breakbatch17/fail-mode.test.ts': 'redis-server of its own paused (SIGSTOP, DEBUG SLEEP 1 s) against a 300 ms coordinator timeout',
  'test/breaker/breakbatch17/cli-burst.test.ts': 'two CLI proxies on real Redis under bursts of 300-800 concurrent requests; waits past a minute boundary when near one',
  'test/breaker/break14g/mixed-phase-cli.test.ts': 'proxies on an accelerated clock, a slow link, SIGKILL timing',
  'test/breaker/break14g/mixed-phase-kill.test.ts': 'a store 200-900 ms late against the 150 ms wait',
  'test/breaker/break14g/multi-location-backstop.test.ts': 'a store 650 ms late, answers raced against real sleeps',
  'test/breaker/break14g/reenter-replay.test.ts': 'background reports given 20 ms to land',
  'test/breaker/break14g/slow-latency.test.ts': 'every admitted request <= 4 T + 100 ms real',
  'test/breaker/break14g/sqlite-lock-kill.test.ts': 'SQLite locked 300-900 ms against the 150 ms wait',
  // break14f, breaklimits, breakh1: processes on accelerated clocks, pools and tunnels judged over real seconds.
  'test/breaker/break14f/sqlite-inplace.test.ts': 'real 400 ms pauses for the workers to reopen the file',
  'test/breaker/break14f/tunnel-checkin.test.ts': 'a proxy on a 20x clock, a tunnel over real seconds',
  'test/breaker/break14f/tunnel-outlives.test.ts': 'a proxy on a 20x clock, a tunnel over real seconds',
  'test/breaker/break14f/upgrade-headers.test.ts': 'a revocation seen within a real wait',
  'test/breaker/break14f/volatile-cli.test.ts': 'proxies on a 20x clock, real sync pauses',
  'test/breaker/breaklimits/cli-lost-backend.test.ts': 'proxies on a 20x clock, the store removed under them',
  'test/breaker/breakh1/forwarding-underscore.test.ts': 'its ticket read until 400 ms of silence (failed beside another file at load 15)',
  'test/breaker/breakh1/origin-extra-bytes.test.ts': 'its ticket read until 400 ms of silence, as forwarding-underscore',
  'test/breaker/breakh1/held.test.ts': 'origin answers cut and delayed in real ms, 150 clients at once',
  'test/breaker/breakh1/idle-pool.test.ts': 'idle connections counted before keepAliveMs ends',
  'test/breaker/breakh1/origin-garbage.test.ts': 'a 502 "at once", not after the origin timeout',
  'test/breaker/breakh1/origin-status.test.ts': 'a 502 "at once", not after the origin timeout',
  // break20b, breakfast: answers and processes judged over real time (these failed beside another file at load 15).
  'test/breaker/break20b/bomb-slow-client.test.ts': 'proxy RSS sampled over real 150 ms steps, 3 proxies started within 30 s',
  'test/breaker/break20b/client-gone-gzip.test.ts': "the origin's connection closed within 3 s of the client leaving",
  'test/breaker/breakfast/differential.test.ts': 'answers read until 400 ms of silence, as host-duplicate',
  'test/breaker/breakfast/host-duplicate.test.ts': 'answers read until 400 ms of silence (a late answer reads as none)',
  'test/breaker/breakfast/stateful.test.ts': 'answers read until 400 ms of silence, as host-duplicate',
  // break19: a hung / slow store judged in real ms; a SQLite marker rewritten after 5 s of real time.
  'test/breaker/break19/hung-store.test.ts': 'admitted requests waited > 120 ms real at most once per worker',
}
