// `npm run test:runtimes` (the first step of `npm test`): installs this folder's package-lock.json — Bun, Deno,
// workerd, Chromium's driver, edge-runtime, better-sqlite3, Node 22 — unless what is installed already matches
// it. They live here, not in the root node_modules, so the quick start (`npm ci && npm start`) does not
// download ~400 MB and compile better-sqlite3 before the demo can run.
//
// "Matches" compares npm's record of the installed tree (node_modules/.package-lock.json) with the lockfile,
// package by package; `npm ci` (a clean install, the lockfile as is) runs when anything differs.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))

function readPackages(file) {
  try {
    return JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')).packages ?? {}
  } catch {
    return undefined
  }
}

/** The first difference between the lockfile and the installed tree, or undefined when they agree. */
export function difference(locked, installed) {
  if (!installed) return 'nothing installed yet'
  for (const [path, entry] of Object.entries(locked)) {
    // The root entry, and optional packages for other platforms (workerd, bun, deno binaries), are never installed here.
    if (path === '' || entry.optional) continue
    if (installed[path]?.version !== entry.version) return `${path}: installed ${installed[path]?.version ?? 'nothing'}, locked ${entry.version}`
  }
  for (const [path, entry] of Object.entries(installed)) {
    if (locked[path]?.version !== entry.version) return `${path}: installed ${entry.version}, not in the lockfile`
  }
  return undefined
}

const locked = readPackages('./package-lock.json')
if (!locked) {
  console.error('test:runtimes: test/runtimes/package-lock.json is missing or unreadable')
  process.exit(1)
}
const why = difference(locked, readPackages('./node_modules/.package-lock.json'))
if (!why) {
  console.log('test:runtimes: test/runtimes/node_modules is up to date')
  process.exit(0)
}
console.log(`test:runtimes: installing test/runtimes (${why})`)
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []]
const result = spawnSync(npm[0], [...npm[1], 'ci', '--no-audit', '--no-fund'], { cwd: here, stdio: 'inherit' })
process.exit(result.status ?? 1)
