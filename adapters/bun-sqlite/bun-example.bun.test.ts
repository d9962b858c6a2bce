// Run by `bun test` (see test.sh): examples/bun's launcher starts two server processes on one port and
// one file; new users spread over both are admitted up to the room's limit, in total. It lives here, not
// beside the example, because vitest.config.ts excludes *.bun.test.ts only under adapters/.
import { expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const LIMIT = 3
const USERS = 40

/** A port nobody listens on right now. */
function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

it('two processes behind one port share one room: exactly the limit admitted', async () => {
  const port = freePort()
  const dir = mkdtempSync(join(tmpdir(), 'wr-bun-example-'))
  const launcher = Bun.spawn([process.execPath, fileURLToPath(new URL('../../examples/bun/launch.ts', import.meta.url)), '2'], {
    env: { ...process.env, PORT: String(port), ROOM_DB: join(dir, 'room.db'), NEW_USERS_PER_MINUTE: String(LIMIT), TOTAL_ACTIVE_USERS: String(LIMIT) },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  try {
    // Wait until both processes listen.
    let out = ''
    const decoder = new TextDecoder()
    for await (const chunk of launcher.stdout) {
      out += decoder.decode(chunk)
      if (out.split('listening on').length - 1 >= 2) break
    }

    let admitted = 0
    const servedBy = new Set<string>()
    for (let i = 0; i < USERS; i++) {
      // A new connection per user (no keep-alive), so the kernel may hand each to either process.
      const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' }, keepalive: false })
      const body = await response.text()
      if (body.startsWith('Welcome in')) admitted++
      servedBy.add(response.headers.get('x-served-by') ?? '?')
    }
    expect(admitted).toBe(LIMIT)
    expect(servedBy.size).toBe(2)
  } finally {
    launcher.kill('SIGTERM')
    const code = await launcher.exited
    rmSync(dir, { recursive: true, force: true })
    expect(code).toBe(0)
  }
}, 30_000)
