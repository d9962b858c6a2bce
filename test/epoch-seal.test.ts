/**
 * #14.4, the rest: a ticket carries the tag of the epoch (stored state) its session is counted in, so a fleet
 * restarted with an emptied backend — or a process on a fresh SQLite file or Deno KV database — learns of the
 * loss from the first old ticket that checks in, however close to the new state's start it was renewed (the
 * old rule, by time alone, needed it 5 s older). A ticket of a newer state of another process's memory
 * coordinator is not a loss; on a shared backend every other state is (test/epoch-clock-lag.test.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator, worker, START } from './breaker/harness.ts'
import { epochTag, sessionEpoch } from '../src/coordination/session-epoch.ts'
import { TicketSealer, type Ticket } from '../src/ticket/ticket.ts'

describe('sealed epochs', () => {
  it('generated restarts: an old session renewed up to 10 s before the new state began puts the room in recovery', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 4 }), async (gapMs, workers) => {
        const clock = { now: START + 1000 }
        const before = worker(memoryCoordinator(), clock)
        const users = [await before.request(), await before.request(), await before.request()]
        expect(users.every((u) => u.reason === 'slot')).toBe(true)
        // Everything restarts on an empty backend `gapMs` later: the new state begins with the fleet's first sync.
        clock.now += gapMs
        const backend = memoryCoordinator()
        const fleet = Array.from({ length: workers }, () => worker(backend, clock))
        for (const w of fleet) await w.room.room.flush()
        await fleet[0]!.request() // a cold start: the new state's epoch begins now; this newcomer takes a place
        clock.now += 500
        const back = await fleet[workers - 1]!.request(users[0]!.cookie) // the first old session checks in
        expect(back.reason).toBe('session')
        for (const w of fleet) await w.room.room.flush()
        clock.now += 10_000 // past a snapshot's age: every worker syncs before its next decision
        let admitted = 0
        for (let i = 0; i < 6; i++) if ((await fleet[i % workers]!.request()).reason === 'slot') admitted++
        expect(admitted).toBe(0)
      }),
      { numRuns: 40 },
    )
  }, 60_000)

  it('a session of the current state, or of a newer one, is no loss; one of an older one is, exactly', () => {
    const epoch = { id: 'state-b', startedAt: START }
    const ticket = (tag: string | undefined, lastCheckInTime: number): Ticket => ({
      roomId: 'r', ticketId: 't', bucketId: 0, acceptedAt: lastCheckInTime, lastCheckInTime, refreshIntervalSeconds: 0, ...(tag ? { epoch: tag } : {}),
    })
    expect(sessionEpoch(ticket(epochTag(epoch), START - 60_000), epoch)).toEqual({ countedBefore: false, lost: false })
    expect(sessionEpoch(ticket(epochTag({ id: 'state-a', startedAt: 0 }), START - 1), epoch)).toEqual({ countedBefore: true, lost: true })
    // On a shared backend any other state is a loss, whatever the clocks: the one that created ours may lag.
    expect(sessionEpoch(ticket('other', START + 60_000), epoch)).toEqual({ countedBefore: true, lost: true })
    // A process-local state (memory): another process's state that began later is not in ours (so not moved out
    // of it), but ours lost nothing; one older than ours (this process restarted) is a loss.
    const local = { ...epoch, local: true }
    expect(sessionEpoch(ticket('other', START + 60_000), local)).toEqual({ countedBefore: true, lost: false })
    expect(sessionEpoch(ticket('other', START - 1), local)).toEqual({ countedBefore: true, lost: true })
    // Untagged tickets (older versions): by time, with the clock margin.
    expect(sessionEpoch(ticket(undefined, START - 1000), epoch)).toEqual({ countedBefore: true, lost: false })
    expect(sessionEpoch(ticket(undefined, START - 6000), epoch)).toEqual({ countedBefore: true, lost: true })
    expect(sessionEpoch(ticket(undefined, START - 6000), undefined)).toEqual({ countedBefore: false, lost: false })
  })

  it('the tag is sealed into admitted tickets and opens again; a tampered tag is not a ticket', async () => {
    const sealer = new TicketSealer('r', ['epoch-seal-secret-0123456789-abcdefghijkl'])
    const t: Ticket = { roomId: 'r', ticketId: 'abc', bucketId: 1, acceptedAt: 5, lastCheckInTime: 5, refreshIntervalSeconds: 0, epoch: epochTag({ id: 'x', startedAt: 0 }) }
    expect((await sealer.open(await sealer.seal(t)))?.ticket).toEqual(t)
    const { epoch: _, ...untagged } = t
    expect((await sealer.open(await sealer.seal(untagged)))?.ticket).toEqual(untagged)
    expect((await sealer.open(await sealer.seal({ ...t, epoch: 'x'.repeat(17) })))).toBeUndefined()
  })
})
