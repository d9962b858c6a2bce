/**
 * @module
 * One simulated browser against a Worker in miniflare: it keeps its ticket cookie and lands in a given
 * colo (`cf.colo`, which the middleware uses as the location).
 */
import type { Miniflare } from 'miniflare'

export interface Visit {
  status: number
  admitted: boolean
  /** The admitted decision's ticket id (the origin echoes `c.get('waitingRoom')`). */
  ticketId?: string
  /** The `Refresh` header of a queue page. */
  refresh: string | null
  setCookie: boolean
}

export class Visitor {
  cookie: string | undefined
  readonly mf: Miniflare
  readonly host: string
  readonly colo: string

  constructor(mf: Miniflare, host: string, colo: string) {
    this.mf = mf
    this.host = host
    this.colo = colo
  }

  async visit(): Promise<Visit> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.cookie) headers.cookie = this.cookie
    const response = await this.mf.dispatchFetch(`https://${this.host}/api/me`, { headers, cf: { colo: this.colo } } as never)
    const setCookie = response.headers.get('set-cookie')
    if (setCookie) this.cookie = setCookie.split(';')[0]
    const body = (await response.json()) as { waitingRoom: { outcome?: string; ticketId?: string; inWaitingRoom?: boolean } }
    const admitted = body.waitingRoom.outcome === 'admitted'
    return { status: response.status, admitted, ticketId: body.waitingRoom.ticketId, refresh: response.headers.get('refresh'), setCookie: setCookie !== null }
  }
}
