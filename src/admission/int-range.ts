/**
 * @module
 * A whole-number option with bounds, whose every error — a string, null, NaN, a fraction, out of range — names the
 * whole allowed range ("expected an integer from 0 to 10000"): zod's own messages name one side of it only (">=0"), or
 * the type alone ("expected number, received string"), and an operator fixing a config wants both ends at once.
 */
import { z } from 'zod'

export function intRange(min: number, max: number): z.ZodNumber {
  const error = `expected an integer from ${min} to ${max}`
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error })
}
