/**
 * Off @hono/node-server the queue answer's headers are set on the Response Hono made (answer.ts
 * `answerOnResponse`), not on the context first: on Node's Web Response here, and on the real Bun and Deno
 * binaries, every answer shape (headers, Set-Cookie lines, status, string or bytes body) with whatever another
 * middleware put on the context before — headers of other names, of the answer's own names, an answer made,
 * a status — is the answer Hono's own way gives. And the Accept check that picks JSON answers as lower-casing
 * the header did.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mentionsJson } from '../src/room/pipeline/respond.ts'
import { answers, compareAll, OUTERS } from './support/queue-answer-compare.ts'

const run = promisify(execFile)
const root = new URL('../', import.meta.url).pathname
const binary = (name: string) => [`${root}node_modules/.bin/${name}`, `${root}test/runtimes/node_modules/.bin/${name}`].find((path) => existsSync(path))
const runtimes: [string, string | undefined, string[]][] = [
  ['bun', binary('bun'), []],
  ['deno', binary('deno'), ['run', '-A']],
]
const all = answers().length * OUTERS.length

describe('queue answers set on the Response equal Hono’s own', () => {
  it('on Node’s Web Response', async () => {
    expect(await compareAll()).toEqual({ compared: all, differs: null })
  })
  it.each(runtimes)('on %s', async (name, path, args) => {
    expect(path, `no ${name} binary: npm run test:runtimes`).toBeDefined()
    const { stdout } = await run(path!, [...args, 'test/support/queue-answer-compare.ts'], { cwd: root, timeout: 30_000 })
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ runtime: name, compared: all, differs: null })
  })
})

describe('mentionsJson', () => {
  it('answers as `accept.toLowerCase().includes("application/json")`, for generated headers', () => {
    // Pieces of the type in any case, and characters whose lower case is (or contains) an ASCII letter.
    const piece = fc.constantFrom('application/json', 'APPLICATION/JSON', 'Application/Json', 'appl', 'ication/', 'json', 'İ', 'K', 'Å', 'ſ', 'ı', ',', ';q=0.9', ' ', 'text/html', '*/*', 'applİcation/json', 'appſication/json', 'application/jſon')
    const accept = fc.oneof(fc.array(piece, { maxLength: 6 }).map((parts) => parts.join('')), fc.string({ unit: 'binary', maxLength: 40 }))
    fc.assert(fc.property(accept, (a) => mentionsJson(a) === a.toLowerCase().includes('application/json')), { numRuns: 5000 })
  })
})
