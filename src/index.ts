/**
 * @module
 * hono-waiting-room: a virtual waiting room for Hono. `app.use(waitingRoom())` queues users when the
 * site reaches its limits; adapters (`hono-waiting-room/memory`, `/cloudflare`, `/deno-kv`,
 * `/bun-sqlite`, `/upstash`) share its state across workers and locations.
 */
export {
  waitingRoom,
  type WaitingRoomDecision,
  type WaitingRoomEnv,
  type WaitingRoomVariables,
  type DecisionReason,
  type RoomHandle,
  type WaitingRoomMiddleware,
} from './room/middleware.ts'
export { waitingRoomAdmin, type WaitingRoomAdminOptions, type RoomStatus, type RoomStatusName } from './admin/admin.ts'
export type { WaitingRoomEventInput } from './admission/events.ts'
export type { SettingsPatch, SettingsStorage } from './admission/settings.ts'
export type { WaitingRoomOptions, CookieOptions, SameSite, SecureMode, FailMode } from './room/options.ts'
export type { RouteInput, Compatibility } from './room/route-options.ts'
export type { BypassRule, Condition as BypassCondition, StringTest, NamedTest } from './rules/language.ts'
export { WaitingRoomError, type WaitingRoomErrorCode } from './errors.ts'
export { ANYWHERE, takeSlot, type Coordinator, type CounterRequest, type CounterResult, type SlotRequest, type SlotResult } from './coordination/coordinator.ts'
export type { RoomState, LocationState, WorkerReport } from './coordination/state.ts'
export type { TrafficReference } from './coordination/reference.ts'
export { LocationAggregator, GlobalAggregator } from './coordination/aggregator.ts'
export type { Snapshot, Bucket } from './admission/snapshot.ts'
export type { TemplateVariables } from './page/queue-page.ts'
export type { Ticket } from './ticket/ticket.ts'
export type { QueueingMethod } from './admission/plan.ts'
export { proofOfWork, type ProofOfWorkOptions } from './challenge/proof-of-work.ts'
export { turnstile, type TurnstileOptions } from './challenge/turnstile.ts'
export { solveChallenge } from './challenge/signed-challenge.ts'
export { CHALLENGE_HEADER, type ChallengeProvider, type ChallengeVariables, type ChallengeVerdict, type ChallengeEnvironment, type ChallengeInfo } from './challenge/provider.ts'
export type { ChallengeOptions } from './challenge/options.ts'
