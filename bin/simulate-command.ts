/**
 * @module
 * `hono-waiting-room simulate`: hands its arguments to the simulator in `bin/simulate.ts`, loaded only
 * when asked for.
 */
import { importFunction } from './lazy-import.ts'

/** Where `runSimulate(argv)` lives, relative to this folder (rewritten to .js by the build). */
export const SIMULATE_MODULE = './simulate.ts'

export async function runSimulateCommand(argv: string[], specifier: string = SIMULATE_MODULE): Promise<number> {
  const runSimulate = await importFunction<(argv: string[]) => Promise<number>>(
    specifier,
    'runSimulate',
    'the simulate command',
    'It needs bin/simulate.ts, compiled by npm run build.',
  )
  return runSimulate(argv)
}
