/**
 * @module
 * The discrete-event loop. Simulated time advances in steps of `tickMs`; every request due in a step is
 * decided by the real middleware at the step's time. Users arrive along the scenario's curves, keep
 * requesting while they visit, and come back after the `Refresh` interval (with their cookie) while
 * queued. Everything random is seeded, so a scenario and a seed give the same table every time.
 */
import { seededRandom } from '../admission/plan.ts'
import { arrivalsOf } from './arrivals.ts'
import type { QueueDecision } from './diagnose.ts'
import { buildFleet, footprintOf, visit, type Fleet, type VisitResult, type Worker } from './fleet.ts'
import { GroundTruth } from './ground-truth.ts'
import type { Anomalies, Footprint, MinuteRow, PrematureCause, PrematureExample, SeriesPoint } from './metrics.ts'
import type { Scenario } from './scenario.ts'
import { summarize, type Summary, type UserOutcome } from './summary.ts'
import { VirtualTimers } from './virtual-timers.ts'
import { newUser, rememberTicket, takeTicket, ticketRemembered, type SimUser } from './users.ts'

/** Monday 2026-01-05 12:00:00 UTC: runs start on a minute boundary, so run minutes are the core's minutes. */
export const SIMULATION_START = Date.UTC(2026, 0, 5, 12, 0, 0)
const MINUTE_MS = 60_000
/** Ground truth is sampled this often for the charts. */
const SAMPLE_MS = 5000
/**
 * Background work gets a macrotask turn this often (simulated time). With the memory coordinator a
 * worker's background sync settles within microtasks, before the request that started it returns; the
 * turn is a safety net for work that needs one, spaced out because each costs a millisecond of real time.
 */
const SETTLE_EVERY_MS = 10_000
/** The core's minute number (epoch minutes) of run minute `minute`. */
const coreMinute = (minute: number): number => Math.floor(SIMULATION_START / MINUTE_MS) + minute

export interface RunOptions {
  /**
   * Lets background work that needs a macrotask turn finish. Default: one `setTimeout(0)` turn. With the
   * memory coordinator a worker's background sync settles within microtasks, before its request returns.
   */
  settle?: () => Promise<void>
  /** Called with each simulated minute's row as it closes (progress of a long run). Default: nothing. */
  onMinute?: (row: MinuteRow) => void
}

export interface SimulationResult {
  scenario: Scenario
  rows: MinuteRow[]
  series: SeriesPoint[]
  users: UserOutcome[]
  prematureCauses: Record<PrematureCause, number>
  prematureExamples: PrematureExample[]
  anomalies: Anomalies
  /** What the shared state held when the run ended (bounded by time × locations × buckets). */
  footprint: Footprint
  summary: Summary
}

interface Job {
  user: SimUser
  worker: Worker
}

