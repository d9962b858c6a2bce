/// <reference types="node" />
/**
 * @module
 * Every TypeScript block of the README, as a file a user could paste it into: the block verbatim, after
 * declarations of what it takes from around it (an `app`, a `storage`, …), so it type-checks against the
 * packed package as it stands. A block using a name nobody declares fails to compile: add the name to
 * {@link CONTEXT} (if the README means "your app's"), or fix the block.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** What the README's blocks take from the app around them, as type-only declarations (no import to clash with theirs). */
const CONTEXT: Record<string, string> = {
  app: "declare const app: import('hono').Hono",
  storage: "declare const storage: NonNullable<import('hono-waiting-room').WaitingRoomOptions['storage']>",
  waitingRoom: "declare const waitingRoom: typeof import('hono-waiting-room').waitingRoom",
  siteKey: 'declare const siteKey: string',
  secretKey: 'declare const secretKey: string',
}

/** Opening fences of TypeScript blocks, in any of the spellings Markdown renderers accept. */
const FENCE = /^```(?:ts|typescript|tsx|mts|cts)\s*$/gm

export interface Snippet {
  /** `README.md:61`: where the block opens. */
  where: string
  /** The file's text: declarations of the context it uses, then the block verbatim. */
  source: string
}

/** Names a block brings in or defines itself: `import { a, b as c }`, `import d`, `const e`, `function f`. */
function ownNames(block: string): Set<string> {
  const names = new Set<string>()
  for (const [, list] of block.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of list!.split(',')) {
      const name = part.replace(/^\s*type\s+/, '').split(/\s+as\s+/).at(-1)!.trim()
      if (name) names.add(name)
    }
  }
  for (const [, name] of block.matchAll(/(?:import\s+(?!type\b)|(?:const|let|var|function|class)\s+)([A-Za-z_$][\w$]*)/g)) names.add(name!)
  return names
}

/** The TypeScript blocks of `file` (relative to `root`), each ready to compile. */
export function readmeSnippets(root: string, file = 'README.md'): Snippet[] {
  const text = readFileSync(join(root, file), 'utf8')
  const snippets: Snippet[] = []
  for (const fence of text.matchAll(FENCE)) {
    const start = fence.index! + fence[0].length + 1
    const end = text.indexOf('\n```', start - 1)
    if (end < 0) throw new Error(`${file}: the block at offset ${fence.index} is never closed`)
    const block = text.slice(start, end + 1)
    const own = ownNames(block)
    const context = Object.entries(CONTEXT)
      .filter(([name]) => !own.has(name) && new RegExp(`\\b${name.replace('$', '\\$')}\\b`).test(block))
      .map(([, declaration]) => declaration)
    const line = text.slice(0, fence.index).split('\n').length
    // `export {}`: a module, as every file of an app that imports is.
    snippets.push({ where: `${file}:${line}`, source: `${context.join('\n')}\n${block}export {}\n` })
  }
  return snippets
}

/** Languages of fences that are not data or shell: any but TypeScript would be code this test does not compile. */
const NOT_CODE = new Set(['sh', 'bash', 'shell', 'console', 'json', 'jsonc', 'toml', 'yaml', 'text', 'txt', 'http', 'html', 'diff', ''])

/** The languages of `file`'s code blocks that neither {@link readmeSnippets} compiles nor are data or shell (`js`, …). */
export function uncompiledCode(root: string, file = 'README.md'): string[] {
  const languages: string[] = []
  let open = false
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    if (!line.startsWith('```')) continue
    if (!open) languages.push(line.slice(3).trim().toLowerCase())
    open = !open
  }
  return languages.filter((language) => !NOT_CODE.has(language) && !/^(ts|typescript|tsx|mts|cts)$/.test(language))
}
