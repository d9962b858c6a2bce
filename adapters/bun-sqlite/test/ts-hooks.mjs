// Node 20 cannot run TypeScript. These module hooks strip the types from our .ts files (nothing is
// checked) so the tests' child processes and the bench run the adapter's real source under `node` with
// better-sqlite3. Bun runs .ts itself and never loads this. The transform is oxc's, through the rolldown
// that vite installs (native, ~0.1 s to load); without it, the typescript package (~1 s to load).
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const stripTypes = await import('rolldown/utils').then(
  ({ transformSync }) => (fileName, source) => {
    const { code, errors } = transformSync(fileName, source, { lang: 'ts' })
    if (errors.length > 0) throw new Error(`${fileName}: ${errors.map((e) => e.message).join('; ')}`)
    return code
  },
  async () => {
    const { default: ts } = await import('typescript')
    const compilerOptions = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true }
    return (fileName, source) => ts.transpileModule(source, { fileName, compilerOptions }).outputText
  },
)

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context)
  const fileName = fileURLToPath(url)
  return { format: 'module', source: stripTypes(fileName, await readFile(fileName, 'utf8')), shortCircuit: true }
}
