/**
 * @module
 * The simulator: runs the real middleware — L locations × W workers sharing one memory coordinator — in
 * simulated time, and measures queue onset, overshoot, premature queueing and wait times. Runtime-neutral;
 * the CLI (`hono-waiting-room simulate`) lives in `bin/simulate.ts`.
 *
 * @example
 * ```ts
 * import { runSimulation, rampScenario, formatSummary } from './src/simulator/index.ts'
 * const result = await runSimulation(rampScenario({ limit: 100 }))
 * console.log(formatSummary(result))
 * ```
 */
export { runSimulation, SIMULATION_START, type RunOptions, type SimulationResult } from './run.ts'
export { parseScenario, type Scenario, type ScenarioInput, type ArrivalPhase, type LocationSpec, type RoomSpec, type VisitSpec } from './scenario.ts'
export { SCENARIOS, rampScenario, spikeScenario, shiftScenario, seed002Scenario, type ScenarioName } from './scenarios.ts'
export { planetScenario, scaleScenario, paretoShares, type PlanetShape } from './planet.ts'
export { formatTable, formatSummary, resultJson } from './report.ts'
export { renderCharts, type Charts } from './charts.ts'
export type { MinuteRow, SeriesPoint, PrematureCause, PrematureExample, Anomalies, Footprint } from './metrics.ts'
export type { Summary, UserOutcome, WaitFigures } from './summary.ts'
