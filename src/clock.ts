/**
 * @module
 * Time helpers. All admission math works on whole minutes since the Unix epoch ("minute numbers"):
 * buckets, counters and check-in counts are keyed by them (seed 001: bucketId is the minute of first arrival).
 */

/** Milliseconds since the epoch; passed in everywhere so tests can use a fake clock. */
export type Clock = () => number

export const MINUTE_MS = 60_000

/** The minute number that `ms` falls in. */
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS)

/** The first millisecond of minute number `minute`. */
export const minuteStart = (minute: number): number => minute * MINUTE_MS
