/**
 * examples/deno: the app admits and queues on Deno KV, and main.ts really starts with `deno run`
 * (a child process on a free port, KV in a temp file, reached over loopback).
 */
import { createApp } from '../../../examples/deno/app.ts'
import { expect } from './test-api.ts'

const SECRET = 'example-test-secret-0123456789-abcdef'

Deno.test('example app: the first user gets in, the next waits', async () => {
  using kv = await Deno.openKv(':memory:')
  const app = createApp(kv, { region: 'ams', secret: SECRET, totalActiveUsers: 1, newUsersPerMinute: 1, clock: () => Date.UTC(2026, 10, 30, 12) })
  const first = await app.request('/')
  expect((await first.text()).includes('Admitted (slot) in region ams')).toBe(true)
  const second = await app.request('/')
  expect((await second.text()).includes('Welcome in')).toBe(false)
  expect(second.headers.get('refresh') !== null).toBe(true)
})

Deno.test('example main.ts serves with deno run', async () => {
  const dir = await Deno.makeTempDir({ prefix: 'wr-example-' })
  const child = new Deno.Command(Deno.execPath(), {
    args: ['run', '-A', '--unstable-kv', new URL('../../../examples/deno/main.ts', import.meta.url).pathname],
    env: { PORT: '0', KV_PATH: `${dir}/room.db`, WAITING_ROOM_SECRET: SECRET, DENO_REGION: 'gcp-europe-west3' },
    stdout: 'piped',
    stderr: 'inherit',
  }).spawn()
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader()
    let output = ''
    while (!/http:\/\/\S+:\d+\//.test(output)) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`main.ts exited before listening: ${output}`)
      output += value
    }
    const url = output.match(/http:\/\/\S+:(\d+)\//)!
    const response = await fetch(`http://127.0.0.1:${url[1]}/`)
    expect((await response.text()).includes('in region gcp-europe-west3')).toBe(true)
    reader.releaseLock()
  } finally {
    child.kill('SIGTERM')
    await child.status
    await child.stdout.cancel().catch(() => {})
    await Deno.remove(dir, { recursive: true })
  }
})
