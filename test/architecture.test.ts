/**
 * The layout's rules, checked: `src/` imports form no cycle and never point into `adapters/`, `bin/`,
 * `examples/` or `bench/` (the core knows no backend); files stay readable in size unless they say why.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..')
const SRC = path.join(ROOT, 'src')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g
const MAX_LINES = 250
/** "Functions a reader can hold in their head (~80 lines at most)". */
const MAX_FUNCTION_LINES = 85

/** Functions (declarations, arrows, methods) longer than `limit` lines, as `file:line name (n lines)`. */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line
      const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1
      const name = 'name' in node && node.name ? (node.name as ts.Node).getText(source) : '(anonymous)'
      if (lines > limit) found.push(`${path.relative(ROOT, file)}:${first + 1} ${name} (${lines} lines)`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sourceFiles(full)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : []
  })
}

/** file → the files it imports (relative imports only; type-only imports count: they are arrows too). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    graph.set(file, [...text.matchAll(IMPORT)].map((m) => path.resolve(path.dirname(file), m[1]!)))
  }
  return graph
}

/** One cycle as a list of files, or undefined. */
export function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file]
    state.set(file, 'open')
    stack.push(file)
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    state.set(file, 'done')
    return undefined
  }
  for (const file of graph.keys()) {
    const cycle = visit(file)
    if (cycle) return cycle
  }
  return undefined
}

describe('architecture', () => {
  const files = sourceFiles(SRC)
  const graph = importGraph(files)
  const rel = (file: string) => path.relative(ROOT, file)

  it('src/ imports nothing from adapters/, bin/, examples/ or bench/', () => {
    const arrows = [...graph].flatMap(([from, tos]) => tos.filter((to) => !to.startsWith(SRC + path.sep)).map((to) => `${rel(from)} → ${rel(to)}`))
    expect(arrows).toEqual([])
  })

  it('src/ has no import cycle', () => {
    expect(findCycle(graph)?.map(rel)).toBeUndefined()
  })

  it('the cycle finder finds a cycle (so the test above can fail)', () => {
    const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', []]])
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a'])
    expect(findCycle(new Map([['a', ['b']], ['b', []]]))).toBeUndefined()
  })

  it(`no function over ~80 lines (${MAX_FUNCTION_LINES})`, () => {
    expect(files.flatMap((file) => longFunctions(file, MAX_FUNCTION_LINES))).toEqual([])
    // The finder finds one (so the check above can fail).
    expect(longFunctions(path.join(SRC, 'room', 'middleware.ts'), 10).length).toBeGreaterThan(0)
  })

  it(`no file over ${MAX_LINES} lines without a reason at its top ("Longer than ${MAX_LINES} lines because …")`, () => {
    const long = files
      .filter((file) => !file.includes(`${path.sep}messages${path.sep}`)) // translations are data
      .filter((file) => {
        const text = readFileSync(file, 'utf8')
        return text.split('\n').length > MAX_LINES && !text.slice(0, 1500).includes(`Longer than ${MAX_LINES} lines because`)
      })
      .map(rel)
    expect(long).toEqual([])
  })
})
