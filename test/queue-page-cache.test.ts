/**
 * The queue page a flood gets is rendered once per language and second — not once per snapshot: the memory
 * coordinator's snapshot changes with every report, so a per-snapshot cache rendered nearly every page over
 * HTTP (issue 16) — and not once per refresh interval or wait either: each user's interval is jittered (~60
 * values) and the wait moves with the snapshot, so both are put into the kept page per answer. A kept page is
 * exactly the page a render would give (test/kept-page.test.ts; test/cloudflare-variables.test.ts compares each
 * page with the JSON of the same moment); the next second renders afresh.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { roomHarness, START } from './support/room-harness.ts'

const renders = vi.hoisted(() => ({ count: 0 }))
vi.mock('../src/page/queue-page.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/page/queue-page.ts')>()
  return {
    ...original,
    renderQueuePage: (...args: Parameters<typeof original.renderQueuePage>) => {
      renders.count++
      return original.renderQueuePage(...args)
    },
    renderQueuePageBytes: (...args: Parameters<typeof original.renderQueuePageBytes>) => {
      renders.count++
      return original.renderQueuePageBytes(...args)
    },
    openQueuePageBytes: (...args: Parameters<typeof original.openQueuePageBytes>) => {
      renders.count++
      return original.openQueuePageBytes(...args)
    },
  }
})

afterEach(() => {
  renders.count = 0
})

describe('the kept queue page', () => {
  // Several room sizes (how many users one minute of wait holds), refresh spreads, flood sizes and jitter seeds.
  for (const [places, users, refreshIntervalSeconds, seed] of [[20, 60, 20, 1], [40, 150, 300, 7], [10, 80, 60, 3]] as const) {
    it(`${users} cookieless users in one second before a room of ${places}, refresh ${refreshIntervalSeconds} s: one page rendered, though every user changed the snapshot and the wait and had their own refresh`, async () => {
      let state = seed
      const random = () => ((state = (state * 48271) % 2147483647) / 2147483647)
      const room = roomHarness({ totalActiveUsers: places, newUsersPerMinute: places, sessionDurationMinutes: 1, refreshIntervalSeconds, random })
      room.clock.now = START + 10_000
      for (let i = 0; i < places; i++) expect((await room.visit()).outcome).toBe('admitted')
      const link = room.room.link
      renders.count = 0
      const snapshots = new Set<unknown>()
      const pages = new Map<string, string>()
      const waitOf = (page: string) => /id="wait-time">([^<]*)</.exec(page)?.[1]
      for (let i = 0; i < users; i++) {
        room.clock.now = START + 10_000 + Math.floor((i * 999) / users) // all within one second
        const visit = await room.visit() // reports and settles: the next user sees a new snapshot
        expect(visit.outcome).toBe('queued')
        snapshots.add(link.snapshot(room.clock.now))
        const refresh = visit.response.headers.get('refresh')
        expect(visit.body).toContain(`<meta http-equiv="refresh" content="${refresh}">`) // the user's own interval in the kept page
        const key = `${refresh}\n${waitOf(visit.body)}`
        const kept = pages.get(key)
        if (kept === undefined) pages.set(key, visit.body)
        else expect(visit.body).toBe(kept) // the same refresh and wait: the same page, byte for byte
      }
      expect(snapshots.size).toBeGreaterThan(users / 2) // the snapshot did change under the flood
      expect(new Set([...pages.values()].map(waitOf)).size).toBeGreaterThan(1) // and so did the wait the pages show
      const waits = new Set([...pages.values()].map(waitOf))
      expect(new Set([...pages.keys()].map((key) => key.split('\n')[0])).size).toBeGreaterThan(1) // the jitter gave several intervals
      expect(pages.size).toBeGreaterThan(waits.size) // and some wait was answered with several of them
      expect(renders.count).toBe(1) // yet one page was rendered: a cache keyed by the wait rendered each wait's

      // The next second renders again.
      const before = renders.count
      room.clock.now = START + 11_000
      expect((await room.visit()).outcome).toBe('queued')
      expect(renders.count).toBe(before + 1)
    })
  }

  it('an operator template that tests the refresh interval in a section: kept per interval, each user still shown their own', async () => {
    let state = 11
    const random = () => ((state = (state * 48271) % 2147483647) / 2147483647)
    const template = '<p id="wait-time">{{waitTimeFormatted}}</p>{{#refreshIntervalSeconds}}<i>{{refreshIntervalSeconds}}</i>{{/refreshIntervalSeconds}}'
    const room = roomHarness({ totalActiveUsers: 20, newUsersPerMinute: 20, sessionDurationMinutes: 1, refreshIntervalSeconds: 20, random, template })
    room.clock.now = START + 10_000
    for (let i = 0; i < 20; i++) expect((await room.visit()).outcome).toBe('admitted')
    renders.count = 0
    const pages = new Map<string, string>()
    for (let i = 0; i < 80; i++) {
      room.clock.now = START + 10_000 + i * 12
      const visit = await room.visit()
      const refresh = visit.response.headers.get('refresh')
      expect(visit.body).toContain(`<i>${refresh}</i>`)
      const key = `${refresh}\n${/id="wait-time">([^<]*)</.exec(visit.body)?.[1]}`
      if (pages.has(key)) expect(visit.body).toBe(pages.get(key))
      pages.set(key, visit.body)
    }
    expect(renders.count).toBe(pages.size) // one render per interval and wait
    expect(renders.count).toBeLessThan(80)
  })
})