export async function runSimulation(scenario: Scenario, options: RunOptions = {}): Promise<SimulationResult> {
  const settle = options.settle ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 0)))
  const { room, tickMs } = scenario
  let now = SIMULATION_START
  const timers = new VirtualTimers(() => now)
  const fleet = buildFleet(scenario, () => now)
  const workerRandom = seededRandom(`${scenario.seed}\nworkers`)
  const visitRandom = seededRandom(`${scenario.seed}\nvisits`)

  const { steps, schedule, enqueue, users } = scheduleOf(scenario, visitRandom)

  const truth = new GroundTruth(room)

  const workerFor = (user: SimUser): Worker => {
    const pick = () => {
      const indexes = fleet.byLocation.get(user.location)!
      return indexes[Math.floor(workerRandom() * indexes.length)]!
    }
    if (scenario.workerChoice === 'per-user') return fleet.workers[(user.homeWorker ??= pick())]!
    return fleet.workers[pick()]!
  }

  /** Applies one response to the user and schedules their next request; returns it if it was a queueing decision. */
  const apply = ({ user, worker }: Job, result: VisitResult, atMs: number): QueueDecision | undefined => {
    if (user.cookie !== undefined && !ticketRemembered(user, worker)) rememberTicket(user, worker) // it opened it
    if (result.cookie !== undefined) takeTicket(user, worker, result.cookie)
    const decision = result.decision
    if (user.state === 'arriving') truth.arrived()
    if (decision?.outcome === 'admitted') {
      truth.admitted(user, decision, atMs)
      const next = atMs + scenario.visit.requestEverySeconds * 1000
      if (next <= user.admittedMs! + user.visitMs) enqueue(user, next)
      else user.state = 'left'
      return undefined
    }
    if (decision?.outcome !== 'queued') {
      truth.unexpected()
      return undefined
    }
    // Back after the Refresh interval, as the queue page (or a JSON client) is told to.
    enqueue(user, atMs + (result.refreshSeconds ?? room.refreshIntervalSeconds) * 1000)
    if (!truth.queued(user, decision)) return undefined
    return { worker, decision, calls: fleet.counters.callsByToken.get(decision.ticketId ?? '') ?? [] }
  }

  const runStep = async (batch: SimUser[], atMs: number): Promise<void> => {
    const jobs: Job[] = batch.map((user) => ({ user, worker: workerFor(user) }))
    const results = await visitAll(fleet, jobs)
    const queued: QueueDecision[] = []
    for (let i = 0; i < jobs.length; i++) {
      const decision = apply(jobs[i]!, results[i]!, atMs)
      if (decision) queued.push(decision)
    }
    fleet.counters.callsByToken.clear()
    truth.judge(queued, atMs, now)
  }

  let lastSettle = 0
  for (let step = 0; step < steps; step++) {
    const atMs = step * tickMs
    const minute = Math.floor(atMs / MINUTE_MS)
    truth.expire(atMs)
    if (minute !== truth.minute) {
      truth.closeMinute(fleet.counters, coreMinute(truth.minute))
      options.onMinute?.(truth.rows[truth.rows.length - 1]!)
      truth.startMinute(minute)
    }
    if (atMs % SAMPLE_MS < tickMs) truth.sample(atMs)
    now = SIMULATION_START + atMs
    await timers.fireDue()
    const batch = schedule[step]
    if (!batch) continue
    schedule[step] = undefined
    await timers.within(() => runStep(batch, atMs))
    if (atMs - lastSettle >= SETTLE_EVERY_MS) {
      await settle()
      lastSettle = atMs
    }
  }
  truth.closeMinute(fleet.counters, coreMinute(truth.minute))
  options.onMinute?.(truth.rows[truth.rows.length - 1]!)

  return resultOf(scenario, users, truth, footprintOf(fleet))
}

/** The schedule: step number → users whose next request falls in that step, in the order they were added. */
function scheduleOf(scenario: Scenario, visitRandom: () => number) {
  const { tickMs } = scenario
  const steps = Math.ceil((scenario.minutes * MINUTE_MS) / tickMs)
  const schedule: (SimUser[] | undefined)[] = new Array(steps)
  const stepOf = (ms: number) => Math.ceil(ms / tickMs)
  const enqueue = (user: SimUser, ms: number): void => {
    const step = stepOf(ms)
    if (step < steps) (schedule[step] ??= []).push(user)
  }
  const { seconds, spreadSeconds } = scenario.visit
  const users = arrivalsOf(scenario.arrivals, seededRandom(`${scenario.seed}\narrivals`)).map((arrival, id) => {
    const visitMs = Math.round((seconds + (visitRandom() * 2 - 1) * spreadSeconds) * 1000)
    return newUser(id, arrival.location, stepOf(arrival.atMs) * tickMs, visitMs)
  })
  for (const user of users) enqueue(user, user.arrivalMs)
  return { steps, schedule, enqueue, users }
}

/**
 * One step's requests. A ticket the worker must decrypt is decided after a trip to the crypto thread pool,
 * which finishes in no fixed order: those requests go one at a time, first. The rest decide within
 * microtasks, in the order they were started, so they can run together.
 */
async function visitAll(fleet: Fleet, jobs: Job[]): Promise<VisitResult[]> {
  const results = new Array<VisitResult | undefined>(jobs.length)
  for (let i = 0; i < jobs.length; i++) {
    const { user, worker } = jobs[i]!
    if (user.cookie !== undefined && !ticketRemembered(user, worker)) results[i] = await visit(fleet, worker, user.cookie)
  }
  await Promise.all(
    jobs.map(async ({ user, worker }, i) => {
      if (!results[i]) results[i] = await visit(fleet, worker, user.cookie)
    }),
  )
  return results as VisitResult[]
}

function resultOf(scenario: Scenario, users: SimUser[], truth: GroundTruth, footprint: Footprint): SimulationResult {
  const outcomes: UserOutcome[] = users.map((user) => ({
    arrivalMs: user.arrivalMs,
    location: user.location,
    admittedMs: user.admittedMs,
    queueDecisions: user.queueDecisions,
  }))
  const { rows, series, prematureCauses, prematureExamples, anomalies } = truth
  const summary = summarize(scenario, rows, outcomes, truth.firstQueue, prematureCauses, truth.utilisationSamples)
  return { scenario, rows, series, users: outcomes, prematureCauses, prematureExamples, anomalies, footprint, summary }
}
