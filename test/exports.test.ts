/**
 * npm and JSR publish the same entry points: package.json's `exports` (built `./dist/X.js` and `.d.ts`)
 * and deno.json's `exports` (the sources, `./X.ts`) must name the same subpaths and the same modules.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const readJson = (name: string) => JSON.parse(readFileSync(new URL(`../${name}`, import.meta.url), 'utf8'))
type Target = { types?: string; default?: string }
/** Every subpath but `./package.json` (npm only), as its `import` condition: the ES module and its types. */
const npmExports: Record<string, Target> = Object.fromEntries(
  Object.entries(readJson('package.json').exports as Record<string, { import?: Target } | string>)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]) => [subpath, typeof target === 'string' ? {} : (target.import ?? {})]),
)
const denoExports: Record<string, string> = readJson('deno.json').exports

/** `./dist/adapters/memory/index.js` → `./adapters/memory/index.ts`; undefined when not under ./dist. */
const sourceOf = (built: string | undefined, extension: RegExp): string | undefined =>
  built?.startsWith('./dist/') && extension.test(built) ? `./${built.slice('./dist/'.length).replace(extension, '.ts')}` : undefined

describe('package exports', () => {
  it('names the same subpaths in package.json and deno.json', () => {
    expect(Object.keys(npmExports).sort()).toEqual(Object.keys(denoExports).sort())
  })

  it('points every subpath at the same module', () => {
    for (const [subpath, target] of Object.entries(npmExports)) {
      expect({ subpath, module: sourceOf(target.default, /\.js$/) }).toEqual({ subpath, module: denoExports[subpath] })
      expect({ subpath, types: sourceOf(target.types, /\.d\.ts$/) }).toEqual({ subpath, types: denoExports[subpath] })
    }
  })
})
