/**
 * @module
 * The challenge in the admin API's page preview: the room's own provider makes a challenge exactly as it
 * would for a user, but under a throwaway key (it can never be answered in the room), counted nowhere, and
 * the page's submit helper does nothing — so a preview shows the widget without sending or reloading.
 */
import type { TemplateVariables } from '../page/queue-page.ts'
import { randomBytes } from '../ticket/random.ts'
import type { ResolvedChallenge } from './options.ts'
import { CHALLENGE_HEADER, type ChallengeEnvironment } from './provider.ts'

/** A preview's `challenge` variable, and the widget for its page. */
export async function previewChallenge(config: ResolvedChallenge, roomId: string, now: number): Promise<{ info: Record<string, unknown>; widget(variables: TemplateVariables): string }> {
  const env: ChallengeEnvironment = { roomId, now, waitingUsers: 0, key: randomBytes(32).slice(), claimOnce: async () => false }
  const fields = config.provider.issue ? await config.provider.issue(env) : {}
  const info = { ...fields, provider: config.name, mode: config.mode, header: CHALLENGE_HEADER }
  const inert = '<script>window.waitingRoomChallengeSolved=function(){}</script>'
  return { info, widget: (variables) => inert + config.provider.widget({ ...variables, challenge: info }) }
}
